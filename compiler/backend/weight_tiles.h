// Zero weight tiles: which [BO][BI] weight tiles of a layer hold a non-zero
// weight, and what each tile of the conv pipeline then reads. The GEMM uops,
// weight LOADs and input LOADs of all-zero weight tiles are skipped (exact: a
// zero tile adds nothing to the accumulator), as is an input-channel tile
// whose weight tiles are all zero. ShuffleNet's folded channel shuffles and
// 0/1 channel-gather convs leave many. The conv codegen and the tiler's
// estimate both walk the tiles through IcTilesOf and WeightRuns.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/backend/conv_plan.h"

namespace tessera {
struct HwConfig;
}

namespace tessera::backend {

struct WeightPacking;

// Per weight tile [OCB][IBPO][KK] of layout.h's packing: 1 when it holds a
// non-zero weight; empty when every tile does. `w` is [OC][ICG][KK] as
// WeightPacking describes.
WeightTileMask NonzeroWeightTiles(const HwConfig& cfg, const WeightPacking& p, const int8_t* w);

// An input-channel tile of one output-channel tile and the weight tiles its
// GEMM reads, each (o * tib + j) * kk + tap for tile-relative output block o,
// input block j and kernel tap, in uop order.
struct IcTile {
  int64_t j0 = 0, tib = 1;  // its first input block (relative to the oc block's first) and block count
  std::vector<int64_t> taps;
  bool all = true;  // every weight tile of the chunk: the dense loads and kernel
  // The tile's input blocks (j, or o for block-diagonal weights) a uop reads, and how many.
  std::vector<bool> read;
  int64_t reads = 0;
};

// The ic tiles of the output-channel tile starting at block ob0 that read a
// non-zero weight tile, in order. When none does, the first ic tile with one
// (zero) weight tile: the output tile still starts at the bias and is
// requantized.
std::vector<IcTile> IcTilesOf(const ConvBlocking& b, const ConvTiling& t, int64_t kk, const WeightTileMask& m,
                              int64_t ob0);

// A weight LOAD of `n` tiles: scratchpad entry `wgt` (relative to the tile's
// half; with resident weights, absolute) from weight tile `dram` of the layer.
struct WeightRun {
  int64_t wgt, dram, n;
};
// The LOADs of a sparse ic tile's weight tiles (x.all: the caller's dense
// LOADs instead): runs consecutive in both the scratchpad and DRAM.
std::vector<WeightRun> WeightRuns(const IcTile& x, const ConvBlocking& b, int64_t kk, int64_t ob0, bool resident);

}  // namespace tessera::backend
