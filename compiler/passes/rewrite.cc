#include "compiler/passes/rewrite.h"

#include <cmath>

#include "compiler/ir/tensor_index.h"

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

std::optional<std::vector<int64_t>> ChannelIndices(const ir::Node& n, ir::DType dtype) {
  if (n.op() != "gather" || n.input(0)->type().dtype != dtype || n.input(0)->type().rank() != 4 ||
      !n.input(1)->is_constant() || n.input(1)->type().rank() != 1)
    return std::nullopt;
  const int64_t axis = n.attrs().Int("axis", 0);
  if (axis != 1 && axis != -3) return std::nullopt;
  const ir::Tensor& t = n.input(1)->data();
  const int64_t c = n.input(0)->type().shape[1];
  std::vector<int64_t> idx(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t v = ir::IndexAt(t, static_cast<int64_t>(k));
    if (v < 0) v += c;
    if (v < 0 || v >= c) return std::nullopt;
    idx[k] = v;
  }
  return idx;
}

ir::Attrs UnitConvAttrs(int64_t group) {
  ir::Attrs a;
  a.Set("strides", std::vector<int64_t>{1, 1});
  a.Set("pads", std::vector<int64_t>{0, 0, 0, 0});
  a.Set("dilations", std::vector<int64_t>{1, 1});
  a.Set("group", group);
  return a;
}

}  // namespace tessera::passes
