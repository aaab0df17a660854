// Passes preserve what the graph computes: each test runs a graph on the
// executor before and after the passes and compares, and checks the counts.
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/passes/pass_manager.h"

namespace tessera::passes {
namespace {

std::string Hex(int64_t bytes, std::mt19937& rng, bool small_floats = true) {
  // Random float32 values in [-1, 1) (or positive for variances) as hex bytes.
  std::string h;
  std::uniform_real_distribution<float> u(small_floats ? -1.f : 0.5f, small_floats ? 1.f : 2.f);
  for (int64_t i = 0; i < bytes / 4; ++i) {
    float f = u(rng);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&f);
    for (int k = 0; k < 4; ++k) h += fmt::format("{:02x}", p[k]);
  }
  return h;
}

std::vector<ir::Tensor> Execute(const ir::Graph& g, const ir::Tensor& x) {
  auto ex = exec::Executor::Create(g);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  auto out = (*ex)->Run({x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return std::move(*out);
}

float MaxDiff(const ir::Tensor& a, const ir::Tensor& b) {
  float d = 0;
  for (int64_t i = 0; i < a.numel(); ++i) d = std::max(d, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  return d;
}

TEST(Passes, FloatPipelinePreservesResults) {
  std::mt19937 rng(1);
  const std::string text =
      "graph @g(%x: f32[1,3,6,6]) {\n"
      "  %w: f32[4,3,3,3] = const 0x" +
      Hex(4 * 27 * 4, rng) +
      "\n"
      "  %g: f32[4] = const 0x" +
      Hex(16, rng) +
      "\n"
      "  %b: f32[4] = const 0x" +
      Hex(16, rng) +
      "\n"
      "  %m: f32[4] = const 0x" +
      Hex(16, rng) +
      "\n"
      "  %v: f32[4] = const 0x" +
      Hex(16, rng, false) +
      "\n"
      "  %k: f32[1,4,1,1] = const 0x" +
      Hex(16, rng) +
      "\n"
      "  %fc: f32[64,5] = const 0x" +
      Hex(64 * 5 * 4, rng) +
      "\n"
      "  %fb: f32[5] = const 0x" +
      Hex(20, rng) +
      "\n"
      "  %c: f32[1,4,4,4] = conv(%x, %w)\n"
      "  %n: f32[1,4,4,4] = batch_norm(%c, %g, %b, %m, %v) {epsilon=0.001}\n"
      "  %a: f32[1,4,4,4] = add(%n, %k)\n"
      "  %r: f32[1,4,4,4] = relu(%a)\n"
      "  %i: f32[1,4,4,4] = identity(%r)\n"
      "  %f: f32[1,64] = flatten(%i)\n"
      "  %mm: f32[1,5] = matmul(%f, %fc)\n"
      "  %mb: f32[1,5] = add(%mm, %fb)\n"
      "  %y: f32[1,5] = clip(%mb) {max=0.5, min=-0.25}\n"
      "  return %y\n}\n";
  auto g = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ir::Tensor x(ir::DType::kF32, {1, 3, 6, 6});
  for (int i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(0.3f * i);
  auto before = Execute(**g, x);
  auto reports = RunPasses(**g, DefaultPipeline());
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  std::string summary;
  for (const auto& r : *reports) summary += r.ToString() + "\n";
  EXPECT_EQ(summary,
            "eliminate-identity: 1 removed\nconstant-folding: no change\nfold-batchnorm: 1 folded\nbatchnorm-to-conv: "
            "no change\n"
            "fuse-bias: 2 fused\nfuse-activation: 2 fused\nfold-channel-shuffle: no change\nhoist-rnn-input: no "
            "change\nconv-transpose-to-conv: no "
            "change\nfuse-hard-swish: no "
            "change\nfold-qdq: no change\nfold-channel-shuffle: no change\nchannel-gather-to-conv: no change\n"
            "fold-requantize: no change\ndce: 8 "
            "constants removed\n");
  const std::string after_text = ir::PrintGraph(**g);
  EXPECT_NE(after_text.find("= conv(%x, %w.bn, %k.bias) {act_min=0}"), std::string::npos) << after_text;
  EXPECT_NE(after_text.find("%y: f32[1,5] = matmul(%f, %fc, %fb.bias) {act_max=0.5, act_min=-0.25}"), std::string::npos)
      << after_text;
  auto after = Execute(**g, x);
  EXPECT_LT(MaxDiff(before[0], after[0]), 1e-5);
  // Round trip of the pass output.
  auto again = ir::ParseGraph(after_text);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ir::PrintGraph(**again), after_text);
}

// hoist-rnn-input moves x W^T of lstm / gru (bidirectional) / rnn (reverse)
// into one matmul per layer; every result of the layers stays the same.
TEST(Passes, HoistRnnInputPreservesResults) {
  std::mt19937 rng(3);
  auto c = [&](const std::string& name, const std::string& shape, int64_t n) {
    return "  %" + name + ": f32" + shape + " = const 0x" + Hex(4 * n, rng) + "\n";
  };
  const std::string text =
      "graph @g(%x: f32[5,2,3]) {\n" + c("lw", "[1,16,3]", 48) + c("lr", "[1,16,4]", 64) + c("lb", "[1,32]", 32) +
      c("lh0", "[1,2,4]", 8) + c("lc0", "[1,2,4]", 8) + c("gw", "[2,12,3]", 72) + c("gr", "[2,12,4]", 96) +
      c("gb", "[2,24]", 48) + c("gh0", "[2,2,4]", 16) + c("rw", "[1,4,3]", 12) + c("rr", "[1,4,4]", 16) +
      c("rb", "[1,8]", 8) + c("rh0", "[1,2,4]", 8) +
      "  %ly: f32[5,1,2,4], %lh: f32[1,2,4], %lc: f32[1,2,4] = lstm(%x, %lw, %lr, %lb, %lh0, %lc0) {hidden_size=4}\n"
      "  %gy: f32[5,2,2,4], %gh: f32[2,2,4] = gru(%x, %gw, %gr, %gb, %gh0) {direction=\"bidirectional\", "
      "hidden_size=4}\n"
      "  %ry: f32[5,1,2,4], %rh: f32[1,2,4] = rnn(%x, %rw, %rr, %rb, %rh0) {direction=\"reverse\", hidden_size=4}\n"
      "  return %ly, %lh, %lc, %gy, %gh, %ry, %rh\n}\n";
  auto g = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ir::Tensor x(ir::DType::kF32, {5, 2, 3});
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
  const auto before = Execute(**g, x);
  auto r = RunPasses(**g, {"hoist-rnn-input"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].stats.Summary(), "3 hoisted");
  int matmuls = 0;
  for (const ir::Node* n : (**g).nodes()) matmuls += n->op() == "matmul";
  EXPECT_EQ(matmuls, 3) << ir::PrintGraph(**g);
  const auto after = Execute(**g, x);
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_LT(MaxDiff(before[i], after[i]), 1e-5f) << "result " << i;
}

// conv-transpose-to-conv: random conv_transposes (kernels 1..5, strides 1..3
// and begin/end padding per axis, output_padding, bias or none, a fused clamp)
// compute the same as one conv over the stride phases + pixel shuffle + crop;
// a grouped one is left alone. fold-batchnorm folds a batch_norm after a
// (grouped) conv_transpose exactly.
TEST(Passes, ConvTransposeToConvPreservesResults) {
  std::mt19937 rng(13);
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int rewritten = 0, cropped = 0;
  for (int i = 0; i < 80; ++i) {
    const int64_t C = U(1, 3), M = U(1, 3), H = U(1, 5), W = U(1, 5);
    int64_t k[2], s[2], pb[2], pe[2], op[2], o[2];
    for (int a = 0; a < 2; ++a) {
      k[a] = U(1, 5), s[a] = U(1, 3), pb[a] = U(0, k[a] - 1), pe[a] = U(0, k[a] - 1), op[a] = U(0, s[a] - 1);
      o[a] = s[a] * ((a ? W : H) - 1) + op[a] + k[a] - pb[a] - pe[a];
    }
    if (o[0] < 1 || o[1] < 1) continue;
    const bool bias = i % 3 != 0, clamp = i % 4 == 1;
    const std::string text = fmt::format(
        "graph @g(%x: f32[1,{},{},{}]) {{\n  %w: f32[{},{},{},{}] = const 0x{}\n{}"
        "  %y: f32[1,{},{},{}] = conv_transpose(%x, %w{}) {{{}output_padding=[{}, {}], pads=[{}, {}, {}, {}], "
        "strides=[{}, {}]}}\n  return %y\n}}\n",
        C, H, W, C, M, k[0], k[1], Hex(4 * C * M * k[0] * k[1], rng),
        bias ? fmt::format("  %b: f32[{}] = const 0x{}\n", M, Hex(4 * M, rng)) : "", M, o[0], o[1], bias ? ", %b" : "",
        clamp ? "act_max=0.5, act_min=-0.25, " : "", op[0], op[1], pb[0], pb[1], pe[0], pe[1], s[0], s[1]);
    auto g = ir::ParseGraph(text);
    ASSERT_TRUE(g.ok()) << g.status().ToString() << "\n" << text;
    ir::Tensor x(ir::DType::kF32, {1, C, H, W});
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int64_t e = 0; e < x.numel(); ++e) x.data<float>()[e] = u(rng);
    const auto before = Execute(**g, x);
    auto r = RunPasses(**g, {"conv-transpose-to-conv", "dce"});
    ASSERT_TRUE(r.ok()) << r.status().ToString() << "\n" << text;
    ASSERT_EQ((*r)[0].stats.Summary(), "1 rewritten") << text;
    const std::string after_text = ir::PrintGraph(**g);
    EXPECT_EQ(after_text.find("conv_transpose"), std::string::npos) << after_text;
    cropped += after_text.find("= slice(") != std::string::npos;
    const auto after = Execute(**g, x);
    ASSERT_EQ(before[0].shape(), after[0].shape()) << text;
    EXPECT_LT(MaxDiff(before[0], after[0]), 1e-5f) << text << "\n" << after_text;
    ++rewritten;
  }
  EXPECT_GT(rewritten, 60);
  EXPECT_GT(cropped, 30);

  std::string text = "graph @g(%x: f32[1,4,3,3]) {\n  %w: f32[4,3,3,3] = const 0x" + Hex(4 * 4 * 3 * 9, rng) +
                     "\n  %m: f32[6] = const 0x" + Hex(24, rng) + "\n  %v: f32[6] = const 0x" + Hex(24, rng, false) +
                     "\n  %c: f32[1,6,5,5] = conv_transpose(%x, %w) {group=2, pads=[1, 1, 1, 1], strides=[2, 2]}\n"
                     "  %y: f32[1,6,5,5] = batch_norm(%c, %v, %m, %m, %v)\n  return %y\n}\n";
  auto g = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ir::Tensor x(ir::DType::kF32, {1, 4, 3, 3});
  for (int64_t e = 0; e < x.numel(); ++e) x.data<float>()[e] = std::sin(0.7f * e);
  const auto before = Execute(**g, x);
  auto r = RunPasses(**g, {"fold-batchnorm", "conv-transpose-to-conv"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].ToString(), "fold-batchnorm: 1 folded");
  EXPECT_EQ((*r)[1].ToString(), "conv-transpose-to-conv: no change");  // grouped
  EXPECT_LT(MaxDiff(before[0], Execute(**g, x)[0]), 1e-5f) << ir::PrintGraph(**g);
}

TEST(Passes, ConstantFoldingEvaluatesConstantSubgraphs) {
  auto g = ir::ParseGraph(R"(graph @g(%x: f32[2,3]) {
  %c: f32[3,2] = const [1, 2, 3, 4, 5, 6]
  %t: f32[2,3] = transpose(%c) {perm=[1, 0]}
  %u: f32[2,3] = relu(%t)
  %y: f32[2,3] = add(%x, %u)
  return %y
})");
  ASSERT_TRUE(g.ok());
  auto r = RunPasses(**g, {"constant-folding", "dce"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].ToString(), "constant-folding: 2 folded");
  EXPECT_EQ(ir::PrintGraph(**g),
            "graph @g(%x: f32[2,3]) {\n  %u: f32[2,3] = const [1, 3, 5, 2, 4, 6]\n"
            "  %y: f32[2,3] = add(%x, %u)\n  return %y\n}\n");
}

TEST(Passes, UnknownPassesAreNamed) {
  auto r = ParsePassList("dce,frobnicate");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().substr(0, 28), "unknown pass 'frobnicate' (k");
  auto ok = ParsePassList("dce,,fold-qdq");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 2u);
}

