// Generators driven by the ISA table: docs/isa.md and the Verilog header with
// every field position and width for one config.
#pragma once

#include <string>

namespace tessera {

struct HwConfig;

std::string GenerateIsaDoc(const HwConfig& cfg);
std::string GenerateVerilogHeader(const HwConfig& cfg);

}  // namespace tessera
