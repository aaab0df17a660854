// Assembler and disassembler for Tessera's text format (docs/assembly.md):
// one instruction per line with named fields, comments, symbols, expressions,
// data/uop/expect segments. Disassemble(Assemble(x)) re-assembles to the same
// program object bytes. Errors carry file:line:column and what was expected.
#pragma once

#include <string>

#include "isa/base/status.h"
#include "isa/program.h"

namespace tessera {

struct HwConfig;

StatusOr<Program> Assemble(const HwConfig& cfg, const std::string& text, const std::string& filename);
StatusOr<Program> AssembleFile(const HwConfig& cfg, const std::string& path);

std::string Disassemble(const HwConfig& cfg, const Program& prog);
// One instruction in assembly syntax, without a newline.
std::string FormatInstruction(const HwConfig& cfg, const Instruction& insn);

}  // namespace tessera
