#include "compiler/passes/rewrite.h"

#include <cmath>

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

std::vector<float> BatchNormScale(const ir::Node& bn) {
  const float eps = bn.attrs().Float("epsilon", 1e-5f);
  const ir::Tensor &gamma = bn.input(1)->data(), &var = bn.input(4)->data();
  std::vector<float> a(static_cast<size_t>(gamma.numel()));
  for (size_t c = 0; c < a.size(); ++c) a[c] = gamma.data<float>()[c] / std::sqrt(var.data<float>()[c] + eps);
  return a;
}

}  // namespace tessera::passes
