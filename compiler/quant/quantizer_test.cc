#include "compiler/quant/quantizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_manager.h"

namespace tessera::quant {
namespace {

std::string RandomHex(int64_t floats, std::mt19937& rng, float scale) {
  std::normal_distribution<float> n(0.f, scale);
  std::string h;
  for (int64_t i = 0; i < floats; ++i) {
    float f = n(rng);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&f);
    for (int k = 0; k < 4; ++k) h += fmt::format("{:02x}", p[k]);
  }
  return h;
}

// conv-relu -> conv + residual add-relu -> max_pool -> global avg -> fc -> softmax.
std::unique_ptr<ir::Graph> SmallNet() {
  std::mt19937 rng(5);
  const std::string t =
      "graph @net(%x: f32[2,3,8,8]) {\n"
      "  %w1: f32[8,3,3,3] = const 0x" +
      RandomHex(8 * 27, rng, 0.3f) +
      "\n"
      "  %b1: f32[8] = const 0x" +
      RandomHex(8, rng, 0.1f) +
      "\n"
      "  %w2: f32[8,8,3,3] = const 0x" +
      RandomHex(8 * 72, rng, 0.15f) +
      "\n"
      "  %fc: f32[10,8] = const 0x" +
      RandomHex(80, rng, 0.5f) +
      "\n"
      "  %fb: f32[10] = const 0x" +
      RandomHex(10, rng, 0.1f) +
      "\n"
      "  %c1: f32[2,8,8,8] = conv(%x, %w1, %b1) {act_min=0, pads=[1, 1, 1, 1]}\n"
      "  %c2: f32[2,8,8,8] = conv(%c1, %w2) {pads=[1, 1, 1, 1]}\n"
      "  %s: f32[2,8,8,8] = add(%c2, %c1) {act_min=0}\n"
      "  %p: f32[2,8,4,4] = max_pool(%s) {kernel=[2, 2], strides=[2, 2]}\n"
      "  %g: f32[2,8,1,1] = global_avg_pool(%p)\n"
      "  %f: f32[2,8] = flatten(%g)\n"
      "  %l: f32[2,10] = gemm(%f, %fc, %fb) {trans_b=1}\n"
      "  %y: f32[2,10] = softmax(%l)\n"
      "  return %y, %l\n}\n";
  auto g = ir::ParseGraph(t);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::move(*g);
}

ir::Tensor Batch(int64_t n, std::mt19937& rng) {
  ir::Tensor t(ir::DType::kF32, {n, 3, 8, 8});
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

TEST(Quantizer, SmallNetBecomesInt8AndStaysClose) {
  auto g = SmallNet();
  auto ref = g->Clone();
  std::mt19937 rng(1);
  auto report = QuantizePostTraining(*g, Batch(16, rng));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->ToString(),
            "quantize: 7 int8 ops, 1 float ops (softmax 'y'); fold-qdq: 2 conv, 1 add, 1 max_pool, 1 global_avg_pool, "
            "1 flatten, 1 gemm");
  const std::string text = ir::PrintGraph(*g);
  EXPECT_NE(text.find("%x.q: i8[2,3,8,8]<s="), std::string::npos) << text;
  EXPECT_NE(text.find("= qconv(%x.q, %w1.q, %c1.bias_q) {act_min=0, multiplier=["), std::string::npos) << text;
  EXPECT_NE(text.find("%l: f32[2,10] = dequantize("), std::string::npos) << text;
  auto again = ir::ParseGraph(text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ir::PrintGraph(**again), text);
  // Compare logits on fresh data.
  ir::Tensor x = Batch(2, rng);
  auto fe = exec::Executor::Create(*ref);
  auto qe = exec::Executor::Create(*g);
  ASSERT_TRUE(fe.ok() && qe.ok());
  auto fo = (*fe)->Run({x});
  auto qo = (*qe)->Run({x});
  ASSERT_TRUE(fo.ok() && qo.ok());
  double num = 0, den = 0;
  for (int i = 0; i < 20; ++i) {
    const double a = (*fo)[1].data<float>()[i], b = (*qo)[1].data<float>()[i];
    num += (a - b) * (a - b);
    den += a * a;
  }
  EXPECT_LT(std::sqrt(num / den), 0.05) << "relative logit error";
}

TEST(Quantizer, WeightsArePerChannelSymmetric) {
  ir::Tensor w(ir::DType::kF32, {2, 3});
  const float v[6] = {0.5f, -1.f, 0.25f, 0.f, 0.f, 0.f};
  std::copy(v, v + 6, w.data<float>());
  std::vector<float> s;
  ir::Tensor q = QuantizeWeights(w, 0, &s);
  EXPECT_EQ(s, (std::vector<float>{1.f / 127, 1.f}));
  EXPECT_EQ(q.data<int8_t>()[0], 64);  // 63.5 rounds half to even
  EXPECT_EQ(q.data<int8_t>()[1], -127);
  EXPECT_EQ(q.data<int8_t>()[2], 32);  // 31.75
  ir::Tensor q1 = QuantizeWeights(w, 1, &s);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(q1.data<int8_t>()[1], -127);
}

TEST(Quantizer, PercentileIgnoresOutliers) {
  auto g = ir::ParseGraph("graph @g(%x: f32[1,1000]) {\n  %y: f32[1,1000] = relu(%x)\n  return %y\n}\n");
  ASSERT_TRUE(g.ok());
  ir::Tensor x(ir::DType::kF32, {4, 1000});
  for (int i = 0; i < 4000; ++i) x.data<float>()[i] = (i % 1000) / 1000.f;
  x.data<float>()[7] = 100.f;  // one outlier
  auto mm = Calibrate(**g, x);
  CalibrationOptions po;
  po.observer = Observer::kPercentile;
  po.percentile = 99.9;
  auto pc = Calibrate(**g, x, po);
  ASSERT_TRUE(mm.ok() && pc.ok());
  EXPECT_EQ(mm->at("x").abs_limit, 100.f);
  EXPECT_LT(pc->at("x").abs_limit, 1.1f);
  EXPECT_GT(pc->at("x").abs_limit, 0.9f);
}

TEST(Quantizer, CalibrationDataMustFitTheInput) {
  auto g = SmallNet();
  ir::Tensor bad(ir::DType::kF32, {3, 3, 8, 8});
  auto r = QuantizePostTraining(*g, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "calibration data [3,3,8,8] does not fit input 'x' [2,3,8,8]: it needs the same shape apart "
            "from a batch that is a multiple of 2");
}

// Issue 15, finding 8: one inf or NaN in the calibration data used to give
// scales of 1 silently (the digits CNN fell from 98.2% to 79.6%).
TEST(Quantizer, NonFiniteCalibrationDataIsRefused) {
  auto g = SmallNet();
  std::mt19937 rng(3);
  ir::Tensor x = Batch(4, rng);
  x.data<float>()[2 * 192 + 64 + 8 + 3] = INFINITY;  // batch 2, channel 1, row 1, column 3
  auto r = QuantizePostTraining(*g, x);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "calibration data: element [2,1,1,3] (flat index 459) is inf; the data must be finite");
  x.data<float>()[459] = 0.f;
  x.data<float>()[0] = NAN;
  EXPECT_EQ(CheckFinite(x, "c.npy").message(),
            "c.npy: element [0,0,0,0] (flat index 0) is nan; the data must be finite");
  x.data<float>()[0] = -INFINITY;
  EXPECT_EQ(Calibrate(*g, x).status().message(),
            "calibration data: element [0,0,0,0] (flat index 0) is -inf; the data must be finite");
  x.data<float>()[0] = 0.f;
  EXPECT_TRUE(Calibrate(*g, x).ok());
  // An activation that overflows on finite data is refused too, naming the value.
  auto big = ir::ParseGraph(
      "graph @g(%x: f32[1,2]) {\n  %y: f32[1,2] = mul(%x, %x)\n  %z: f32[1,2] = relu(%y)\n  return %z\n}\n");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  ir::Tensor bx(ir::DType::kF32, {1, 2});
  bx.data<float>()[0] = 1.f, bx.data<float>()[1] = 3e38f;
  auto br = Calibrate(**big, bx);
  ASSERT_FALSE(br.ok());
  EXPECT_EQ(br.status().message().rfind("calibration: value 'y'", 0), 0u) << br.status().message();
  EXPECT_NE(br.status().message().find("element [0,1] (flat index 1) is inf"), std::string::npos);
}

