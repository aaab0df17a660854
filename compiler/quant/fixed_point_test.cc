#include "compiler/quant/fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tessera::quant {
namespace {

TEST(FixedPoint, LargestMultiplierInTopBinade) {
  for (double r : {0.75, 0.5, 1.0, 1.999, 3e-5, 1e-9, 123.0}) {
    auto fp = ChooseFixedPoint({r, r / 3, r / 1000});
    ASSERT_TRUE(fp.ok()) << r;
    EXPECT_GE(fp->multiplier[0], int64_t{1} << 30) << r;
    EXPECT_LT(fp->multiplier[0], int64_t{1} << 31) << r;
    EXPECT_NEAR(FixedPointValue(fp->multiplier[0], fp->shift) / r, 1.0, 1e-9);
    EXPECT_NEAR(FixedPointValue(fp->multiplier[1], fp->shift) / (r / 3), 1.0, 1e-8);
  }
  // Rounding up to 2^31 moves to the next shift.
  auto fp = ChooseFixedPoint({1.0 - 1e-12});
  ASSERT_TRUE(fp.ok());
  EXPECT_EQ(fp->multiplier[0], int64_t{1} << 30);
  EXPECT_EQ(fp->shift, 30);
}

TEST(FixedPoint, Limits) {
  EXPECT_FALSE(ChooseFixedPoint({}).ok());
  EXPECT_FALSE(ChooseFixedPoint({0.0}).ok());
  EXPECT_FALSE(ChooseFixedPoint({-1.0}).ok());
  EXPECT_FALSE(ChooseFixedPoint({NAN}).ok());
  EXPECT_FALSE(ChooseFixedPoint({std::ldexp(1.0, 31)}).ok());
  auto tiny = ChooseFixedPoint({1e-30});  // shift caps at 63; multiplier stays >= 1
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->shift, 63);
  EXPECT_GE(tiny->multiplier[0], 1);
}

TEST(FixedPoint, AddKeepsSumsInRange) {
  auto fp = ChooseAddFixedPoint(0.8, 0.3);
  ASSERT_TRUE(fp.ok());
  EXPECT_EQ(fp->post_shift, 20);
  EXPECT_NEAR(FixedPointValue(fp->multiplier[0], fp->shift[0]), 0.8 * (1 << 20), 1e-3);
  auto big = ChooseAddFixedPoint(3000.0, 1.0);
  ASSERT_TRUE(big.ok());
  EXPECT_LT(128 * 3000.0 * std::ldexp(1.0, big->post_shift), std::ldexp(1.0, 29));
  EXPECT_FALSE(ChooseAddFixedPoint(1e9, 1.0).ok());
}

}  // namespace
}  // namespace tessera::quant
