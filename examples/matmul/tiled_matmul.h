// A hand-tiled, double-buffered int8 matrix product C = requant(A . B) on the
// accelerator, written against the runtime's C++ API. Used by
// matmul_example (the API walk-through of docs/runtime.md), by the runtime's
// tests and by bench/runtime_bench.cc.
//
// Host packing: A (M x K) becomes input tiles [M/BATCH][K/BLOCK_IN], B (K x N)
// weight tiles [N/BLOCK_OUT][K/BLOCK_IN] (B transposed: a weight tile holds
// B[k][n] at [n][k]); C comes back as output tiles [M/BATCH][N/BLOCK_OUT].
// Sizes that are not block multiples are padded with zero lanes by the host
// (the DMA pads whole tiles only). Tiles of the schedule that do not divide
// the matrix are handled two ways: along K the last tile is padded with zero
// tiles by the DMA (x_pad1), so every K step uses the same GEMM kernel; along
// M and N edge tiles are smaller and use their own kernels (cached too).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/base/status.h"
#include "isa/config.h"
#include "runtime/kernel.h"
#include "runtime/stream.h"

namespace tessera::example {

struct MatmulShape {
  int64_t m = 0, n = 0, k = 0;
};

// Matrix and tile sizes in blocks: rows of BATCH, columns of BLOCK_OUT, depth of BLOCK_IN.
struct MatmulPlan {
  MatmulShape shape;
  int64_t mb = 0, nb = 0, kb = 0;                 // the matrices, in blocks
  int64_t tm = 0, tn = 0, tk = 0;                 // one tile: at most half of each scratchpad (double buffering)
  int shift = 0;                                  // requantization: C = clip(round(A.B / 2^shift), -128, 127)
  int64_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // packed sizes in DRAM
  int64_t steps() const;                          // (m tile, n tile, k tile) triples
};

// Picks the tile that minimizes a simple model of the run time (compute vs
// DMA per step, the per-tile reset and requantization passes, the pipeline
// fill and drain), subject to each tile fitting half of its scratchpad.
// tm/tn/tk > 0 force a size. Fails when the config is not int8.
StatusOr<MatmulPlan> PlanMatmul(const HwConfig& cfg, const MatmulShape& shape, int shift, int64_t tm = 0,
                                int64_t tn = 0, int64_t tk = 0);

// The default requantization shift for K-deep products of int8 values.
int DefaultShift(int64_t k);

std::vector<int8_t> PackA(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& a);
std::vector<int8_t> PackB(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& b);
std::vector<int8_t> UnpackC(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& packed);

// The plain CPU loop the accelerator is checked against (same ALU arithmetic).
std::vector<int8_t> MatmulReference(const std::vector<int8_t>& a, const std::vector<int8_t>& b, const MatmulShape& s,
                                    int shift);

// Records the whole product into `stream`: per (m, n, k) tile step, load the
// A and B tiles into one half of the input/weight scratchpads while the other
// half is being multiplied, accumulate into one half of the accumulator while
// the other half is requantized and stored. `kernels` memoizes the uop
// kernels (several recordings can share it).
Status RecordMatmul(Stream* stream, const MatmulPlan& p, DmaTarget a, DmaTarget b, DmaTarget c, KernelCache* kernels);

}  // namespace tessera::example
