// Helpers shared by subcommands: loading a config and a program (text or
// program object) with errors as Status.
#pragma once

#include <string>

#include "isa/base/status.h"
#include "isa/config.h"
#include "isa/program.h"

namespace tessera::cli {

// Loads PROG.s (assembles) or PROG.bin (program object), detected by content.
StatusOr<Program> LoadProgramFile(const HwConfig& cfg, const std::string& path);

}  // namespace tessera::cli
