// constant-folding: evaluates nodes whose operands are all constants with the
// executor's kernels and replaces their results by constants of the same name
// (up to 16M elements each). dequantize is never folded: a dequantized
// constant marks quantized weights for fold-qdq.
//   before: %s: i64[2] = const [1, -1]   %t: f32[2,3] = transpose(%c) {perm=[1, 0]}
//   after:  %t: f32[2,3] = const [...]
#include "compiler/exec/kernel.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"

namespace tessera::passes {

StatusOr<PassStats> FoldConstants(ir::Graph& g) {
  constexpr int64_t kMaxElements = int64_t{1} << 24;
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    if (n->op() == "dequantize" || n->num_inputs() == 0) continue;
    bool all_const = true;
    int64_t elements = 0;
    for (ir::Value* in : n->inputs()) all_const &= in->is_constant();
    for (ir::Value* out : n->outputs()) elements += out->type().numel();
    if (!all_const || elements > kMaxElements) continue;
    TSR_ASSIGN_OR_RETURN(exec::KernelFn kernel, exec::MakeKernel(*n));
    exec::Operands operands;
    for (ir::Value* in : n->inputs()) operands.push_back(&in->data());
    std::vector<ir::Tensor> results;
    for (ir::Value* out : n->outputs()) results.emplace_back(out->type().dtype, out->type().shape);
    Status s = kernel(operands, results);
    if (!s.ok()) return s.WithContext(n->Describe());
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
