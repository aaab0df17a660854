// Placing a Program into a DRAM model and checking its expectations
// afterwards (isa/program.h has the memory-agnostic versions).
#pragma once

#include "isa/base/status.h"
#include "isa/program.h"

namespace tessera {

struct HwConfig;
class Dram;

// Writes the encoded instruction stream at prog.text_addr and every data/uop
// segment at its address (expectations are not written).
Status LoadProgram(const HwConfig& cfg, const Program& prog, Dram* dram);

// Compares every .expect segment with DRAM (CheckExpectations of isa/program.h).
Status CheckExpectations(const Program& prog, const Dram& dram, int* checked_segments = nullptr);

}  // namespace tessera
