// Fusion of a stride-phase conv's pixel shuffle (and crop) into the conv's
// stores (conv_shuffle.h): the conv's tiles store their pixels at their
// shuffled positions inside the crop window, so the reshape/transpose/
// reshape[/slice] chain runs in no step of its own and no host round trip.
//
//   before:  %t = qconv(..) [accel]   reshape, transpose, reshape, slice [cpu]
//   after:   %t = qconv(..) [accel, stores the shuffled, cropped result %y]
//            reshape, transpose, reshape, slice [fused into the conv]
//
// Conditions: conv_shuffle.h's device-ordered chain after an accelerator
// qconv (not im2col, nothing else fused), and a tiling of whole phase groups fits.
#pragma once

#include <vector>

#include "compiler/backend/partition.h"

namespace tessera::backend {

void FuseConvShuffle(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts);

}  // namespace tessera::backend
