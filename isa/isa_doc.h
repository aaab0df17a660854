// Generators driven by the ISA and register tables: docs/isa.md and
// docs/registers.md (the Verilog header is hw/verilog_header.h).
#pragma once

#include <string>

namespace tessera {

struct HwConfig;

std::string GenerateIsaDoc(const HwConfig& cfg);
std::string GenerateRegsDoc(const HwConfig& cfg);

}  // namespace tessera
