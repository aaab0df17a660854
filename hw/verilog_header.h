// The Verilog header of one config: every ISA field position and width,
// opcode, memory type and ALU operation value, config parameter and derived
// size, register offset and bit, error code, counter index, unit and cycle
// category, token queue, the memory port's contract constants and the ISA
// fingerprint, as `localparam`s to `include inside a module. The RTL
// (hw/rtl/) hand-copies none of these (`tessera isa verilog -c CONFIG`).
#pragma once

#include <string>

#include "isa/base/status.h"

namespace tessera {

struct HwConfig;

std::string GenerateVerilogHeader(const HwConfig& cfg);

// The RTL's contract on a valid config (hw/rtl/tsr_accel.v): every tile but
// the uop's (inp, wgt, acc, out) is a multiple of the bus beat B =
// dram.bytes_per_cycle bytes, B <= 64, and T_setup = timing.dma_setup_cycles >= 1.
// ref, sim and systemc run any valid config; the RTL flows (the Verilated
// models, fpga/, the area model) get their header only through this check.
// The error names the config keys at fault.
Status ValidateForRtl(const HwConfig& cfg, const std::string& source);

}  // namespace tessera
