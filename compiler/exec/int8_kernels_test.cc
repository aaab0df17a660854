// The int8 golden-model kernels against independent integer references
// written from the spec in docs/quantization.md.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/exec/test_util.h"

namespace tessera::exec {
namespace {

using namespace test;
using ir::Tensor;

// Spec arithmetic, written independently of isa/alu.h: round half up of
// v * m / 2^s on the exact product, saturated to int32, then clamped.
int64_t SpecMulShr(int64_t v, int64_t m, int s) {
  __int128 p = static_cast<__int128>(v) * m;
  __int128 q = s == 0 ? p : (p + (static_cast<__int128>(1) << (s - 1))) >> s;  // floor((p + 2^(s-1)) / 2^s)
  if (q > INT32_MAX) return INT32_MAX;
  if (q < INT32_MIN) return INT32_MIN;
  return static_cast<int64_t>(q);
}

TEST(Int8Kernels, QConvMatchesIntegerReference) {
  std::mt19937 rng(21);
  struct Case {
    int c, h, w, m, k, stride, pad, group;
    bool const_weights;
    int zx = 0, zy = 0;  // input / result zero points: sum w * (x - zx), padding contributes 0
  };
  for (const Case& p :
       {Case{3, 9, 9, 8, 3, 1, 1, 1, true}, Case{16, 8, 8, 16, 3, 2, 1, 16, true},
        Case{32, 5, 5, 20, 1, 1, 0, 1, false}, Case{8, 7, 6, 4, 3, 2, 0, 2, false},
        Case{600, 3, 3, 5, 3, 1, 1, 1, true}, Case{3, 9, 9, 8, 3, 1, 1, 1, true, -28, -125},
        Case{16, 8, 8, 16, 3, 2, 1, 16, true, 100, 7}, Case{32, 5, 5, 20, 1, 1, 0, 1, false, -128, -128},
        Case{8, 7, 6, 4, 3, 2, 1, 2, false, 55, 0}, Case{600, 3, 3, 5, 3, 1, 1, 1, true, 127, 127}}) {
    const int oh = (p.h + 2 * p.pad - p.k) / p.stride + 1, ow = (p.w + 2 * p.pad - p.k) / p.stride + 1;
    const int cg = p.c / p.group, mg = p.m / p.group;
    Tensor x = RandomInt<int8_t>({1, p.c, p.h, p.w}, rng, -128, 127);
    Tensor w = RandomInt<int8_t>({p.m, cg, p.k, p.k}, rng, -127, 127);
    Tensor b = RandomInt<int32_t>({p.m}, rng, -50000, 50000);
    std::vector<int64_t> mult(p.m);
    std::uniform_int_distribution<int64_t> um(1 << 30, INT32_MAX);
    for (auto& v : mult) v = um(rng);
    const int shift = 40;
    std::string scales, mults;
    for (int i = 0; i < p.m; ++i) {
      scales += (i ? ", " : "") + std::string("0.01");
      mults += (i ? ", " : "") + std::to_string(mult[i]);
    }
    auto zp = [](int z) { return z ? fmt::format(", zp={}", z) : std::string(); };
    const std::string text = fmt::format(
        "graph @g(%x: i8[1,{},{},{}]<s=0.5{}>{}) {{\n{}  %b: i32[{}] = const [{}]\n"
        "  %y: i8[1,{},{},{}]<s=0.25{}> = qconv(%x, %w, %b) {{act_max=100, act_min=-3, group={}, "
        "multiplier=[{}], pads=[{}, {}, {}, {}], shift={}, strides=[{}, {}]}}\n  return %y\n}}\n",
        p.c, p.h, p.w, zp(p.zx),
        p.const_weights ? "" : fmt::format(", %w: i8[{},{},{},{}]<axis=0, s=[{}]>", p.m, cg, p.k, p.k, scales),
        p.const_weights ? fmt::format("  %w: i8[{},{},{},{}]<axis=0, s=[{}]> = const 0x{}\n", p.m, cg, p.k, p.k, scales,
                                      [&] {
                                        std::string h;
                                        for (int64_t i = 0; i < w.numel(); ++i)
                                          h += fmt::format("{:02x}", static_cast<uint8_t>(w.data<int8_t>()[i]));
                                        return h;
                                      }())
                        : "",
        p.m, fmt::join(std::vector<int32_t>(b.data<int32_t>(), b.data<int32_t>() + p.m), ", "), p.m, oh, ow, zp(p.zy),
        p.group, mults, p.pad, p.pad, p.pad, p.pad, shift, p.stride, p.stride);
    auto graph = Parse(text);
    ASSERT_TRUE(graph);
    std::vector<Tensor> inputs = {x};
    if (!p.const_weights) inputs.push_back(w);
    auto out = RunGraph(*graph, inputs);
    ASSERT_EQ(out.size(), 1u);
    for (int m = 0; m < p.m; ++m)
      for (int i = 0; i < oh; ++i)
        for (int j = 0; j < ow; ++j) {
          int64_t acc = 0;
          const int grp = m / mg;
          for (int c = 0; c < cg; ++c)
            for (int a = 0; a < p.k; ++a)
              for (int e = 0; e < p.k; ++e) {
                const int ih = i * p.stride - p.pad + a, iw = j * p.stride - p.pad + e;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                acc += (int64_t(x.data<int8_t>()[((grp * cg + c) * p.h + ih) * p.w + iw]) - p.zx) *
                       w.data<int8_t>()[((m * cg + c) * p.k + a) * p.k + e];
              }
          const int64_t want =
              std::clamp<int64_t>(SpecMulShr(acc + b.data<int32_t>()[m], mult[m], shift) + p.zy, -3, 100);
          ASSERT_EQ(out[0].data<int8_t>()[(m * oh + i) * ow + j], want) << text;
        }
  }
}

// qmatmul with input and result zero points: sum w * (x - zx), then + zy before the clamp.
TEST(Int8Kernels, QMatMulZeroPoints) {
  std::mt19937 rng(5);
  Tensor x = RandomInt<int8_t>({5, 300}, rng, -128, 127), w = RandomInt<int8_t>({3, 300}, rng, -128, 127);
  std::string hex;
  for (int64_t i = 0; i < w.numel(); ++i) hex += fmt::format("{:02x}", static_cast<uint8_t>(w.data<int8_t>()[i]));
  auto graph = Parse(fmt::format(R"(graph @g(%x: i8[5,300]<s=0.5, zp=-97>) {{
  %w: i8[3,300]<s=0.1> = const 0x{}
  %bias: i32[3] = const [100, -20000, 3]
  %y: i8[5,3]<s=0.3, zp=-128> = qmatmul(%x, %w, %bias) {{multiplier=[1500000000, 1200000000, 2000000000], shift=42}}
  return %y
}})",
                                 hex));
  ASSERT_TRUE(graph);
  auto o = RunGraph(*graph, {x});
  ASSERT_EQ(o.size(), 1u);
  const int32_t bias[3] = {100, -20000, 3};
  const int64_t mult[3] = {1500000000, 1200000000, 2000000000};
  int distinct = 0;
  for (int r = 0; r < 5; ++r)
    for (int n = 0; n < 3; ++n) {
      int64_t acc = bias[n];
      for (int k = 0; k < 300; ++k)
        acc += (int64_t(x.data<int8_t>()[r * 300 + k]) + 97) * w.data<int8_t>()[n * 300 + k];
      const int64_t want = std::clamp<int64_t>(SpecMulShr(acc, mult[n], 42) - 128, -128, 127);
      ASSERT_EQ(o[0].data<int8_t>()[r * 3 + n], want) << r << " " << n;
      distinct += want != -128 && want != 127;
    }
  EXPECT_GT(distinct, 3);  // not all saturated
}

