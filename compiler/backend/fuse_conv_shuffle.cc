#include "compiler/backend/fuse_conv_shuffle.h"

#include <map>

#include "isa/config.h"

namespace tessera::backend {

void FuseConvShuffle(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts) {
  std::map<const ir::Node*, size_t> index;
  for (size_t i = 0; i < parts->size(); ++i) index[(*parts)[i].node] = i;
  for (Placement& conv : *parts) {
    if (conv.kind != PlaceKind::kAccel || conv.op != AccelOp::kConv || conv.im2col || conv.fused_pool || conv.fused_add)
      continue;
    std::optional<ConvShuffle> s = DeviceShuffleOf(g, *conv.node, cfg.block_in);
    if (!s) continue;
    ConvEpilogue e = EpilogueOf(*conv.node);
    e.shuffle = s->geo;
    // No tiling of whole phase groups fits: the shuffle stays on the host.
    if (!RetileForFusion(cfg, e, "pixel shuffle", &conv)) continue;
    for (const ir::Node* n : s->nodes) {
      Placement& p = (*parts)[index.at(n)];
      p.kind = PlaceKind::kFused;
      p.op = AccelOp::kNone;
      p.reason = "pixel shuffle stored by " + conv.node->Label();
    }
    conv.shuffle = std::move(*s);
  }
}

}  // namespace tessera::backend