// Data movement that only copies elements runs on int8 with the input's
// scale (slice, expand, tile, nearest resize); a linear resize interpolates,
// so it stays float between dequantize and quantize.
TEST(Quantizer, CopyingMovementRunsOnInt8AndInterpolationStaysFloat) {
  auto g = ir::ParseGraph(
      "graph @g(%x: f32[1,2,4,4]) {\n"
      "  %r: f32[1,2,4,4] = relu(%x)\n"
      "  %s: f32[1,1,4,4] = slice(%r) {starts=[0, 1, 0, 0], ends=[1, 2, 4, 4], steps=[1, 1, 1, 1]}\n"
      "  %t: f32[1,2,4,4] = tile(%s) {repeats=[1, 2, 1, 1]}\n"
      "  %n: f32[1,2,8,8] = resize(%t) {sizes=[1, 2, 8, 8], mode=\"nearest\"}\n"
      "  %l: f32[1,2,16,16] = resize(%n) {sizes=[1, 2, 16, 16], mode=\"linear\"}\n"
      "  return %l\n}\n");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::mt19937 rng(7);
  ir::Tensor x(ir::DType::kF32, {4, 2, 4, 4});
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = d(rng);
  auto r = QuantizePostTraining(**g, x);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->float_ops.size(), 1u) << r->ToString();
  EXPECT_EQ(r->float_ops[0], "resize 'l'");
  for (const ir::Node* n : (*g)->nodes()) {
    if (n->op() == "slice" || n->op() == "tile" || (n->op() == "resize" && n->attrs().Str("mode") == "nearest")) {
      EXPECT_EQ(n->input(0)->type().dtype, ir::DType::kI8) << n->Describe();
    }
  }
}