TEST(Int8Kernels, QMatMulQAddQAvgPoolRequantize) {
  std::mt19937 rng(3);
  auto g =
      Parse(R"(graph @g(%x: i8[2,3,40]<s=0.5>, %w: i8[7,40]<s=0.1>, %a: i8[1,2,3,3]<s=0.5>, %b: i8[1,2,3,3]<s=0.2>) {
  %bias: i32[7] = const [1, -2, 3, -400, 5000, 6, 7]
  %y: i8[2,3,7]<s=0.3> = qmatmul(%x, %w, %bias) {multiplier=[1500000000], shift=33}
  %s: i8[1,2,3,3]<s=0.6> = qadd(%a, %b) {act_min=0, multiplier=[1789569707, 1431655765], post_shift=16, shift=[15, 16]}
  %p: i8[1,2,1,1]<s=0.5> = qavg_pool(%a) {kernel=[3, 3], multiplier=[1908874354], shift=34}
  %r: i8[1,2,3,3]<s=1> = requantize(%a) {act_max=10, multiplier=[1073741824, 2147483647], shift=31}
  return %y, %s, %p, %r
})");
  ASSERT_TRUE(g);
  Tensor x = RandomInt<int8_t>({2, 3, 40}, rng, -128, 127), w = RandomInt<int8_t>({7, 40}, rng, -127, 127);
  Tensor a = RandomInt<int8_t>({1, 2, 3, 3}, rng, -128, 127), b = RandomInt<int8_t>({1, 2, 3, 3}, rng, -128, 127);
  auto o = RunGraph(*g, {x, w, a, b});
  ASSERT_EQ(o.size(), 4u);
  const int32_t bias[7] = {1, -2, 3, -400, 5000, 6, 7};
  for (int r = 0; r < 6; ++r)
    for (int n = 0; n < 7; ++n) {
      int64_t acc = bias[n];
      for (int k = 0; k < 40; ++k) acc += int64_t(x.data<int8_t>()[r * 40 + k]) * w.data<int8_t>()[n * 40 + k];
      ASSERT_EQ(o[0].data<int8_t>()[r * 7 + n], std::clamp<int64_t>(SpecMulShr(acc, 1500000000, 33), -128, 127));
    }
  for (int i = 0; i < 18; ++i) {
    const int64_t ta = SpecMulShr(a.data<int8_t>()[i], 1789569707, 15),
                  tb = SpecMulShr(b.data<int8_t>()[i], 1431655765, 16);
    const int64_t sum = ta + tb;
    const int64_t shr = (sum + (1 << 15)) >> 16;  // round half up
    ASSERT_EQ(o[1].data<int8_t>()[i], std::clamp<int64_t>(shr, 0, 127)) << i;
    // The float meaning is close: 0.5 a + 0.2 b = 0.6 y.
    EXPECT_NEAR(o[1].data<int8_t>()[i] * 0.6, std::max(0.0, 0.5 * a.data<int8_t>()[i] + 0.2 * b.data<int8_t>()[i]),
                0.6 * 0.51 + (o[1].data<int8_t>()[i] == 127 ? 1e9 : 0));
  }
  for (int c = 0; c < 2; ++c) {
    int64_t s = 0;
    for (int i = 0; i < 9; ++i) s += a.data<int8_t>()[c * 9 + i];
    ASSERT_EQ(o[2].data<int8_t>()[c], std::clamp<int64_t>(SpecMulShr(s, 1908874354, 34), -128, 127));
    EXPECT_NEAR(o[2].data<int8_t>()[c], s / 9.0, 0.51);
    for (int i = 0; i < 9; ++i)
      ASSERT_EQ(
          o[3].data<int8_t>()[c * 9 + i],
          std::clamp<int64_t>(SpecMulShr(a.data<int8_t>()[c * 9 + i], c ? 2147483647 : 1073741824, 31), -128, 10));
  }
}

