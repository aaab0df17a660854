// Whole models through the front half: torchvision ResNet-18 and MobileNetV2
// (random init, exported by torch) import, verify, print and parse back
// identically, and run in fp32 within 1e-4 of torch (relative to the largest
// output) and in int8; the digits CNN keeps its test accuracy within one point
// when quantized.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"

namespace tessera {
namespace {

std::string Model(const std::string& name, const std::string& file) {
  return std::string(TESSERA_MODELS_DIR) + "/" + name + "/" + file;
}

ir::Tensor Load(const std::string& path) {
  auto t = compiler::LoadNpyTensor(path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : ir::Tensor();
}

std::vector<ir::Tensor> Execute(const ir::Graph& g, const ir::Tensor& x) {
  auto ex = exec::Executor::Create(g);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  if (!ex.ok()) return {};
  auto out = (*ex)->Run({x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(*out) : std::vector<ir::Tensor>{};
}

void ExpectRoundTrip(const ir::Graph& g, const std::string& stage) {
  const std::string text = ir::PrintGraph(g);
  auto parsed = ir::ParseGraph(text, stage);
  ASSERT_TRUE(parsed.ok()) << stage << ": " << parsed.status().ToString();
  ASSERT_TRUE(ir::Verify(**parsed).ok()) << stage;
  EXPECT_TRUE(ir::PrintGraph(**parsed) == text) << stage << ": the text form does not round-trip";
}

// max |a - b| / max |b|
double RelError(const ir::Tensor& a, const ir::Tensor& b) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < b.numel(); ++i) {
    num = std::max(num, double(std::fabs(a.data<float>()[i] - b.data<float>()[i])));
    den = std::max(den, double(std::fabs(b.data<float>()[i])));
  }
  return num / den;
}

double Correlation(const ir::Tensor& a, const ir::Tensor& b) {
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    sa += x, sb += y, saa += x * x, sbb += y * y, sab += x * y;
  }
  return (n * sab - sa * sb) / std::sqrt((n * saa - sa * sa) * (n * sbb - sb * sb));
}

int64_t ArgMax(const ir::Tensor& t, int64_t row, int64_t cols) {
  const float* p = t.data<float>() + row * cols;
  return std::max_element(p, p + cols) - p;
}

class Torchvision : public ::testing::TestWithParam<std::string> {};

TEST_P(Torchvision, Fp32MatchesTorchAndRoundTrips) {
  const std::string m = GetParam();
  compiler::CompileOptions o;
  auto t0 = std::chrono::steady_clock::now();
  auto imported = compiler::LoadModel(Model(m, "model.onnx"));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  ExpectRoundTrip(**imported, m + " after import");
  // Every pass output verifies (RunPasses checks) and prints/parses back identically.
  for (const std::string& pass : o.passes) {
    auto r = passes::RunPasses(**imported, {pass});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::printf("%s: %s\n", m.c_str(), (*r)[0].ToString().c_str());
    if (m == "mobilenet_v2" || pass == o.passes.back()) ExpectRoundTrip(**imported, m + " after " + pass);
  }
  auto c = compiler::Compile(Model(m, "model.onnx"), o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::printf("%s: import + passes %.0f ms\n", m.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3);
  for (const auto& r : c->pass_reports) {
    if (r.pass == "fold-batchnorm") {
      EXPECT_EQ(r.stats.Summary(), m == "resnet18" ? "20 folded" : "52 folded");
    }
  }
  auto out = Execute(*c->graph, Load(Model(m, "input.npy")));
  ASSERT_EQ(out.size(), 1u);
  const ir::Tensor want = Load(Model(m, "torch_out.npy"));
  ASSERT_EQ(out[0].shape(), want.shape());
  const double err = RelError(out[0], want);
  std::printf("%s: fp32 vs torch: max |diff| / max |torch| = %.3g\n", m.c_str(), err);
  EXPECT_LE(err, 1e-4);
}

TEST_P(Torchvision, Int8RunsEveryLayerInInteger) {
  const std::string m = GetParam();
  const ir::Tensor calib = Load(Model(m, "calib.npy"));
  compiler::CompileOptions o;
  o.quantize = true;
  o.calibration = &calib;
  auto c = compiler::Compile(Model(m, "model.onnx"), o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::printf("%s: %s\n", m.c_str(), c->quant_report.ToString().c_str());
  EXPECT_TRUE(c->quant_report.float_ops.empty());
  ExpectRoundTrip(*c->graph, m + " after quantization");
  const ir::Tensor x = Load(Model(m, "input.npy"));
  auto q = Execute(*c->graph, x);
  auto f = Execute(*compiler::LoadModel(Model(m, "model.onnx")).value(), x);
  ASSERT_EQ(q.size(), 1u);
  const double corr = Correlation(q[0], f[0]);
  std::printf("%s: int8 vs fp32 logits correlation %.5f, top-1 %lld vs %lld\n", m.c_str(), corr,
              static_cast<long long>(ArgMax(q[0], 0, 1000)), static_cast<long long>(ArgMax(f[0], 0, 1000)));
  EXPECT_GT(corr, 0.99);
  EXPECT_EQ(ArgMax(q[0], 0, 1000), ArgMax(f[0], 0, 1000));
}

INSTANTIATE_TEST_SUITE_P(Models, Torchvision, ::testing::Values("resnet18", "mobilenet_v2"));

double Accuracy(const ir::Tensor& probs, const ir::Tensor& labels) {
  int64_t right = 0;
  for (int64_t i = 0; i < labels.numel(); ++i) right += ArgMax(probs, i, 10) == labels.data<int64_t>()[i];
  return double(right) / labels.numel();
}

TEST(Digits, Int8AccuracyWithinOnePointOfFp32) {
  const ir::Tensor x = Load(Model("digits", "test_x.npy")), y = Load(Model("digits", "test_y.npy"));
  const ir::Tensor calib = Load(Model("digits", "calib.npy"));
  compiler::CompileOptions o;
  o.import.input_shapes["x"] = x.shape();
  auto fp = compiler::Compile(Model("digits", "model.onnx"), o);
  ASSERT_TRUE(fp.ok()) << fp.status().ToString();
  o.quantize = true;
  o.calibration = &calib;
  auto q = compiler::Compile(Model("digits", "model.onnx"), o);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  const double a32 = Accuracy(Execute(*fp->graph, x)[0], y), a8 = Accuracy(Execute(*q->graph, x)[0], y);
  std::printf("digits CNN test split (%lld images): fp32 accuracy %.4f, int8 accuracy %.4f\n%s\n",
              static_cast<long long>(y.numel()), a32, a8, q->quant_report.ToString().c_str());
  EXPECT_GE(a32, 0.95);
  EXPECT_LE(std::fabs(a32 - a8), 0.01);
  // The percentile observer works on the same model too.
  o.calib.observer = quant::Observer::kPercentile;
  auto p = compiler::Compile(Model("digits", "model.onnx"), o);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const double ap = Accuracy(Execute(*p->graph, x)[0], y);
  std::printf("digits CNN int8 accuracy with the 99.99th-percentile observer: %.4f\n", ap);
  EXPECT_LE(std::fabs(a32 - ap), 0.02);
}

}  // namespace
}  // namespace tessera