// Attention's products of two activations (Q K^T, then P V per head) become
// qbatch_matmul with both operands symmetric int8; the softmax stays float,
// and the int8 graph stays close to the float one.
TEST(Quantizer, ActivationProductsBecomeQBatchMatMul) {
  const std::string text =
      "graph @g(%x: f32[1,2,4,8]) {\n"
      "  %t: f32[1,2,8,4] = transpose(%x) {perm=[0, 1, 3, 2]}\n"
      "  %s: f32[1,2,4,4] = matmul(%x, %t)\n"
      "  %p: f32[1,2,4,4] = softmax(%s) {axis=3}\n"
      "  %o: f32[1,2,4,8] = matmul(%p, %x)\n"
      "  return %o\n}\n";
  auto g = ir::ParseGraph(text);
  auto f = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok() && f.ok()) << g.status().ToString();
  std::mt19937 rng(11);
  std::normal_distribution<float> d(0.f, 1.f);
  ir::Tensor calib(ir::DType::kF32, {4, 2, 4, 8});
  for (int64_t i = 0; i < calib.numel(); ++i) calib.data<float>()[i] = d(rng);
  auto r = QuantizePostTraining(**g, calib);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->float_ops.size(), 1u) << r->ToString();
  EXPECT_EQ(r->float_ops[0], "softmax 'p'");
  int products = 0;
  for (const ir::Node* n : (*g)->nodes()) products += n->op() == "qbatch_matmul";
  EXPECT_EQ(products, 2) << ir::PrintGraph(**g);
  ir::Tensor x(ir::DType::kF32, {1, 2, 4, 8});
  std::copy(calib.data<float>(), calib.data<float>() + x.numel(), x.data<float>());
  auto qe = exec::Executor::Create(**g);
  auto fe = exec::Executor::Create(**f);
  ASSERT_TRUE(qe.ok() && fe.ok());
  auto qo = (*qe)->Run({x});
  auto fo = (*fe)->Run({x});
  ASSERT_TRUE(qo.ok() && fo.ok());
  float err = 0, top = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    err = std::max(err, std::fabs((*qo)[0].data<float>()[i] - (*fo)[0].data<float>()[i]));
    top = std::max(top, std::fabs((*fo)[0].data<float>()[i]));
  }
  EXPECT_LT(err, 0.05f * top);
}

