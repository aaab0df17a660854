// Fusion of a residual qadd into the convolution that produces one of its
// operands (ResNet's conv2 -> add): the add runs in the conv's epilogue on
// the clamped accumulator tile, with the other operand's tile loaded next to
// it (LOAD acc8), so the conv's int8 result is never stored and re-read.
//
//   before:  %c = qconv(%x, ...)  [accel]      %y = qadd(%c, %r)  [accel]
//   after:   %c = qconv(%x, ...)  [deferred to %y's position]
//            %y = qadd(%c, %r)    [fused: the conv's step, result %y]
//
// The step runs where the add was (the other operand %r, e.g. a downsample,
// may come after the conv in graph order). Conditions: %c has no other use,
// is not a graph output and has no zero point; the conv has no fused pool; a
// tiling with room for both tiles fits. Exact: the epilogue computes the
// conv's int8 values first, then the add's integer sequence.
#pragma once

#include <vector>

#include "compiler/backend/partition.h"

namespace tessera::backend {

void FuseConvAdd(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts);

}  // namespace tessera::backend
