// A 3x3 stride-2 max pool (padding 1) fused into a convolution's epilogue:
// the pool runs on the accumulator tile right after the GEMM, on the raw
// sums (bias included), and only the pooled values are requantized and
// stored. Exact because requantization (MULSHR by a non-negative multiplier,
// then the clamp) is monotonic, so max(requant(a_i)) = requant(max(a_i)).
//
// A tile holds whole conv rows [y0, y0 + th) (th even) of `tob` blocks; a
// pooled output (r, c) is the max of rows 2r-1..2r+1 and columns 2c-1..2c+1.
// Passes, in place on the "anchor" entries (even row, even column), each
// source read shared by the two windows it belongs to:
//
//   rows:    a[y][2c]   = max(a[y][2c], a[y][2c+1]);  a[y][2c+2] = max(., a[y][2c+1])
//   columns: a[2j][2c]  = max(a[2j][2c], a[2j+1][2c]); a[2j+2][2c] = max(., a[2j+1][2c])
//   carry:   a[0][2c]   = max(., previous tile's row th-1)   (not for the first row tile)
//   compact: out[j][c]  = a[2j][2c]
//
// Window cells outside the image (row -1, column -1) are simply never read.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/isa.h"
#include "runtime/kernel.h"

namespace tessera::backend {

// Where a tile's accumulator rows are: block o's conv rows at conv + o*th*tw,
// its pooled outputs at out + o*(th/2)*(tw/2); `carry` >= 0 is the previous
// row tile's first block (same layout, `carry_th` rows), whose last row
// supplies the first window row.
struct PoolTile {
  int64_t tob = 1, th = 2, tw = 2;
  int64_t conv = 0, out = 0;
  int64_t carry = -1, carry_th = 0;
};

// One ALU instruction of the pool: MAX or MOV with a vector source.
struct PoolPass {
  const char* what;
  AluOp op;
  KernelLoop outer, inner;
  std::vector<std::pair<int64_t, int64_t>> uops;  // (dst, src)
};

// The passes of a tile, in order.
std::vector<PoolPass> PoolPasses(const PoolTile& t);

// Their cycles by the operand rule of sim/timing.h (the tiler's estimate).
int64_t PoolPassCycles(const HwConfig& cfg, const PoolTile& t);

}  // namespace tessera::backend