// A QDQ graph computed in float (fake quantization) against its folded int8
// form: equal up to the requantization rounding difference.
TEST(Passes, FoldQdqMatchesFakeQuantization) {
  std::mt19937 rng(9);
  std::string w;
  std::uniform_int_distribution<int> u(-127, 127);
  for (int i = 0; i < 8 * 4 * 9; ++i) w += fmt::format("{:02x}", static_cast<uint8_t>(u(rng)));
  std::string fcw;
  for (int i = 0; i < 8 * 3; ++i) fcw += fmt::format("{:02x}", static_cast<uint8_t>(u(rng)));
  const std::string text =
      "graph @g(%x: f32[1,4,6,6]) {\n"
      "  %wq: i8[8,4,3,3]<axis=0, s=[0.01, 0.02, 0.015, 0.01, 0.03, 0.02, 0.01, 0.005]> = const 0x" +
      w +
      "\n"
      "  %bias: f32[8] = const [0.1, -0.2, 0.3, 0, 0.05, -0.05, 0.2, 0.01]\n"
      "  %fq: i8[8,3]<axis=1, s=[0.02, 0.01, 0.03]> = const 0x" +
      fcw +
      "\n"
      "  %xq: i8[1,4,6,6]<s=0.02> = quantize(%x)\n"
      "  %xd: f32[1,4,6,6] = dequantize(%xq)\n"
      "  %wd: f32[8,4,3,3] = dequantize(%wq)\n"
      "  %c: f32[1,8,6,6] = conv(%xd, %wd, %bias) {act_min=0, pads=[1, 1, 1, 1]}\n"
      "  %cq: i8[1,8,6,6]<s=0.05> = quantize(%c)\n"
      "  %cd: f32[1,8,6,6] = dequantize(%cq)\n"
      "  %s: f32[1,8,6,6] = add(%cd, %cd) {act_max=5}\n"
      "  %sq: i8[1,8,6,6]<s=0.04> = quantize(%s)\n"
      "  %sd: f32[1,8,6,6] = dequantize(%sq)\n"
      "  %p: f32[1,8,3,3] = max_pool(%sd) {kernel=[2, 2], strides=[2, 2]}\n"
      "  %pq: i8[1,8,3,3]<s=0.04> = quantize(%p)\n"
      "  %pd: f32[1,8,3,3] = dequantize(%pq)\n"
      "  %gp: f32[1,8,1,1] = global_avg_pool(%pd)\n"
      "  %gq: i8[1,8,1,1]<s=0.03> = quantize(%gp)\n"
      "  %gd: f32[1,8,1,1] = dequantize(%gq)\n"
      "  %f: f32[1,8] = flatten(%gd)\n"
      "  %fq8: i8[1,8]<s=0.03> = quantize(%f)\n"
      "  %fd: f32[1,8] = dequantize(%fq8)\n"
      "  %fw: f32[8,3] = dequantize(%fq)\n"
      "  %m: f32[1,3] = matmul(%fd, %fw)\n"
      "  %mq: i8[1,3]<s=0.01> = quantize(%m)\n"
      "  %y: f32[1,3] = dequantize(%mq)\n"
      "  return %y, %sd\n}\n";
  auto g = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ir::Tensor x(ir::DType::kF32, {1, 4, 6, 6});
  for (int i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(0.7f * i) * 2;
  auto fake = Execute(**g, x);
  auto r = RunPasses(**g, {"fold-qdq", "dce"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].ToString(), "fold-qdq: 1 conv, 1 add, 1 max_pool, 1 global_avg_pool, 1 flatten, 1 matmul");
  const std::string out = ir::PrintGraph(**g);
  for (const char* op : {"= qconv(", "= qadd(", "= max_pool(%sq)", "= qavg_pool(", "= flatten(", "= qmatmul("})
    EXPECT_NE(out.find(op), std::string::npos) << op << "\n" << out;
  EXPECT_EQ(out.find("= conv("), std::string::npos) << out;
  auto folded = Execute(**g, x);
  // Each int8 layer may differ from fake quantization by one step of its scale.
  EXPECT_LE(MaxDiff(fake[1], folded[1]), 0.04f * 2 + 1e-6) << out;
  EXPECT_LE(MaxDiff(fake[0], folded[0]), 0.01f * 3 + 1e-6);
  auto again = ir::ParseGraph(out);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ir::PrintGraph(**again), out);
}

