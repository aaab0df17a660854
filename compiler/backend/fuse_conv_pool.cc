#include "compiler/backend/fuse_conv_pool.h"

#include <algorithm>
#include <map>

namespace tessera::backend {
namespace {

bool PoolFits(const Placement& conv, const Placement& pool) {
  const ConvGeometry& g = conv.geo;
  const PoolCodegen& p = pool.pool;
  return pool.kind == PlaceKind::kAccel && pool.op == AccelOp::kPool && p.max && p.kh == 3 && p.kw == 3 && p.sh == 2 &&
         p.sw == 2 && p.pt == 1 && p.pl == 1 && g.oh % 2 == 0 && g.ow % 2 == 0 && p.oh == g.oh / 2 &&
         p.ow == g.ow / 2 && p.n == g.n && p.c == g.oc;
}

bool Monotonic(const ir::Node& conv) {
  if (ZeroPointOf(conv.output()) != 0) return false;
  const std::vector<int64_t> m = conv.attrs().Ints("multiplier");
  return !m.empty() && std::all_of(m.begin(), m.end(), [](int64_t v) { return v >= 0; });
}

}  // namespace

void FuseConvMaxPool(const ir::Graph& g, const HwConfig& cfg, std::vector<Placement>* parts) {
  std::map<const ir::Node*, size_t> index;
  for (size_t i = 0; i < parts->size(); ++i) index[(*parts)[i].node] = i;
  for (Placement& conv : *parts) {
    if (conv.kind != PlaceKind::kAccel || conv.op != AccelOp::kConv) continue;
    const ir::Value* y = conv.node->output();
    if (y->users().size() != 1 || g.IsOutput(y)) continue;
    auto it = index.find(y->users()[0]);
    if (it == index.end()) continue;
    Placement& pool = (*parts)[it->second];
    if (!PoolFits(conv, pool) || !Monotonic(*conv.node)) continue;
    ConvEpilogue e = EpilogueOf(*conv.node);
    e.max_pool = true;
    // No tile of whole rows fits: the pool stays a layer of its own.
    if (!RetileForFusion(cfg, e, "max pool 3x3/2", &conv)) continue;
    conv.fused_pool = pool.node;
    pool.kind = PlaceKind::kFused;
    pool.reason = "fused into the epilogue of " + conv.node->Label();
  }
}

}  // namespace tessera::backend
