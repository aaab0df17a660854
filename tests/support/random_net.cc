#include "tests/support/random_net.h"

#include <gtest/gtest.h>

#include "compiler/ir/ops.h"

namespace tessera::testing {

// Adds a node whose result is symmetric int8 at a fresh scale; the shape comes from type inference.
ir::Value* NetBuilder::Node(const std::string& op, const std::vector<ir::Value*>& in, ir::Attrs a) {
  const std::string name = op + std::to_string(++count_);
  ir::Node* n = g_->AddNode(op, in, {name}, std::move(a), name);
  std::vector<ir::TensorType> types = {ir::TensorType(ir::DType::kI8, {}, ir::QuantParams::PerTensor(Scale()))};
  if (op == "max_pool" || op == "flatten") types[0].quant = in[0]->type().quant;  // scale-preserving
  n->output()->set_type(types[0]);  // the declared result type; inference fills the shape
  Status s = ir::InferNodeTypes(*n, &types);
  EXPECT_TRUE(s.ok()) << s.ToString();
  n->output()->set_type(types[0]);
  return n->output();
}

std::vector<int64_t> NetBuilder::Multipliers(int64_t n) {
  std::vector<int64_t> m;
  for (int64_t i = 0; i < n; ++i) m.push_back(U(1 << 29, (int64_t{1} << 31) - 1));
  return m;
}

ir::Value* NetBuilder::Weights(ir::Shape shape) {
  ir::Tensor w(ir::DType::kI8, shape);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = static_cast<int8_t>(U(-127, 127));
  std::vector<float> scales(shape[0], 0.01f);
  return g_->AddConstant("w" + std::to_string(++count_), std::move(w), ir::QuantParams::PerAxis(0, scales));
}
ir::Value* NetBuilder::Bias(int64_t n) {
  ir::Tensor b(ir::DType::kI32, {n});
  for (int64_t i = 0; i < n; ++i) b.data<int32_t>()[i] = static_cast<int32_t>(U(-40000, 40000));
  return g_->AddConstant("b" + std::to_string(++count_), std::move(b));
}

ir::Value* NetBuilder::Conv(ir::Value* x, int64_t oc, int64_t k, int64_t s, int64_t p, int64_t groups, bool relu) {
  const int64_t ic = x->type().shape[1];
  ir::Attrs a;
  a.Set("strides", std::vector<int64_t>{s, s});
  a.Set("pads", std::vector<int64_t>{p, p, p, p});
  a.Set("group", groups);
  a.Set("multiplier", Multipliers(oc));
  a.Set("shift", U(38, 42));
  if (relu) a.Set("act_min", int64_t{0});
  return Node("qconv", {x, Weights({oc, ic / groups, k, k}), Bias(oc)}, std::move(a));
}

std::unique_ptr<ir::Graph> NetBuilder::Make(std::string* desc, NetChoices choices) {
  const int64_t most = choices.max_channels;  // 0: the generator's own ranges
  const int64_t n = U(1, 2), c = U(1, most ? most : 24), hw = U(5, most ? 8 : 14);
  ir::Value* x = g_->AddInput("x", ir::TensorType(ir::DType::kI8, {n, c, hw, hw}, ir::QuantParams::PerTensor(Scale())));
  const bool depthwise = choices.depthwise < 0 ? U(0, 3) == 0 : choices.depthwise == 1;
  const int64_t k = std::vector<int64_t>{1, 3, 5, 7}[U(0, 3)];
  const int64_t oc = depthwise ? c : U(1, most ? most : 40);
  ir::Value* y = Conv(x, oc, k, U(1, 2), U(0, k / 2), depthwise ? c : 1, U(0, 1));
  *desc = ir::TypeToString(x->type()) + " conv k" + std::to_string(k) + (depthwise ? " depthwise" : "");
  const bool with_max_pool = choices.max_pool < 0 ? U(0, 1) == 1 : choices.max_pool == 1;
  if (with_max_pool && y->type().shape[2] >= 3) {
    ir::Attrs a;
    a.Set("kernel", std::vector<int64_t>{2, 2});
    a.Set("strides", std::vector<int64_t>{U(1, 2), U(1, 2)});
    y = Node("max_pool", {y}, std::move(a));
    *desc += " max_pool";
  }
  ir::Value* branch = Conv(y, oc, 1, 1, 0, 1, false);
  ir::Attrs add;
  add.Set("multiplier", Multipliers(2));
  add.Set("shift", std::vector<int64_t>{U(10, 12), U(10, 12)});
  add.Set("post_shift", int64_t{20});
  add.Set("act_min", int64_t{0});
  y = Node("qadd", {y, branch}, std::move(add));
  ir::Attrs pool;
  pool.Set("kernel", std::vector<int64_t>{y->type().shape[2], y->type().shape[3]});
  pool.Set("multiplier", Multipliers(1));
  pool.Set("shift", U(34, 38));
  y = Node("qavg_pool", {y}, std::move(pool));
  ir::Attrs flat;
  flat.Set("axis", int64_t{1});
  y = Node("flatten", {y}, std::move(flat));
  const int64_t classes = U(1, most ? most : 30);
  ir::Attrs fc;
  fc.Set("multiplier", Multipliers(classes));
  fc.Set("shift", U(36, 40));
  y = Node("qmatmul", {y, Weights({classes, oc}), Bias(classes)}, std::move(fc));
  g_->SetOutputs({y});
  return std::move(g_);
}

}  // namespace tessera::testing