// A dense block: every feature is an operand of each later concat, each
// newer feature with a larger range (before: a requantize of %p for %c1 and
// of %c1 for %c2 on the CPU). All of them and the concats share one scale (the largest), so the producers write
// it directly: no requantize is left, every concat reads int8 operands of
// the concat's own scale, and a batch_norm that did not fold runs as an
// int8 depthwise conv (batchnorm-to-conv) reading the concat.
TEST(Quantizer, DenseBlockConcatsShareOneScale) {
  std::mt19937 rng(3);
  const std::string t =
      "graph @g(%x: f32[1,16,4,4]) {\n  %w1: f32[16,16,1,1] = const 0x" + RandomHex(256, rng, 0.2f) +
      "\n  %w0: f32[16,16,1,1] = const 0x" + RandomHex(256, rng, 1.f) + "\n  %w2: f32[16,32,3,3] = const 0x" +
      RandomHex(16 * 32 * 9, rng, 0.5f) + "\n  %w3: f32[16,48,1,1] = const 0x" + RandomHex(16 * 48, rng, 0.5f) +
      "\n  %s: f32[48] = const 0x" + RandomHex(48, rng, 1.f) + "\n  %v: f32[48] = const 0x" + RandomHex(48, rng, 0.1f) +
      "\n"
      "  %a: f32[1,16,4,4] = conv(%x, %w1) {act_min=0}\n"
      "  %p: f32[1,16,4,4] = max_pool(%a) {kernel=[1, 1]}\n"
      "  %b: f32[1,16,4,4] = conv(%p, %w0)\n"
      "  %c1: f32[1,32,4,4] = concat(%p, %b) {axis=1}\n"
      "  %d: f32[1,16,4,4] = conv(%c1, %w2) {pads=[1, 1, 1, 1]}\n"
      "  %c2: f32[1,48,4,4] = concat(%c1, %d) {axis=1}\n"
      "  %n: f32[1,48,4,4] = batch_norm(%c2, %s, %v, %v, %q) {epsilon=1}\n"
      "  %r: f32[1,48,4,4] = relu(%n)\n"
      "  %e: f32[1,16,4,4] = conv(%r, %w3)\n"
      "  return %e\n}\n";
  std::string var = "  %q: f32[48] = const [";
  for (int i = 0; i < 48; ++i) var += i ? ", 0.5" : "0.5";
  auto g = ir::ParseGraph(t.substr(0, t.find("  %a:")) + var + "]\n" + t.substr(t.find("  %a:")));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto pr = passes::RunPasses(**g, passes::DefaultPipeline());
  ASSERT_TRUE(pr.ok()) << pr.status().ToString();
  ir::Tensor x(ir::DType::kF32, {4, 16, 4, 4});
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = d(rng);
  auto r = QuantizePostTraining(**g, x);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->float_ops.empty()) << r->ToString();
  int concats = 0, depthwise = 0;
  for (const ir::Node* n : (*g)->nodes()) {
    EXPECT_NE(n->op(), "requantize") << ir::PrintGraph(**g);
    depthwise += n->op() == "qconv" && n->attrs().Int("group", 1) == 48;
    if (n->op() != "concat") continue;
    ++concats;
    for (const ir::Value* in : n->inputs()) {
      ASSERT_EQ(in->type().dtype, ir::DType::kI8) << n->Describe();
      EXPECT_EQ(in->type().quant, n->output()->type().quant) << n->Describe();
    }
  }
  EXPECT_EQ(concats, 2) << ir::PrintGraph(**g);
  EXPECT_EQ(depthwise, 1) << ir::PrintGraph(**g);
}

}  // namespace
}  // namespace tessera::quant
