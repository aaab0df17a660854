// The Verilog header of one config: every ISA field position and width,
// opcode, memory type and ALU operation value, config parameter and derived
// size, register offset and bit, error code, counter index, unit and cycle
// category, token queue, the memory port's contract constants and the ISA
// fingerprint, as `localparam`s to `include inside a module. The RTL
// (hw/rtl/) hand-copies none of these (`tessera isa verilog -c CONFIG`).
#pragma once

#include <string>

namespace tessera {

struct HwConfig;

std::string GenerateVerilogHeader(const HwConfig& cfg);

}  // namespace tessera
