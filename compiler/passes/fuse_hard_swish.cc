// fuse-hard-swish: x * hard_sigmoid(x) with alpha = 1/6, beta = 1/2 (how
// torch exports Hardswish below opset 14) becomes one hard_swish, so the
// int8 graph runs one element-wise ALU program instead of a gate and a product.
//   before: %g = hard_sigmoid(%x) {alpha=0.166666672, beta=0.5}   %y = mul(%x, %g)
//   after:  %y = hard_swish(%x)
#include <cmath>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> FuseHardSwish(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* mul : g.nodes()) {
    if (mul->op() != "mul" || mul->output()->type().dtype != ir::DType::kF32) continue;
    for (int k = 0; k < 2; ++k) {
      ir::Node* gate = mul->input(k)->producer();
      ir::Value* x = mul->input(1 - k);
      if (!gate || gate->op() != "hard_sigmoid" || gate->input(0) != x || !SingleNodeUse(g, gate->output()) ||
          x->type().shape != mul->output()->type().shape)
        continue;
      if (std::fabs(gate->attrs().Float("alpha", 0.2f) - 1.f / 6) > 1e-6f || gate->attrs().Float("beta", 0.5f) != 0.5f)
        continue;
      const std::string name = mul->output()->name();
      ir::Node* hs = g.AddNode("hard_swish", {x}, {g.UniqueName(name + ".hs")}, {}, mul->name(), mul);
      hs->output()->set_type(mul->output()->type());
      Forward(g, mul, mul->output(), hs->output());
      g.RemoveNode(gate);
      if (!g.FindValue(name)) g.Rename(hs->output(), name);
      stats.Count("fused");
      break;
    }
  }
  return stats;
}

}  // namespace tessera::passes
