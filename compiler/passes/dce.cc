// dce: removes nodes whose results nothing uses (not a graph output, no
// users), repeatedly from the end, then constants with no uses.
//   before: %a = relu(%x)   %b = sigmoid(%x)   return %a
//   after:  %a = relu(%x)                        return %a
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"

namespace tessera::passes {

StatusOr<PassStats> EliminateDeadCode(ir::Graph& g) {
  PassStats stats;
  std::vector<ir::Node*> nodes = g.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    bool used = false;
    for (ir::Value* out : (*it)->outputs()) used |= g.NumUses(out) > 0;
    if (used) continue;
    g.RemoveNode(*it);
    stats.Count("nodes removed");
  }
  for (ir::Value* c : g.constants())
    if (g.NumUses(c) == 0) {
      g.RemoveValue(c);
      stats.Count("constants removed");
    }
  return stats;
}

}  // namespace tessera::passes
