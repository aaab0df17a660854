#include "compiler/backend/batch_matmul.h"

#include <fmt/format.h>

#include "isa/base/math.h"
#include "isa/config.h"

namespace tessera::backend {
namespace {

bool SymmetricI8(const ir::Value* v) { return v->type().dtype == ir::DType::kI8 && ZeroPointOf(v) == 0; }

}  // namespace

ActShape RowsShapeOf(const ir::TensorType& t) {
  const int64_t last = t.shape.empty() ? 1 : t.shape.back();
  return ActShape{last ? t.numel() / last : 0, last, 1, 1};
}

Placement PlaceBatchMatMul(const ir::Node* n, const HwConfig& cfg, const std::set<const ir::Value*>& device,
                           const std::set<const ir::Value*>& rows) {
  const ir::Value* a = n->input(0);
  const ir::Value* b = n->input(1);
  if (!SymmetricI8(a) || !SymmetricI8(b) || !SymmetricI8(n->output()))
    return CpuPlacement(n, "its operands or result are not symmetric int8");
  if (a->type().rank() >= 4 && device.count(a) && !rows.count(a))
    return CpuPlacement(n, "its first operand is held in the [N, C, H, W] layout on the device");
  const ir::Shape& as = a->type().shape;
  const int64_t m = as[as.size() - 2], k = as.back(), cols = b->type().shape.back();
  const int64_t groups = a->type().numel() / (m * k);
  if (groups > 1 && m % cfg.batch != 0)
    return CpuPlacement(n, fmt::format("{} rows per product are not a multiple of BATCH = {}", m, cfg.batch));
  ConvGeometry g;
  g.n = 1;
  g.ic = k;
  g.oc = cols;
  g.ih = g.oh = CeilDiv(m, cfg.batch);
  g.iw = g.ow = 1;
  const ConvEpilogue epi = EpilogueOf(*n);
  auto t = PlanConv(cfg, g, epi);
  if (!t.ok()) return DoesNotFit(n, t.status());
  Placement p;
  p.node = n;
  p.kind = PlaceKind::kAccel;
  p.op = AccelOp::kBatchMatMul;
  p.geo = g;
  p.tiling = *t;
  p.epilogue = epi;
  p.products = groups;
  p.useful_macs = groups * m * k * cols;
  p.reason = fmt::format("{} products [{}, {}] x [{}, {}], second operand uploaded as weights{}; {}", groups, m, k, k,
                         cols, device.count(b) ? " (downloaded first)" : "", t->ToString());
  return p;
}

}  // namespace tessera::backend