// fold-channel-shuffle and channel-gather-to-conv change no result: the float
// graph computes the same after the shuffles and slices fold into its convs
// (any number of groups), and the int8 0/1 selection qconv equals the int8
// gather it replaces bit for bit (zero points, -128, repeated and negative
// indices included).
std::string Floats(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += (i ? ", " : "") + fmt::format("{}", u(rng));
  return "[" + s + "]";
}

// A shuffle of 12 channels in `groups` groups of %in, its halves (%a, %b),
// a 1x1 conv on %b, a concat, and a depthwise 3x3 + 1x1 conv on the shuffle.
std::string ShuffleGraph(int groups, std::mt19937& rng) {
  const int k = 12 / groups;
  return fmt::format(
      "graph @g(%x: f32[1,12,5,5]) {{\n"
      "  %w: f32[6,6,1,1] = const {}\n"
      "  %dw: f32[12,1,3,3] = const {}\n"
      "  %db: f32[12] = const {}\n"
      "  %pw: f32[4,12,1,1] = const {}\n"
      "  %r: f32[1,{},{},5,5] = reshape(%x) {{shape=[1, {}, {}, 5, 5]}}\n"
      "  %t: f32[1,{},{},5,5] = transpose(%r) {{perm=[0, 2, 1, 3, 4]}}\n"
      "  %s: f32[1,12,5,5] = reshape(%t) {{shape=[1, 12, 5, 5]}}\n"
      "  %a: f32[1,6,5,5] = slice(%s) {{ends=[1, 6, 5, 5], starts=[0, 0, 0, 0], steps=[1, 1, 1, 1]}}\n"
      "  %b: f32[1,6,5,5] = slice(%s) {{ends=[1, 12, 5, 5], starts=[0, 6, 0, 0], steps=[1, 1, 1, 1]}}\n"
      "  %y: f32[1,6,5,5] = conv(%b, %w) {{act_min=0}}\n"
      "  %cat: f32[1,12,5,5] = concat(%a, %y) {{axis=1}}\n"
      "  %d: f32[1,12,5,5] = conv(%s, %dw, %db) {{group=12, pads=[1, 1, 1, 1]}}\n"
      "  %p: f32[1,4,5,5] = conv(%d, %pw)\n"
      "  return %cat, %p\n}}\n",
      Floats(36, rng), Floats(108, rng), Floats(12, rng), Floats(48, rng), groups, k, groups, k, k, groups);
}

