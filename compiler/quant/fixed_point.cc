#include "compiler/quant/fixed_point.h"

#include <algorithm>
#include <cmath>

namespace tessera::quant {

StatusOr<FixedPoint> ChooseFixedPoint(const std::vector<double>& real) {
  if (real.empty()) return InvalidArgumentError("no rescale factors");
  double hi = 0;
  for (double r : real) {
    if (!(r > 0) || !std::isfinite(r)) return InvalidArgumentError("rescale factor {} is not positive and finite", r);
    hi = std::max(hi, r);
  }
  int e;
  std::frexp(hi, &e);  // hi = f * 2^e, f in [0.5, 1)
  int shift = 31 - e;
  if (std::llround(std::ldexp(hi, shift)) >= (int64_t{1} << 31)) --shift;
  if (shift < 0) return InvalidArgumentError("rescale factor {} is too large for a 32-bit multiplier", hi);
  shift = std::min(shift, 63);
  FixedPoint fp;
  fp.shift = shift;
  for (double r : real) fp.multiplier.push_back(std::max<int64_t>(1, std::llround(std::ldexp(r, shift))));
  return fp;
}

double FixedPointValue(int64_t multiplier, int shift) { return std::ldexp(static_cast<double>(multiplier), -shift); }

StatusOr<AddFixedPoint> ChooseAddFixedPoint(double ratio_a, double ratio_b) {
  const double hi = std::max(ratio_a, ratio_b);
  if (!(ratio_a > 0) || !(ratio_b > 0) || !std::isfinite(hi))
    return InvalidArgumentError("add rescale factors {} and {} are not positive and finite", ratio_a, ratio_b);
  // 128 * hi * 2^k must stay below 2^29 so the sum of two terms is below 2^30.
  const int k = std::min(20, static_cast<int>(std::floor(std::log2(std::ldexp(1.0, 29) / (128 * hi)))));
  if (k < 0) return InvalidArgumentError("add rescale factor {} is too large", hi);
  AddFixedPoint out;
  out.post_shift = k;
  const double r[2] = {ratio_a, ratio_b};
  for (int i = 0; i < 2; ++i) {
    TSR_ASSIGN_OR_RETURN(FixedPoint fp, ChooseFixedPoint({std::ldexp(r[i], k)}));
    out.multiplier[i] = fp.multiplier[0];
    out.shift[i] = fp.shift;
  }
  return out;
}

}  // namespace tessera::quant
