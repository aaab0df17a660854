// The pixel shuffle after a conv_transpose's stride-phase conv
// (conv-transpose-to-conv) on the device: the conv's tiles store their pixels
// at their shuffled positions, so the shuffle (and a crop that is a window of
// the shuffled grid) costs no host round trip.
//
// OrderShufflePhases (on CompileGraph's copy of the graph) gives the conv its
// channels block-major, [M/BLK][s_h*s_w][BLK] instead of [M][s_h*s_w], so one
// channel block holds one phase and BLK channels, and rewrites the shuffle to
// match (same result, bit for bit):
//   before: %t = qconv(..) [N,M*P,LH,LW]  reshape [N,M,sh,sw,LH,LW]  transpose [0,1,4,2,5,3]
//           reshape [N,M,LH*sh,LW*sw]  [slice {starts=[0,0,ch,cw], ends=[N,M,ch+OH,cw+OW]}]
//   after:  %t = qconv(..) (channels reordered)  reshape [N*M/BLK,sh,sw,BLK,LH,LW]
//           transpose [0,3,4,1,5,2]  reshape [N,M,LH*sh,LW*sw]  [slice as before]
// Then every oc tile of whole phase groups computes shuffled blocks: each
// phase's GEMM writes its pixels inside the crop window to their places in
// the tile's window of the result (conv_codegen.cc), one STORE per block.
// M must be a multiple of BLK (U-Net and DCGAN-style decoders: 16..512
// channels); other convs keep the host shuffle.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/backend/conv_plan.h"
#include "compiler/ir/graph.h"

namespace tessera::backend {

struct ConvShuffle {
  PixelShuffle geo;
  // reshape, transpose, reshape[, slice]: each reads the one before, the last one's result is the layer's.
  std::vector<const ir::Node*> nodes;
};

// Reorders the channels of every stride-phase qconv whose shuffle can run on
// the device (above); returns how many.
int OrderShufflePhases(ir::Graph& g, int64_t block);

// The device-ordered shuffle reading qconv `conv`'s result (its only use),
// or nullopt.
std::optional<ConvShuffle> DeviceShuffleOf(const ir::Graph& g, const ir::Node& conv, int64_t block);

}  // namespace tessera::backend
