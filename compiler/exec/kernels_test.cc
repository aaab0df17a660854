// fp32 kernels against straightforward reference loops.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/exec/test_util.h"
#include "compiler/ir/printer.h"

namespace tessera::exec {
namespace {

using namespace test;
using ir::Tensor;

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, group;
};

// Reference convolution in double.
std::vector<double> RefConv(const ConvCase& p, const Tensor& x, const Tensor& w, const Tensor& b, int64_t oh,
                            int64_t ow) {
  std::vector<double> y(p.n * p.m * oh * ow);
  const int64_t cg = p.c / p.group, mg = p.m / p.group;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t m = 0; m < p.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double s = b.data<float>()[m];
          const int64_t grp = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t a = 0; a < p.kh; ++a)
              for (int64_t e = 0; e < p.kw; ++e) {
                const int64_t ih = i * p.sh - p.pt + a * p.dh, iw = j * p.sw - p.pl + e * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                s += double(x.data<float>()[((n * p.c + grp * cg + c) * p.h + ih) * p.w + iw]) *
                     w.data<float>()[((m * cg + c) * p.kh + a) * p.kw + e];
              }
          y[((n * p.m + m) * oh + i) * ow + j] = s;
        }
  return y;
}

TEST(Kernels, ConvMatchesReferenceAcrossGeometries) {
  std::mt19937 rng(7);
  const std::vector<ConvCase> cases = {
      {1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},    // 3x3 same
      {2, 4, 10, 7, 6, 3, 2, 2, 3, 0, 1, 2, 0, 1, 1, 2},    // grouped, strided, asymmetric pads
      {1, 8, 12, 12, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8},   // depthwise stride 2
      {1, 6, 9, 9, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 6},     // depthwise dilated
      {1, 16, 5, 6, 40, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},   // pointwise (no im2col)
      {1, 3, 20, 20, 4, 5, 5, 1, 1, 0, 0, 0, 0, 2, 3, 1},   // dilated
      {1, 2, 30, 30, 3, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1},   // 7x7 stem-like
      {1, 300, 4, 4, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // K > one GEMM depth block
  };
  for (const ConvCase& p : cases) {
    const int64_t oh = (p.h + p.pt + p.pb - (p.kh - 1) * p.dh - 1) / p.sh + 1;
    const int64_t ow = (p.w + p.pl + p.pr - (p.kw - 1) * p.dw - 1) / p.sw + 1;
    const std::string text = fmt::format(
        "graph @g(%x: f32[{},{},{},{}], %w: f32[{},{},{},{}], %b: f32[{}]) {{\n"
        "  %y: f32[{},{},{},{}] = conv(%x, %w, %b) {{dilations=[{}, {}], group={}, pads=[{}, {}, {}, {}], "
        "strides=[{}, {}]}}\n  return %y\n}}\n",
        p.n, p.c, p.h, p.w, p.m, p.c / p.group, p.kh, p.kw, p.m, p.n, p.m, oh, ow, p.dh, p.dw, p.group, p.pt, p.pl,
        p.pb, p.pr, p.sh, p.sw);
    auto g = Parse(text);
    ASSERT_TRUE(g);
    Tensor x = RandomFloat({p.n, p.c, p.h, p.w}, rng), w = RandomFloat({p.m, p.c / p.group, p.kh, p.kw}, rng),
           b = RandomFloat({p.m}, rng);
    auto out = RunGraph(*g, {x, w, b});
    ASSERT_EQ(out.size(), 1u);
    auto ref = RefConv(p, x, w, b, oh, ow);
    for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[0].data<float>()[i], ref[i], 1e-4) << text << i;
  }
}

TEST(Kernels, FusedActivationClampsConvAndAdd) {
  auto g = Parse(R"(graph @g(%x: f32[1,1,2,2], %w: f32[1,1,1,1], %c: f32[1,1,2,2]) {
  %y: f32[1,1,2,2] = conv(%x, %w) {act_min=0, act_max=6}
  %z: f32[1,1,2,2] = add(%y, %c) {act_min=-1}
  return %y, %z
})");
  Tensor x(ir::DType::kF32, {1, 1, 2, 2}), w(ir::DType::kF32, {1, 1, 1, 1}), c(ir::DType::kF32, {1, 1, 2, 2});
  float xv[] = {-3, 1, 5, 9};
  std::copy(xv, xv + 4, x.data<float>());
  w.data<float>()[0] = 1.f;
  std::fill(c.data<float>(), c.data<float>() + 4, -2.f);
  auto out = RunGraph(*g, {x, w, c});
  EXPECT_EQ(std::vector<float>(out[0].data<float>(), out[0].data<float>() + 4), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(std::vector<float>(out[1].data<float>(), out[1].data<float>() + 4), (std::vector<float>{-1, -1, 3, 4}));
}

