// Random int8 networks built in the graph IR — convolution (any kernel size,
// stride, padding, odd channel counts, or depthwise), optional max pool, a
// residual add with a 1x1 branch, global average pool, flatten, dense —
// compiled for every bundled config and run on `sim`, bit-exact against the
// int8 CPU reference executor (the golden model) on the same graph.
#include <gtest/gtest.h>

#include <random>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

class NetBuilder {
 public:
  explicit NetBuilder(uint64_t seed) : rng_(seed), g_(std::make_unique<ir::Graph>("random")) {}

  int64_t U(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  float Scale() { return std::uniform_real_distribution<float>(0.01f, 0.2f)(rng_); }

  // Adds a node whose result is symmetric int8 at a fresh scale; the shape comes from type inference.
  ir::Value* Node(const std::string& op, const std::vector<ir::Value*>& in, ir::Attrs a) {
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

  std::vector<int64_t> Multipliers(int64_t n) {
    std::vector<int64_t> m;
    for (int64_t i = 0; i < n; ++i) m.push_back(U(1 << 29, (int64_t{1} << 31) - 1));
    return m;
  }

  ir::Value* Weights(ir::Shape shape) {
    ir::Tensor w(ir::DType::kI8, shape);
    for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = static_cast<int8_t>(U(-127, 127));
    std::vector<float> scales(shape[0], 0.01f);
    return g_->AddConstant("w" + std::to_string(++count_), std::move(w), ir::QuantParams::PerAxis(0, scales));
  }
  ir::Value* Bias(int64_t n) {
    ir::Tensor b(ir::DType::kI32, {n});
    for (int64_t i = 0; i < n; ++i) b.data<int32_t>()[i] = static_cast<int32_t>(U(-40000, 40000));
    return g_->AddConstant("b" + std::to_string(++count_), std::move(b));
  }

  ir::Value* Conv(ir::Value* x, int64_t oc, int64_t k, int64_t s, int64_t p, int64_t groups, bool relu) {
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

  std::unique_ptr<ir::Graph> Make(std::string* desc) {
    const int64_t n = U(1, 2), c = U(1, 24), hw = U(5, 14);
    ir::Value* x =
        g_->AddInput("x", ir::TensorType(ir::DType::kI8, {n, c, hw, hw}, ir::QuantParams::PerTensor(Scale())));
    const bool depthwise = U(0, 3) == 0;
    const int64_t k = std::vector<int64_t>{1, 3, 5, 7}[U(0, 3)];
    const int64_t oc = depthwise ? c : U(1, 40);
    ir::Value* y = Conv(x, oc, k, U(1, 2), U(0, k / 2), depthwise ? c : 1, U(0, 1));
    *desc = ir::TypeToString(x->type()) + " conv k" + std::to_string(k) + (depthwise ? " depthwise" : "");
    if (U(0, 1) && y->type().shape[2] >= 3) {
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
    const int64_t classes = U(1, 30);
    ir::Attrs fc;
    fc.Set("multiplier", Multipliers(classes));
    fc.Set("shift", U(36, 40));
    y = Node("qmatmul", {y, Weights({classes, oc}), Bias(classes)}, std::move(fc));
    g_->SetOutputs({y});
    return std::move(g_);
  }

 private:
  std::mt19937_64 rng_;
  std::unique_ptr<ir::Graph> g_;
  int count_ = 0;
};

class BackendVsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendVsCpu, RandomNetworksAreBitExactOnSim) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  for (uint64_t seed = 0; seed < 12; ++seed) {
    NetBuilder b(seed * 7919 + cfg.block_in);
    std::string desc;
    std::unique_ptr<ir::Graph> g = b.Make(&desc);
    ASSERT_TRUE(ir::Verify(*g).ok()) << ir::Verify(*g).ToString() << "\n" << ir::PrintGraph(*g);
    auto model = CompileGraph(*g, cfg);
    ASSERT_TRUE(model.ok()) << desc << ": " << model.status().ToString();
    int accel = 0;
    for (const tsr::Step& s : (*model)->steps()) accel += s.kind() == tsr::Step::ACCEL;
    EXPECT_EQ(accel, static_cast<int>(g->num_nodes()) - 1) << desc << ": every layer but flatten on the accelerator";
    RunnerOptions ro;
    ro.target = "sim";
    auto runner = ModelRunner::Create(**model, ro);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    auto golden = exec::Executor::Create(*g);
    ASSERT_TRUE(golden.ok());
    ir::Tensor x(ir::DType::kI8, g->inputs()[0]->type().shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(b.U(-128, 127));
    auto got = (*runner)->Run({x});
    auto want = (*golden)->Run({x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_TRUE((*got)[0].BytesEqual((*want)[0])) << GetParam() << " seed " << seed << ": " << desc << "\n"
                                                  << ir::PrintGraph(*g);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, BackendVsCpu, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         [](const auto& info) {
                           std::string n = info.param.substr(info.param.rfind('/') + 1);
                           n = n.substr(0, n.find('.'));
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace tessera::backend
