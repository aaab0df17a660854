// Random *valid* programs for differential tests: race-free by construction,
// token-balanced, every access in bounds. The program is a software pipeline
// of blocks over ping-pong halves of the inp/wgt/acc scratchpads: block k's
// loads overlap block k-1's compute and block k-2's stores, synchronized by
// dependency tokens. Instructions inside a block are random (LOAD with
// padding/strides, GEMM and ALU loops with random factors, every ALU op,
// STORE with padding). Deterministic per seed.
#pragma once

#include <cstdint>

#include "isa/config.h"
#include "isa/program.h"

namespace tessera::testing {

struct RandomProgramOptions {
  int max_blocks = 6;
  int max_loads = 3;    // per block, load module
  int max_compute = 6;  // per block, compute module (GEMM, ALU, LOAD acc/acc8/uop)
  int max_stores = 3;   // per block
};

Program RandomValidProgram(const HwConfig& cfg, uint64_t seed, const RandomProgramOptions& opts = {});

}  // namespace tessera::testing
