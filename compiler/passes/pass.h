// Graph passes: each is one function in its own file that rewrites a graph
// in place and reports whether it changed anything and what it did, e.g.
// "fold-batchnorm: 20 folded". The pass manager (pass_manager.h) runs them
// by name with the verifier in between.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "isa/base/status.h"

namespace tessera::ir {
class Graph;
}

namespace tessera::passes {

struct PassStats {
  bool changed = false;
  std::vector<std::pair<std::string, int64_t>> counts;  // ("folded", 20), ...
  void Count(const std::string& what, int64_t n = 1);
  // "20 folded, 3 removed" (or "no change").
  std::string Summary() const;
};

using PassFn = StatusOr<PassStats> (*)(ir::Graph& graph);

struct PassInfo {
  const char* name;  // "fold-batchnorm"
  PassFn run;
  const char* summary;  // one line for --help and docs
};

// Registered passes in a stable order.
const std::vector<PassInfo>& AllPasses();
const PassInfo* FindPass(const std::string& name);

// The passes, one file each.
StatusOr<PassStats> InferShapes(ir::Graph& g);          // shape_inference.cc
StatusOr<PassStats> EliminateIdentity(ir::Graph& g);    // eliminate_identity.cc
StatusOr<PassStats> FoldConstants(ir::Graph& g);        // constant_folding.cc
StatusOr<PassStats> FoldBatchNorm(ir::Graph& g);        // fold_batchnorm.cc
StatusOr<PassStats> BatchNormToConv(ir::Graph& g);      // batchnorm_to_conv.cc
StatusOr<PassStats> FuseBias(ir::Graph& g);             // fuse_bias.cc
StatusOr<PassStats> FuseActivation(ir::Graph& g);       // fuse_activation.cc
StatusOr<PassStats> FoldChannelShuffle(ir::Graph& g);   // fold_channel_shuffle.cc
StatusOr<PassStats> HoistRnnInput(ir::Graph& g);        // hoist_rnn_input.cc
StatusOr<PassStats> ConvTransposeToConv(ir::Graph& g);  // conv_transpose_to_conv.cc
StatusOr<PassStats> FuseHardSwish(ir::Graph& g);        // fuse_hard_swish.cc
StatusOr<PassStats> FoldQdq(ir::Graph& g);              // fold_qdq.cc
StatusOr<PassStats> FoldRequantize(ir::Graph& g);       // fold_requantize.cc
StatusOr<PassStats> ChannelGatherToConv(ir::Graph& g);  // channel_gather_to_conv.cc
StatusOr<PassStats> EliminateDeadCode(ir::Graph& g);    // dce.cc

}  // namespace tessera::passes
