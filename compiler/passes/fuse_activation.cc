// fuse-activation: folds relu / clip into the conv, conv_transpose, gemm,
// matmul or float add that feeds it, as the clamp [act_min, act_max]
// (intersected with any clamp already fused).
//   before: %c = conv(%x, %w, %b)   %y = relu(%c)
//   after:  %y = conv(%x, %w, %b) {act_min=0}
#include <algorithm>
#include <cmath>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> FuseActivation(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* act : g.nodes()) {
    if (act->op() != "relu" && act->op() != "clip") continue;
    ir::Node* p = act->input(0)->producer();
    if (!p || !SingleNodeUse(g, p->output()) || p->output()->type().dtype != ir::DType::kF32) continue;
    const std::string& op = p->op();
    if (op != "conv" && op != "conv_transpose" && op != "gemm" && op != "matmul" && op != "add") continue;
    float lo = act->op() == "relu" ? 0.f : act->attrs().Float("min", -INFINITY);
    float hi = act->op() == "relu" ? INFINITY : act->attrs().Float("max", INFINITY);
    lo = std::max(lo, p->attrs().Float("act_min", -INFINITY));
    hi = std::min(hi, p->attrs().Float("act_max", INFINITY));
    if (!(lo <= hi)) continue;
    if (lo > -INFINITY) p->attrs().Set("act_min", lo);
    if (hi < INFINITY) p->attrs().Set("act_max", hi);
    Forward(g, act, act->output(), p->output());
    stats.Count("fused");
  }
  return stats;
}

}  // namespace tessera::passes
