#include "compiler/passes/rewrite.h"

namespace tessera::passes {

void Forward(ir::Graph& g, ir::Node* dead, ir::Value* from, ir::Value* to) {
  const bool was_output = g.IsOutput(from);
  const std::string name = from->name();
  const bool rename = was_output && to->producer() != nullptr && !g.IsOutput(to);
  g.ReplaceAllUsesWith(from, to);
  g.RemoveNode(dead);
  if (rename) g.Rename(to, name);
}

bool SingleNodeUse(const ir::Graph& g, const ir::Value* v) { return v->users().size() == 1 && !g.IsOutput(v); }

ir::Node* OnlyUser(const ir::Graph& g, const ir::Value* v) { return SingleNodeUse(g, v) ? v->users()[0] : nullptr; }

}  // namespace tessera::passes
