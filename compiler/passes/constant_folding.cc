// constant-folding: evaluates nodes whose operands are all constants with the
// executor's kernels and replaces their results by constants of the same name
// (up to 16M elements; exec::EvaluateConstantNode). dequantize is never folded: a dequantized
// constant marks quantized weights for fold-qdq.
//   before: %s: i64[2] = const [1, -1]   %t: f32[2,3] = transpose(%c) {perm=[1, 0]}
//   after:  %t: f32[2,3] = const [...]
#include "compiler/exec/kernel.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"

namespace tessera::passes {

StatusOr<PassStats> FoldConstants(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    StatusOr<std::optional<std::vector<ir::Tensor>>> folded = exec::EvaluateConstantNode(*n);
    if (!folded.ok()) return folded.status().WithContext(n->Describe());
    if (!folded->has_value()) continue;
    std::vector<ir::Tensor>& results = **folded;
    std::vector<ir::Value*> outs = n->outputs();
    std::vector<ir::Value*> consts;
    for (size_t i = 0; i < outs.size(); ++i) {
      consts.push_back(
          g.AddConstant(g.UniqueName(outs[i]->name() + ".folded"), std::move(results[i]), outs[i]->type().quant));
      g.ReplaceAllUsesWith(outs[i], consts.back());
    }
    std::vector<std::string> names;
    for (ir::Value* o : outs) names.push_back(o->name());
    g.RemoveNode(n);
    for (size_t i = 0; i < consts.size(); ++i) g.Rename(consts[i], names[i]);
    stats.Count("folded");
  }
  return stats;
}

}  // namespace tessera::passes