TEST(Kernels, ConvTransposeMatchesScatterReference) {
  std::mt19937 rng(11);
  // x[1,4,5,6], w[4,3,3,3] groups 2 -> M = 6; strides 2, pads 1, output_padding 1.
  auto g = Parse(R"(graph @g(%x: f32[1,4,5,6], %w: f32[4,3,3,3], %b: f32[6]) {
  %y: f32[1,6,10,12] = conv_transpose(%x, %w, %b) {group=2, output_padding=[1, 1], pads=[1, 1, 1, 1], strides=[2, 2]}
  return %y
})");
  ASSERT_TRUE(g);
  Tensor x = RandomFloat({1, 4, 5, 6}, rng), w = RandomFloat({4, 3, 3, 3}, rng), b = RandomFloat({6}, rng);
  auto out = RunGraph(*g, {x, w, b});
  std::vector<double> ref(6 * 10 * 12);
  for (int m = 0; m < 6; ++m)
    for (int i = 0; i < 120; ++i) ref[m * 120 + i] = b.data<float>()[m];
  for (int c = 0; c < 4; ++c)
    for (int ih = 0; ih < 5; ++ih)
      for (int iw = 0; iw < 6; ++iw)
        for (int mm = 0; mm < 3; ++mm)
          for (int a = 0; a < 3; ++a)
            for (int e = 0; e < 3; ++e) {
              const int oh = ih * 2 - 1 + a, ow = iw * 2 - 1 + e, m = (c / 2) * 3 + mm;
              if (oh < 0 || oh >= 10 || ow < 0 || ow >= 12) continue;
              ref[(m * 10 + oh) * 12 + ow] +=
                  double(x.data<float>()[(c * 5 + ih) * 6 + iw]) * w.data<float>()[((c * 3 + mm) * 3 + a) * 3 + e];
            }
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[0].data<float>()[i], ref[i], 1e-4);
}

TEST(Kernels, MatMulBroadcastsBatchesAndGemmOptions) {
  std::mt19937 rng(5);
  auto g = Parse(R"(graph @g(%a: f32[2,1,3,4], %b: f32[3,4,5], %c: f32[5], %p: f32[4,3], %q: f32[5,4], %r: f32[3,1]) {
  %y: f32[2,3,3,5] = matmul(%a, %b, %c)
  %z: f32[3,5] = gemm(%p, %q, %r) {alpha=0.5, beta=2, trans_a=1, trans_b=1}
  return %y, %z
})");
  ASSERT_TRUE(g);
  Tensor a = RandomFloat({2, 1, 3, 4}, rng), b = RandomFloat({3, 4, 5}, rng), c = RandomFloat({5}, rng),
         p = RandomFloat({4, 3}, rng), q = RandomFloat({5, 4}, rng), r = RandomFloat({3, 1}, rng);
  auto out = RunGraph(*g, {a, b, c, p, q, r});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int m = 0; m < 3; ++m)
        for (int n = 0; n < 5; ++n) {
          double s = c.data<float>()[n];
          for (int k = 0; k < 4; ++k)
            s += double(a.data<float>()[(i * 3 + m) * 4 + k]) * b.data<float>()[(j * 4 + k) * 5 + n];
          ASSERT_NEAR(out[0].data<float>()[((i * 3 + j) * 3 + m) * 5 + n], s, 1e-5);
        }
  for (int m = 0; m < 3; ++m)
    for (int n = 0; n < 5; ++n) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += double(p.data<float>()[k * 3 + m]) * q.data<float>()[n * 4 + k];
      ASSERT_NEAR(out[1].data<float>()[m * 5 + n], 0.5 * s + 2 * r.data<float>()[m], 1e-5);
    }
}

