// Test support for the conv code generator's tests: a random conv/dense case,
// its plain-loop reference (isa/alu.h arithmetic) and one run on a device.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/cost_model.h"

namespace tessera::backend::conv_test {

struct Case {
  ConvGeometry g;
  bool dense = false;  // [N, K] x [K, M] as a 1x1 conv over N rows
  std::vector<int8_t> x, w;
  std::vector<int64_t> bias, mult;
  int shift = 0;
  int64_t lo = -128, hi = 127;
  bool pool = false;  // a 3x3/2 max pool (padding 1) fused into the epilogue
  // A residual qadd fused into the epilogue: y = qadd(conv, res).
  bool add = false;
  std::vector<int8_t> res;
  int64_t ma = 0, mb = 0, alo = -128, ahi = 127;
  int sa = 0, sb = 0, post = 0;
  bool sparse = false;  // pass the zero weight tiles to the tiler and codegen (weight_tiles.h)
};

struct Result {
  std::vector<int8_t> y;
  DeviceCounters counters, predicted;
  std::map<AluOp, int> alu_insns;             // ALU instructions of the recording by operation
  int ovl_insns = 0;                          // instructions with ovl
  int ovl_acc_loads = 0, ovl_acc8_loads = 0;  // of them, LOAD acc (parameter rows) and acc8 (residual)
  ConvTiling tiling;
};

// A random conv (or, `dense`, a [rows][K] x [K][M] product).
Case RandomCase(std::mt19937_64& rng, bool dense);
// The layer's epilogue: its clamp, fused pool and residual add.
ConvEpilogue EpilogueOf(const Case& c);
// Random inputs and weights for c's geometry and, with `params`, a
// per-channel bias and multiplier.
void FillData(std::mt19937_64& rng, Case* c, bool params = true);
// A grouped convolution whose groups are either whole channel blocks of the
// config or divide a block with in = out channels, and/or a dilated one.
Case RandomGroupedCase(std::mt19937_64& rng, int64_t block, bool grouped, bool dilated);
// A convolution whose even-sized result feeds a fused 3x3/2 max pool.
Case RandomPoolCase(std::mt19937_64& rng);
// A convolution whose result is added (qadd) to another tensor of its shape.
Case RandomAddCase(std::mt19937_64& rng);
// qadd as the CPU reference computes it (compiler/exec/quant_kernels.cc).
std::vector<int8_t> QAdd(const Case& c, const std::vector<int8_t>& a);
// Max pool 3x3, stride 2, padding 1 of [n][c][h][w] (h, w even).
std::vector<int8_t> MaxPool(const std::vector<int8_t>& y, int64_t n, int64_t c, int64_t h, int64_t w);
// The requantized conv result [n][oc][oh][ow] in plain loops (no pool, no qadd).
std::vector<int8_t> Reference(const Case& c);
// Dense: x is [rows][K] and w [M][K], both row-major; y is [rows][M].
std::vector<int8_t> DenseReference(const Case& c);
// Tiles, generates and runs the case on `target` with the runtime.
StatusOr<Result> RunOnDevice(const HwConfig& cfg, const std::string& target, const Case& c);

}  // namespace tessera::backend::conv_test
