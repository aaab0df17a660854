// Helpers shared by subcommands: loading a program (text or program object)
// and writing an output file or stdout, with errors as Status.
#pragma once

#include <string>

#include "isa/base/status.h"
#include "isa/config.h"
#include "isa/program.h"

namespace tessera::cli {

// Loads PROG.s (assembles) or PROG.bin (program object), detected by content.
StatusOr<Program> LoadProgramFile(const HwConfig& cfg, const std::string& path);

// Writes `text` to `path`, or to stdout when path is empty or "-".
Status WriteOutput(const std::string& path, const std::string& text);

}  // namespace tessera::cli
