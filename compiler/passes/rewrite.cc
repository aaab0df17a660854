#include "compiler/passes/rewrite.h"

#include <algorithm>
#include <cmath>

#include "compiler/ir/tensor_index.h"
#include "compiler/quant/fixed_point.h"

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

ir::Node* AddSelectionConv(ir::Graph& g, ir::Value* x, const std::vector<int64_t>& idx, const ir::QuantParams& to,
                           const std::string& name, const std::string& layer, ir::Node* before) {
  const StatusOr<quant::FixedPoint> fp = quant::ChooseFixedPoint({double(x->type().quant->scale[0]) / to.scale[0]});
  if (!fp.ok()) return nullptr;
  const ir::Shape& s = x->type().shape;
  const int64_t c = s[1], k = static_cast<int64_t>(idx.size());
  ir::Tensor w(ir::DType::kI8, {k, c, 1, 1});  // zero-filled
  for (int64_t o = 0; o < k; ++o) w.data<int8_t>()[o * c + idx[static_cast<size_t>(o)]] = 1;
  ir::Attrs a = UnitConvAttrs(1);
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  ir::Value* wv = g.AddConstant(g.UniqueName(name + ".select"), std::move(w), ir::QuantParams::PerTensor(1.f));
  ir::Node* conv = g.AddNode("qconv", {x, wv}, {g.UniqueName(name + ".conv")}, std::move(a), layer, before);
  conv->output()->set_type(ir::TensorType(ir::DType::kI8, {s[0], k, s[2], s[3]}, to));
  return conv;
}

bool IsIdentitySelection(const ir::Node& n) {
  if (n.op() != "qconv" || n.num_inputs() != 2 || !n.input(1)->is_constant() || n.attrs().Int("group", 1) != 1 ||
      n.attrs().Ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} ||
      n.attrs().Ints("pads", {0, 0, 0, 0}) != std::vector<int64_t>{0, 0, 0, 0})
    return false;
  const ir::Tensor& w = n.input(1)->data();
  if (w.dtype() != ir::DType::kI8 || w.rank() != 4 || w.dim(0) != w.dim(1) || w.dim(2) != 1 || w.dim(3) != 1)
    return false;
  const int64_t c = w.dim(0);
  for (int64_t o = 0; o < c; ++o)
    for (int64_t i = 0; i < c; ++i)
      if (w.data<int8_t>()[o * c + i] != (o == i ? 1 : 0)) return false;
  // Its fixed point is the one its types' scales say (what AddSelectionConv
  // writes), so replacing it by that rescale changes no result.
  const ir::TensorType &x = n.input(0)->type(), &y = n.output()->type();
  if (!x.quant || !y.quant || x.quant->scale.size() != 1 || y.quant->scale.size() != 1) return false;
  const StatusOr<quant::FixedPoint> fp = quant::ChooseFixedPoint({double(x.quant->scale[0]) / y.quant->scale[0]});
  if (!fp.ok() || n.attrs().Int("shift", 0) != fp->shift) return false;
  const std::vector<int64_t> m = n.attrs().Ints("multiplier");
  return !m.empty() && std::all_of(m.begin(), m.end(), [&](int64_t v) { return v == fp->multiplier[0]; });
}

}  // namespace tessera::passes
