// Channel concatenation without a copy: a `concat` on axis 1 of rank-4 int8
// values whose inputs are all written by accelerator layers becomes a layout
// alias. Its inputs are stored by their producers straight into channel
// slices of one shared device buffer (the concat's, or an enclosing concat's
// when it is itself an operand: DenseNet's growing feature maps share one
// buffer per dense block), and its readers read that buffer.
//
//   before: conv a -> [a] -DOWNLOAD-> concat (CPU) -UPLOAD-> [y] -> conv
//   after:  conv a -> [y: channels 0..Ca)   conv b -> [y: Ca..Ca+Cb)  -> conv
//
// A value in a slice is the packed [N/B][C/BLK][H][W] tiles of its root
// buffer's channel blocks [offset/BLK, (offset + C)/BLK): every slice but a
// root's last starts and ends on a channel block. Accelerator producers and
// readers use strided views (ActView); transfers copy the slice per batch
// block (runner.cc).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/backend/partition.h"

namespace tessera::backend {

struct ChannelSlice {
  std::string root;      // the value whose device buffer holds the slice
  int64_t offset = 0;    // first channel, a multiple of BLOCK_IN
  int64_t channels = 0;  // channels of the root (its buffer's C)
};

// A rank-4 value's channel count.
inline int64_t Channels(const ir::Value* v) { return v->type().shape[1]; }

// Concats run in place only when activation tiles are square (BLOCK_IN == BLOCK_OUT).
bool ConcatsInPlace(const HwConfig& cfg);

// The graph-level conditions for concat n to run in place, channel blocks and
// placement aside: int8 rank 4 on axis 1 (or -3); distinct, non-constant int8
// operands with the result's quantization.
bool InPlaceConcatCandidate(const ir::Node& n);

// Every operand of concat n but the last fills whole blocks of `block` channels.
bool OperandsFillBlocks(const ir::Node& n, int64_t block);

// Turns the placement of every concat that can be written in place into an
// alias and returns where each value inside a shared buffer lives (values not
// in the map have a buffer of their own). A concat that cannot (a host-made or
// duplicated operand, a result only the host reads when that saves no transfer, a channel count that is not a multiple
// of BLOCK_IN before another slice, an operand that an element-wise layer or a flatten reads as whole tiles, a
// conflicting slice) keeps its placement.
std::map<std::string, ChannelSlice> PlanChannelSlices(const HwConfig& cfg, std::vector<Placement>* parts);

}  // namespace tessera::backend
