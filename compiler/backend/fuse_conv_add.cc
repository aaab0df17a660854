#include "compiler/backend/fuse_conv_add.h"

#include <map>

namespace tessera::backend {

void FuseConvAdd(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts) {
  std::map<const ir::Node*, size_t> index;
  for (size_t i = 0; i < parts->size(); ++i) index[(*parts)[i].node] = i;
  for (size_t a = 0; a < parts->size(); ++a) {
    Placement& add = (*parts)[a];
    if (add.kind != PlaceKind::kAccel || add.op != AccelOp::kAdd || add.node->input(0) == add.node->input(1)) continue;
    for (int k = 0; k < 2; ++k) {
      const ir::Value* y = add.node->input(k);
      if (!y->producer() || y->users().size() != 1 || ZeroPointOf(y) != 0 || g.IsOutput(y)) continue;
      auto it = index.find(y->producer());
      if (it == index.end()) continue;
      Placement& conv = (*parts)[it->second];
      if (conv.kind != PlaceKind::kAccel || conv.op != AccelOp::kConv || conv.fused_pool) continue;
      ConvEpilogue e = EpilogueOf(*conv.node);
      const int64_t lo = add.node->attrs().Int("act_min", -128), hi = add.node->attrs().Int("act_max", 127);
      e.residual_passes = ConvEpilogue::ResidualPasses(lo, hi);
      // No room for both tiles: the add stays a layer of its own.
      if (!RetileForFusion(cfg, e, "residual add", &conv)) continue;
      conv.fused_add = add.node;
      conv.add_operand = k;
      add.kind = PlaceKind::kFused;
      add.carrier = static_cast<int>(it->second);
      add.reason = "fused into the epilogue of " + conv.node->Label();
      break;
    }
  }
}

}  // namespace tessera::backend
