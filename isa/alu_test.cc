// ALU arithmetic at the int8/int16/int32 edges, against hand-computed values.
#include "isa/alu.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera::alu {
namespace {

constexpr int64_t kMax32 = INT32_MAX, kMin32 = INT32_MIN;

TEST(Alu, WrapAndSaturate) {
  EXPECT_EQ(Wrap(kMax32 + 1, 32), kMin32);
  EXPECT_EQ(Wrap(kMin32 - 1, 32), kMax32);
  EXPECT_EQ(Wrap(128, 8), -128);
  EXPECT_EQ(Wrap(-129, 8), 127);
  EXPECT_EQ(Wrap(0x18000, 16), -32768);
  EXPECT_EQ(Saturate(kMax32 + 5, 32), kMax32);
  EXPECT_EQ(Saturate(kMin32 - 5, 32), kMin32);
  EXPECT_EQ(Saturate(300, 8), 127);
  EXPECT_EQ(Saturate(-300, 8), -128);
}

TEST(Alu, RoundShiftRightTiesTowardPlusInfinity) {
  EXPECT_EQ(RoundShiftRight(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(RoundShiftRight(-5, 1), -2);  // -2.5 -> -2
  EXPECT_EQ(RoundShiftRight(7, 2), 2);    // 1.75 -> 2
  EXPECT_EQ(RoundShiftRight(-7, 2), -2);  // -1.75 -> -2
  EXPECT_EQ(RoundShiftRight(-6, 2), -1);  // -1.5 -> -1
  EXPECT_EQ(RoundShiftRight(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(RoundShiftRight(kMin32, 31), -1);
  EXPECT_EQ(RoundShiftRight(kMax32, 31), 1);  // 0.99999 -> 1
  EXPECT_EQ(RoundShiftRight(kMin32, 32), 0);  // -0.5 -> 0
  EXPECT_EQ(RoundShiftRight(kMin32, 63), 0);
  EXPECT_EQ(RoundShiftRight(INT64_MIN, 63), -1);
  EXPECT_EQ(RoundShiftRight(42, 0), 42);
}

TEST(Alu, EveryOpAtInt32Edges) {
  const int b = 32;
  EXPECT_EQ(Apply(AluOp::kMin, kMin32, kMax32, 0, b), kMin32);
  EXPECT_EQ(Apply(AluOp::kMax, kMin32, kMax32, 0, b), kMax32);
  EXPECT_EQ(Apply(AluOp::kAdd, kMax32, 1, 0, b), kMin32);  // wraps
  EXPECT_EQ(Apply(AluOp::kAdd, kMin32, -1, 0, b), kMax32);
  EXPECT_EQ(Apply(AluOp::kShr, kMax32, 1, 0, b), 1073741824);   // 1073741823.5 -> up
  EXPECT_EQ(Apply(AluOp::kShr, -3, 1, 0, b), -1);               // -1.5 -> -1
  EXPECT_EQ(Apply(AluOp::kShr, 3, -2, 0, b), 12);               // negative: shift left
  EXPECT_EQ(Apply(AluOp::kShr, 0x40000000, -1, 0, b), kMin32);  // left shift wraps
  EXPECT_EQ(Apply(AluOp::kShr, 12345, 100, 0, b), 0);
  EXPECT_EQ(Apply(AluOp::kShr, 1, -64, 0, b), 0);
  EXPECT_EQ(Apply(AluOp::kMul, 65536, 65536, 0, b), 0);  // 2^32 wraps to 0
  EXPECT_EQ(Apply(AluOp::kMul, kMin32, -1, 0, b), kMin32);
  EXPECT_EQ(Apply(AluOp::kMul, -7, 6, 0, b), -42);
  // MULSHR: 64-bit product, rounded shift, saturated.
  EXPECT_EQ(Apply(AluOp::kMulShr, kMax32, kMax32, 31, b), kMax32 - 1);  // (2^31-1)^2 / 2^31 = 2^31 - 2 + tiny
  EXPECT_EQ(Apply(AluOp::kMulShr, kMin32, kMin32, 31, b), kMax32);      // 2^31 saturates
  EXPECT_EQ(Apply(AluOp::kMulShr, kMin32, kMin32, 0, b), kMax32);
  EXPECT_EQ(Apply(AluOp::kMulShr, kMin32, kMax32, 0, b), kMin32);
  EXPECT_EQ(Apply(AluOp::kMulShr, 1000, 1 << 30, 31, b), 500);
  EXPECT_EQ(Apply(AluOp::kMulShr, 3, 1 << 30, 31, b), 2);      // 1.5 -> 2
  EXPECT_EQ(Apply(AluOp::kMulShr, -3, 1 << 30, 31, b), -1);    // -1.5 -> -1
  EXPECT_EQ(Apply(AluOp::kMulShr, kMin32, kMin32, 63, b), 1);  // 2^62 / 2^63 = 0.5 -> 1
  // CLIP: saturating narrow.
  EXPECT_EQ(Apply(AluOp::kClip, 1000, 127, 0, b), 127);
  EXPECT_EQ(Apply(AluOp::kClip, -1000, 127, 0, b), -128);
  EXPECT_EQ(Apply(AluOp::kClip, -128, 127, 0, b), -128);
  EXPECT_EQ(Apply(AluOp::kClip, kMin32, kMax32 - 1, 0, b), kMin32 + 1);
  EXPECT_EQ(Apply(AluOp::kClip, 5, 0, 0, b), 0);
  EXPECT_EQ(Apply(AluOp::kMov, 5, kMin32, 0, b), kMin32);
  // MULSHRC: MULSHR, then the clamp its immediate names.
  const int64_t int8 = 7 << 6, relu8 = int8 | 1 << 10;
  EXPECT_EQ(Apply(AluOp::kMulShrClip, 1000, 1 << 30, 31 | int8, b), 127);    // 500 clips
  EXPECT_EQ(Apply(AluOp::kMulShrClip, -1000, 1 << 30, 31 | int8, b), -128);  // -500 clips
  EXPECT_EQ(Apply(AluOp::kMulShrClip, -3, 1 << 30, 31 | int8, b), -1);       // -1.5 -> -1 (rounds first)
  EXPECT_EQ(Apply(AluOp::kMulShrClip, -3, 1 << 30, 31 | relu8, b), 0);       // ReLU
  EXPECT_EQ(Apply(AluOp::kMulShrClip, 201, 1 << 30, 31 | relu8, b), 101);    // 100.5 -> 101
  EXPECT_EQ(Apply(AluOp::kMulShrClip, kMin32, kMin32, 0, b), 0);             // c = 0: [-1, 0]
  EXPECT_EQ(Apply(AluOp::kMulShrClip, kMin32, kMax32, 15 << 6, b), -32768);  // saturates, then clips
  EXPECT_EQ(Apply(AluOp::kMulShrClip, kMin32, kMin32, 15 << 6 | 1 << 10, b), 32767);
  EXPECT_EQ(MulShrClipImm(31, -128, 127), 31 | int8);
  EXPECT_EQ(MulShrClipImm(5, 0, 127), 5 | relu8);
  EXPECT_EQ(MulShrClipImm(5, -32768, 32767), 5 | 15 << 6);
  EXPECT_EQ(MulShrClipImm(5, 0, 6), std::nullopt);     // ReLU6-style bound
  EXPECT_EQ(MulShrClipImm(5, -3, 127), std::nullopt);  // zero-point lower bound
  EXPECT_EQ(MulShrClipImm(5, -65536, 65535), std::nullopt);
  EXPECT_EQ(MulShrClipImm(64, -128, 127), std::nullopt);  // shift out of range
}

// MULSHRC equals MULSHR then MAX lo, MIN hi for every clamp it expresses.
TEST(Alu, MulShrClipIsMulShrThenClamp) {
  std::mt19937_64 rng(3);
  for (int bits : {16, 32}) {
    for (int i = 0; i < 20000; ++i) {
      const int64_t x = Wrap(static_cast<int64_t>(rng()), bits), m = Wrap(static_cast<int64_t>(rng()), bits);
      const int64_t imm = static_cast<int64_t>(rng() % 2048), c = (imm >> 6) & 15, hi = (int64_t{1} << c) - 1;
      const int64_t lo = imm >> 10 ? 0 : -hi - 1;
      const int64_t want =
          Apply(AluOp::kMin, Apply(AluOp::kMax, MulShr(x, m, imm & 63, bits), lo, 0, bits), hi, 0, bits);
      ASSERT_EQ(Apply(AluOp::kMulShrClip, x, m, imm, bits), want) << x << " " << m << " " << imm;
      ASSERT_EQ(MulShrClipImm(imm & 63, lo, hi), imm);
    }
  }
}

TEST(Alu, Int8AndInt16Edges) {
  EXPECT_EQ(Apply(AluOp::kAdd, 127, 1, 0, 8), -128);
  EXPECT_EQ(Apply(AluOp::kMul, -128, -1, 0, 8), -128);
  EXPECT_EQ(Apply(AluOp::kMulShr, -128, -128, 0, 8), 127);
  EXPECT_EQ(Apply(AluOp::kAdd, 32767, 1, 0, 16), -32768);
  EXPECT_EQ(Apply(AluOp::kShr, -32768, 15, 0, 16), -1);
  EXPECT_EQ(Apply(AluOp::kMulShr, 32767, 32767, 15, 16), 32766);
}

TEST(Alu, RequantizeMatchesTheSequence) {
  // acc 1000 + bias 24 = 1024; * 2^30 >> 36 = 1024 / 64 = 16; relu bounds [0, 127].
  EXPECT_EQ(Requantize(1000, 24, int64_t{1} << 30, 36, 0, 127, 32), 16);
  EXPECT_EQ(Requantize(-1000, -24, int64_t{1} << 30, 36, 0, 127, 32), 0);
  EXPECT_EQ(Requantize(kMax32, 0, kMax32, 20, -128, 127, 32), 127);
}

}  // namespace
}  // namespace tessera::alu
