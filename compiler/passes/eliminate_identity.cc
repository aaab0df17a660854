// eliminate-identity: removes ops that do not change their operand: identity,
// reshape/flatten/squeeze/unsqueeze to the same shape, transpose by the
// identity permutation, pad by zero. Uses are redirected to the operand.
//   before: %y: f32[2,3] = identity(%x)   %z = relu(%y)
//   after:  %z = relu(%x)
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {
namespace {

bool IsNoOp(const ir::Node& n) {
  const std::string& op = n.op();
  if (n.num_inputs() != 1 || n.num_outputs() != 1) return false;
  if (n.input(0)->type() != n.output(0)->type()) return false;
  if (op == "identity" || op == "reshape" || op == "flatten" || op == "squeeze" || op == "unsqueeze") return true;
  if (op == "transpose") {
    auto perm = n.attrs().Ints("perm");
    for (size_t i = 0; i < perm.size(); ++i)
      if (perm[i] != static_cast<int64_t>(i)) return false;
    return true;
  }
  if (op == "pad") {
    for (int64_t p : n.attrs().Ints("pads"))
      if (p != 0) return false;
    return true;
  }
  return false;
}

}  // namespace

StatusOr<PassStats> EliminateIdentity(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    if (!IsNoOp(*n)) continue;
    ir::Value* in = n->input(0);
    ir::Value* out = n->output(0);
    // A graph output that is also a graph input or listed twice stays an op
    // result, so the graph keeps distinct outputs.
    if (g.IsOutput(out) && (in->is_input() || g.IsOutput(in))) continue;
    Forward(g, n, out, in);
    stats.Count("removed");
  }
  return stats;
}

}  // namespace tessera::passes
