// Every GEMM code path this CPU can run against the scalar path, on random
// int16 data (wrapping sums included) and lane counts that leave tails for
// each vector width.
#include "sim/gemm_kernel.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera {
namespace {

TEST(GemmKernel, EveryPathMatchesScalar) {
  const std::vector<GemmPath> paths = GemmPathsOfThisCpu();
  ASSERT_EQ(paths.front(), GemmPath::kScalar);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> v(-32768, 32767);
  for (int block_out : {1, 4, 8, 16, 27, 32, 64}) {
    for (int k_even : {2, 16, 34}) {
      const int batch = 2;
      std::vector<int16_t> inp(batch * k_even), wgt(k_even * block_out);
      std::vector<int32_t> acc0(batch * block_out);
      for (auto& x : inp) x = static_cast<int16_t>(v(rng));
      for (auto& w : wgt) w = static_cast<int16_t>(v(rng));
      for (auto& a : acc0) a = static_cast<int32_t>(v(rng)) * (1 << 15);  // not <<: negative values (UBSan)
      std::vector<int32_t> want = acc0;
      GemmStepOn(GemmPath::kScalar, inp.data(), wgt.data(), want.data(), batch, k_even, block_out);
      for (GemmPath p : paths) {
        std::vector<int32_t> got = acc0;
        GemmStepOn(p, inp.data(), wgt.data(), got.data(), batch, k_even, block_out);
        EXPECT_EQ(got, want) << "path " << static_cast<int>(p) << ", block_out " << block_out << ", k " << k_even;
      }
      std::vector<int32_t> best = acc0;
      GemmStep(inp.data(), wgt.data(), best.data(), batch, k_even, block_out);
      EXPECT_EQ(best, want);
    }
  }
}

}  // namespace
}  // namespace tessera
