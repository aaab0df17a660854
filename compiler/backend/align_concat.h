// Channel-block alignment of concats, so they can be written in place
// (channel_slices.h needs every operand but the last to fill whole channel
// blocks). ShuffleNet's stage 2 joins two halves of 24 channels: with 16-lane
// blocks the second would start mid-block, so the concat ran on the host.
// Each operand but the last is widened to a multiple of BLOCK_IN by zero
// weight rows in the qconv that produces it (used only by the concat), and
// every reader of the concat takes the padded layout: a group-1 qconv gets
// zero weight columns at the padding; a depthwise qconv gets padding
// channels of its own (zero weights and bias) and passes the layout on to
// its readers, recursively. Nothing reads the padding with a non-zero weight,
// so every real result is unchanged, bit for bit.
//   before: %a: [N,24,H,W] = qconv(%p, %wa: [24,K,1,1])   %c: [N,48,H,W] = concat(%a, %b)
//           %y = qconv(%c, %wy: [M,48,1,1])
//   after:  %a: [N,32,H,W] = qconv(%p, %wa': [32,K,1,1])  %c: [N,56,H,W] = concat(%a, %b)
//           %y = qconv(%c, %wy': [M,56,1,1])   (wa' rows 24..31 and wy' columns 24..31 zero)
// Only where the padded concat would then run in place (channel_slices.h's
// InPlaceConcatCandidate, every operand a qconv's result, every reader a qconv
// taking the padding); placement itself is decided later by the partitioner.
// Applied to a copy of the graph by CompileGraph (the artifact embeds the
// padded graph; the caller's int8 graph stays the reference).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace tessera::backend {

// Pads the concats that can be padded; returns how many.
int AlignChannelConcats(ir::Graph& g, int64_t block);

// Gives qconv `conv` n output channels, old channel c at map[c] (zero
// weights, zero bias and the first multiplier for the rest; conv_shuffle.h
// reorders with it).
void SpreadOutputs(ir::Graph& g, ir::Node* conv, const std::vector<int64_t>& map, int64_t n);

}  // namespace tessera::backend
