// Fusion of a 3x3 stride-2 max pool into the convolution that produces its
// input (ResNet's conv1 -> relu -> maxpool): the pool runs in the conv's
// epilogue on the accumulator tile (conv_pool.h), so the conv's full-size
// result is never stored and the pool's separate pass disappears.
//
//   before:  %y = qconv(%x, ...)  [accel]      %p = max_pool(%y)  [accel]
//   after:   %y = qconv(%x, ...)  [accel, epilogue pools; result %p]
//            %p = max_pool(%y)    [fused into the conv]
//
// Conditions: %y has no other use and is not a graph output; the pool is
// 3x3, stride 2, padding 1 over an even-sized plane; the conv's result has no
// zero point and non-negative multipliers (requantization is then monotonic,
// so pooling the raw sums is exact); a tiling with whole, even rows fits.
#pragma once

#include <vector>

#include "compiler/backend/partition.h"

namespace tessera::backend {

void FuseConvMaxPool(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts);

}  // namespace tessera::backend