TEST(Int8Kernels, QuantizeRoundsHalfToEvenAndSaturates) {
  auto g = Parse(R"(graph @g(%x: f32[8]) {
  %q: i8[8]<s=0.5> = quantize(%x)
  %u: u8[8]<s=1, zp=10> = quantize(%x)
  %d: f32[8] = dequantize(%u)
  return %q, %u, %d
})");
  Tensor x(ir::DType::kF32, {8});
  const float xv[8] = {0.25f, 0.75f, -0.25f, -0.75f, 1000.f, -1000.f, 2.5f, NAN};
  std::copy(xv, xv + 8, x.data<float>());
  auto o = RunGraph(*g, {x});
  const int8_t q[8] = {0, 2, 0, -2, 127, -128, 5, 0};  // 0.5 -> 0, 1.5 -> 2, 5 -> 5
  for (int i = 0; i < 8; ++i) EXPECT_EQ(o[0].data<int8_t>()[i], q[i]) << i;
  const uint8_t u[8] = {10, 11, 10, 9, 255, 0, 12, 10};  // 0.25 -> 0, 0.75 -> 1, 2.5 -> 2
  for (int i = 0; i < 8; ++i) EXPECT_EQ(o[1].data<uint8_t>()[i], u[i]) << i;
  EXPECT_EQ(o[2].data<float>()[4], 245.f);
  EXPECT_EQ(o[2].data<float>()[5], -10.f);
}

TEST(Int8Kernels, QLinearConvFollowsOnnxSemantics) {
  // u8 activations with zero point 100, per-channel u8 weights with zero points.
  auto g = Parse(R"(graph @g(%x: u8[1,1,3,3]<s=0.5, zp=100>) {
  %w: u8[2,1,2,2]<axis=0, s=[0.25, 0.125], zp=[3, 200]> = const [4, 3, 3, 5, 200, 210, 190, 200]
  %b: i32[2] = const [10, -7]
  %y: u8[1,2,2,2]<s=0.2, zp=50> = qlinear_conv(%x, %w, %b)
  return %y
})");
  ASSERT_TRUE(g);
  Tensor x(ir::DType::kU8, {1, 1, 3, 3});
  const uint8_t xv[9] = {100, 110, 90, 255, 0, 101, 100, 100, 130};
  std::copy(xv, xv + 9, x.data<uint8_t>());
  auto o = RunGraph(*g, {x});
  const int w[2][4] = {{1, 0, 0, 2}, {0, 10, -10, 0}};
  const float sc[2] = {0.5f * 0.25f / 0.2f, 0.5f * 0.125f / 0.2f};
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        int acc = m ? -7 : 10;
        for (int a = 0; a < 2; ++a)
          for (int e = 0; e < 2; ++e) acc += (xv[(i + a) * 3 + j + e] - 100) * w[m][a * 2 + e];
        const int want = std::clamp(static_cast<int>(std::nearbyint(acc * sc[m])) + 50, 0, 255);
        EXPECT_EQ(o[0].data<uint8_t>()[(m * 2 + i) * 2 + j], want);
      }
}

}  // namespace
}  // namespace tessera::exec