TEST(Kernels, PoolingSoftmaxAndDataMovement) {
  auto g = Parse(R"(graph @g(%x: f32[1,1,4,4]) {
  %mp: f32[1,1,2,2] = max_pool(%x) {kernel=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]}
  %ap: f32[1,1,2,2] = avg_pool(%x) {kernel=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]}
  %ai: f32[1,1,2,2] = avg_pool(%x) {count_include_pad=1, kernel=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]}
  %gp: f32[1,1,1,1] = global_avg_pool(%x)
  %sm: f32[1,1,4,4] = softmax(%x) {axis=2}
  %tr: f32[4,1,4,1] = transpose(%x) {perm=[3, 1, 2, 0]}
  %cc: f32[1,2,4,4] = concat(%x, %x) {axis=1}
  %pd: f32[1,1,4,7] = pad(%x) {mode="reflect", pads=[0, 0, 0, 1, 0, 0, 0, 2]}
  return %mp, %ap, %ai, %gp, %sm, %tr, %cc, %pd
})");
  ASSERT_TRUE(g);
  Tensor x(ir::DType::kF32, {1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto o = RunGraph(*g, {x});
  ASSERT_EQ(o.size(), 8u);
  auto v = [](const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.numel()); };
  EXPECT_EQ(v(o[0]), (std::vector<float>{5, 7, 13, 15}));
  EXPECT_EQ(v(o[1]), (std::vector<float>{2.5f, 4.f, 8.5f, 10.f}));  // excludes padding
  EXPECT_NEAR(o[2].data<float>()[0], 10.f / 9.f, 1e-6);             // counts padding
  EXPECT_EQ(o[3].data<float>()[0], 7.5f);
  for (int col = 0; col < 4; ++col) {
    double s = 0;
    for (int r = 0; r < 4; ++r) s += o[4].data<float>()[r * 4 + col];
    EXPECT_NEAR(s, 1.0, 1e-6);
  }
  EXPECT_NEAR(o[4].data<float>()[12], 1.0 / (1 + std::exp(-4.0) + std::exp(-8.0) + std::exp(-12.0)), 1e-6);
  EXPECT_EQ(o[5].data<float>()[1 * 4 + 2], 9.f);  // y[1][0][2][0] = x[0][0][2][1]
  EXPECT_EQ(o[6].data<float>()[16 + 5], 5.f);
  EXPECT_EQ(v(o[7]).size(), 28u);
  EXPECT_EQ(o[7].data<float>()[0], 1.f);  // reflect of column 1
  EXPECT_EQ(o[7].data<float>()[5], 2.f);  // x[0][3] then reflected x[0][2]
  EXPECT_EQ(o[7].data<float>()[6], 1.f);
}

TEST(Kernels, IntegerArithmeticWrapsAndDivisionByZeroIsAnError) {
  auto g = Parse(R"(graph @g(%a: u8[3], %b: u8[3]) {
  %s: u8[3] = add(%a, %b)
  %d: u8[3] = div(%a, %b)
  return %s, %d
})");
  Tensor a(ir::DType::kU8, {3}), b(ir::DType::kU8, {3});
  a.data<uint8_t>()[0] = 200;
  b.data<uint8_t>()[0] = 100;
  a.data<uint8_t>()[1] = 7;
  b.data<uint8_t>()[1] = 2;
  a.data<uint8_t>()[2] = 1;
  b.data<uint8_t>()[2] = 0;
  auto ex = Executor::Create(*g);
  ASSERT_TRUE(ex.ok());
  auto r = (*ex)->Run({a, b});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "node producing '%d' (div): integer division by zero or overflow")
      << r.status().message();
  b.data<uint8_t>()[2] = 1;
  auto ok = (*ex)->Run({a, b});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].data<uint8_t>()[0], 44);  // 300 mod 256
  EXPECT_EQ((*ok)[1].data<uint8_t>()[1], 3);
}

TEST(Kernels, InputsAreChecked) {
  auto g = Parse("graph @g(%x: f32[2]) {\n  %y: f32[2] = relu(%x)\n  return %y\n}\n");
  auto ex = Executor::Create(*g);
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ((*ex)->Run({Tensor(ir::DType::kF32, {3})}).status().message(), "input 'x' must be f32[2], got f32[3]");
  EXPECT_EQ((*ex)->Run({}).status().message(), "graph 'g' takes 1 inputs, got 0");
}

}  // namespace
}  // namespace tessera::exec
