// Real-valued rescale factors as the accelerator applies them: an int32
// multiplier M and a right shift s with r ~= M / 2^s, used through
// MULSHR (isa/alu.h). One shift serves all channels of a layer (it is an
// instruction immediate); the multipliers may differ per channel.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/base/status.h"

namespace tessera::quant {

struct FixedPoint {
  std::vector<int64_t> multiplier;  // each in [1, 2^31)
  int shift = 0;                    // in [0, 63]
};

// Picks the shift that puts the largest multiplier in [2^30, 2^31), then
// M[c] = round_half_away(r[c] * 2^shift) (at least 1). Fails when a factor
// is not positive and finite or the largest needs a negative shift
// (r >= 2^31). Factors below 2^-32 lose relative precision (shift caps at 63).
StatusOr<FixedPoint> ChooseFixedPoint(const std::vector<double>& real);

// The real factor a multiplier/shift pair stands for.
double FixedPointValue(int64_t multiplier, int shift);

// qadd parameters for y = (sa * a + sb * b) / sy with a common post shift k:
// t = MULSHR(a, Ma, na) + MULSHR(b, Mb, nb) is (sa/sy) a + (sb/sy) b in units
// of 2^-k, and y = SHR(t, k). k is the largest value <= 20 that keeps
// |t| < 2^30 for int8 operands.
struct AddFixedPoint {
  int64_t multiplier[2];
  int shift[2];
  int post_shift;
};
StatusOr<AddFixedPoint> ChooseAddFixedPoint(double ratio_a, double ratio_b);

}  // namespace tessera::quant
