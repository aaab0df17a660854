#include "compiler/exec/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace tessera::exec {
namespace {

TEST(Gemm, FloatMatchesNaiveOnAwkwardSizes) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{
           {1, 1, 1}, {7, 33, 5}, {8, 32, 256}, {9, 31, 257}, {100, 1030, 300}, {3, 2000, 17}, {97, 5, 600}}) {
    std::vector<float> a(m * k), b(k * n), c(m * n, 5.f), ref(m * n, 0.f);
    for (auto& v : a) v = u(rng);
    for (auto& v : b) v = u(rng);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p) s += double(a[i * k + p]) * b[p * n + j];
        ref[i * n + j] = static_cast<float>(s);
      }
    Sgemm(m, n, k, a.data(), k, b.data(), n, c.data(), n, false);
    for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], ref[i], 1e-4 * std::sqrt(k)) << m << "x" << n << "x" << k;
    Sgemm(m, n, k, a.data(), k, b.data(), n, c.data(), n, true);  // accumulate doubles it
    for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c[i], 2 * ref[i], 2e-4 * std::sqrt(k));
  }
}

TEST(Gemm, PrepackedAMatchesPackingPerCall) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [m, n, k] :
       std::vector<std::tuple<int, int, int>>{{5, 9, 3}, {100, 77, 600}, {8, 32, 256}, {97, 1100, 257}}) {
    std::vector<float> a(m * k), b(k * n), c1(m * n), c2(m * n);
    for (auto& v : a) v = u(rng);
    for (auto& v : b) v = u(rng);
    Sgemm(m, n, k, a.data(), k, b.data(), n, c1.data(), n, false);
    PackedA p = PackAForSgemm(a.data(), k, m, k);
    SgemmPacked(p, n, b.data(), n, c2.data(), n, false);
    ASSERT_EQ(c1, c2) << m << "x" << n << "x" << k;  // same packing, same order: bit-identical
  }
}

TEST(Gemm, LeadingDimensionsAreHonoured) {
  // 2x2 blocks inside 3x4 storage.
  std::vector<float> a = {1, 2, 9, 9, 3, 4, 9, 9}, b = {5, 6, 9, 7, 8, 9}, c(6, -1.f);
  Sgemm(2, 2, 2, a.data(), 4, b.data(), 3, c.data(), 3, false);
  EXPECT_EQ(c, (std::vector<float>{19, 22, -1, 43, 50, -1}));
}

TEST(Gemm, IntegerGemmIsExactAtTheExtremes) {
  // All products at the int8 extreme and K far above the exact float range:
  // 4608 * 16384 = 75497472 > 2^24, yet the result must be exact.
  const int m = 9, n = 35, k = 4608;
  std::vector<float> a(m * k, -128.f), b(k * n, -128.f);
  std::vector<int32_t> c(m * n);
  IgemmExact(m, n, k, a.data(), k, b.data(), n, c.data(), n, false);
  for (int32_t v : c) ASSERT_EQ(v, 128 * 128 * k);
  // Zero-point shifted operands of magnitude 255 with random signs.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> u(-255, 255);
  const int k2 = 3001;
  std::vector<float> a2(m * k2), b2(k2 * n);
  for (auto& v : a2) v = static_cast<float>(u(rng));
  for (auto& v : b2) v = static_cast<float>(u(rng));
  std::vector<int32_t> c2(m * n, 7);
  IgemmExact(m, n, k2, a2.data(), k2, b2.data(), n, c2.data(), n, true);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int64_t s = 7;
      for (int p = 0; p < k2; ++p) s += int64_t(a2[i * k2 + p]) * int64_t(b2[p * n + j]);
      ASSERT_EQ(c2[i * n + j], s);
    }
}

}  // namespace
}  // namespace tessera::exec

#include "compiler/exec/igemm_s8.h"

namespace tessera::exec {
namespace {

// The int8 GEMM used by qconv (VNNI when available) against int64 sums.
TEST(Gemm, Int8GemmIsExact) {
  std::mt19937 rng(11);
  for (auto [m, p, k, extreme] : std::vector<std::tuple<int, int, int, int>>{
           {1, 1, 1, 0}, {7, 33, 5, 0}, {8, 32, 4, 0}, {17, 70, 577, 0}, {64, 100, 4608, 1}, {9, 40, 4608, 2}}) {
    std::vector<int8_t> w(m * k), x(k * p);
    std::uniform_int_distribution<int> u(-128, 127);
    for (auto& v : w) v = extreme == 1 ? -128 : extreme == 2 ? 127 : u(rng);
    for (auto& v : x) v = extreme == 1 ? -128 : extreme == 2 ? 127 : u(rng);
    PackedS8 packed = PackS8(w.data(), m, k);
    std::vector<int32_t> c(m * p, -7);
    GemmS8(packed, x.data(), p, c.data(), p);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < p; ++j) {
        int64_t s = 0;
        for (int q = 0; q < k; ++q) s += int64_t(w[i * k + q]) * x[q * p + j];
        ASSERT_EQ(c[i * p + j], s) << m << "x" << p << "x" << k << " at " << i << "," << j;
      }
  }
  std::printf("int8 GEMM path: %s\n", HaveVnni() ? "AVX-512 VNNI" : "portable exact float chunks");
}

}  // namespace
}  // namespace tessera::exec