TEST(ChannelShuffle, FoldingIntoConvsPreservesResults) {
  std::mt19937 rng(5);
  for (int groups : {2, 3, 4}) {
    auto g = ir::ParseGraph(ShuffleGraph(groups, rng));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ir::Tensor x(ir::DType::kF32, {1, 12, 5, 5});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(0.37f * static_cast<float>(i));
    const auto before = Execute(**g, x);
    auto r = RunPasses(**g, {"fold-channel-shuffle", "dce"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const std::string text = ir::PrintGraph(**g);
    for (const char* op : {"reshape(", "transpose(", "slice("}) EXPECT_EQ(text.find(op), std::string::npos) << text;
    EXPECT_NE(text.find("%a: f32[1,6,5,5] = gather(%x,"), std::string::npos) << text;  // the concat operand stays
    const auto after = Execute(**g, x);
    for (size_t k = 0; k < before.size(); ++k)
      for (int64_t i = 0; i < before[k].numel(); ++i)
        ASSERT_NEAR(before[k].data<float>()[i], after[k].data<float>()[i], 1e-5f) << "groups " << groups;
  }
}

TEST(ChannelShuffle, SelectionConvMovesInt8ValuesExactly) {
  for (int zp : {0, 3, -128}) {
    const std::string q = zp ? fmt::format("<s=0.25, zp={}>", zp) : "<s=0.25>";
    const std::string text = fmt::format(
        "graph @g(%x: i8[2,5,3,3]{}) {{\n"
        "  %i: i64[7] = const [4, 0, 0, -1, 2, 3, 1]\n"
        "  %y: i8[2,7,3,3]{} = gather(%x, %i) {{axis=1}}\n"
        "  return %y\n}}\n",
        q, q);
    auto g = ir::ParseGraph(text);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ir::Tensor x(ir::DType::kI8, {2, 5, 3, 3});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>((i * 37) % 256 - 128);
    const auto before = Execute(**g, x);
    auto r = RunPasses(**g, {"channel-gather-to-conv"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].ToString(), "channel-gather-to-conv: 1 rewritten");
    EXPECT_NE(ir::PrintGraph(**g).find("= qconv(%x, %y.select)"), std::string::npos) << ir::PrintGraph(**g);
    const auto after = Execute(**g, x);
    EXPECT_TRUE(before[0].BytesEqual(after[0])) << "zero point " << zp;
  }
}

// fold-channel-shuffle on int8 values with a zero point (an already-quantized
// model after fold-qdq): a random channel permutation and a strided slice of
// it, read by a padded 3x3 qconv (the border is the zero point) and by a
// depthwise qconv with per-channel weight scales, bias and multipliers, give
// the same bytes after the gathers fold into the weights.
std::string Ints(int64_t n, int64_t lo, int64_t hi, std::mt19937& rng) {
  std::uniform_int_distribution<int64_t> u(lo, hi);
  std::string s;
  for (int64_t i = 0; i < n; ++i) s += (i ? ", " : "") + fmt::format("{}", u(rng));
  return "[" + s + "]";
}

std::string Int8ShuffleGraph(const std::vector<int64_t>& perm, int64_t start, int64_t step, std::mt19937& rng) {
  const int64_t c = static_cast<int64_t>(perm.size()), k = (c - start + step - 1) / step;
  const std::string q = "<s=0.5, zp=-100>";
  std::string scales;
  for (int64_t i = 0; i < c; ++i) scales += fmt::format("{}{}", i ? ", " : "", 0.01 * static_cast<double>(i + 1));
  return fmt::format(
      "graph @g(%x: i8[1,{c},5,5]{q}) {{\n"
      "  %i: i64[{c}] = const [{perm}]\n"
      "  %w: i8[4,{k},3,3]<axis=0, s=[0.1, 0.2, 0.3, 0.4]> = const {w}\n"
      "  %b: i32[4] = const {b}\n"
      "  %dw: i8[{c},1,3,3]<axis=0, s=[{scales}]> = const {dw}\n"
      "  %db: i32[{c}] = const {db}\n"
      "  %pw: i8[3,{c},1,1]<s=0.25> = const {pw}\n"
      "  %p: i8[1,{c},5,5]{q} = gather(%x, %i) {{axis=1}}\n"
      "  %s: i8[1,{k},5,5]{q} = slice(%p) {{ends=[1, {c}, 5, 5], starts=[0, {start}, 0, 0], steps=[1, {step}, 1, 1]}}\n"
      "  %y: i8[1,4,5,5]<s=1, zp=3> = qconv(%s, %w, %b) {{multiplier={m4}, pads=[1, 1, 1, 1], shift=31}}\n"
      "  %d: i8[1,{c},5,5]{q} = qconv(%p, %dw, %db) {{group={c}, multiplier={mc}, pads=[1, 1, 1, 1], shift=31}}\n"
      "  %z: i8[1,3,5,5]<s=1> = qconv(%d, %pw) {{multiplier=[1000000], shift=31}}\n"
      "  return %y, %z\n}}\n",
      fmt::arg("c", c), fmt::arg("k", k), fmt::arg("q", q), fmt::arg("perm", fmt::join(perm, ", ")),
      fmt::arg("w", Ints(4 * k * 9, -127, 127, rng)), fmt::arg("b", Ints(4, -2000, 2000, rng)),
      fmt::arg("scales", scales), fmt::arg("dw", Ints(c * 9, -127, 127, rng)),
      fmt::arg("db", Ints(c, -2000, 2000, rng)), fmt::arg("pw", Ints(3 * c, -127, 127, rng)), fmt::arg("start", start),
      fmt::arg("step", step), fmt::arg("m4", Ints(4, 400000, 4000000, rng)),
      fmt::arg("mc", Ints(c, 4000000, 40000000, rng)));
}

TEST(ChannelShuffle, Int8FoldsPreserveResultsBitForBit) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int64_t> perm(8);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    std::shuffle(perm.begin(), perm.end(), rng);
    const int64_t start = 1 + trial % 3, step = 1 + (trial / 3) % 2;
    auto g = ir::ParseGraph(Int8ShuffleGraph(perm, start, step, rng));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ir::Tensor x(ir::DType::kI8, {1, 8, 5, 5});
    std::uniform_int_distribution<int> u(-128, 127);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(u(rng));
    const auto before = Execute(**g, x);
    auto r = RunPasses(**g, {"fold-channel-shuffle", "dce"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::map<std::string, int64_t> counts((*r)[0].stats.counts.begin(), (*r)[0].stats.counts.end());
    EXPECT_EQ(counts, (std::map<std::string, int64_t>{
                          {"moved past depthwise convs", 1}, {"slices", 1}, {"composed", 1}, {"folded into convs", 2}}))
        << (*r)[0].ToString();
    const std::string text = ir::PrintGraph(**g);
    for (const char* op : {"gather(", "slice("}) EXPECT_EQ(text.find(op), std::string::npos) << text;
    const auto after = Execute(**g, x);
    for (size_t k = 0; k < before.size(); ++k)
      EXPECT_TRUE(before[k].BytesEqual(after[k])) << "trial " << trial << " output " << k << "\n" << text;
  }
}

}  // namespace
}  // namespace tessera::passes
