#include "compiler/quant/alu_program.h"

#include <cmath>

#include "compiler/quant/fixed_point.h"

namespace tessera::quant {

StatusOr<HardActParams> ChooseHardAct(double alpha, double beta, double sx, double sy, bool swish) {
  if (!(alpha > 0) || !std::isfinite(alpha) || !std::isfinite(beta) || !(sx > 0) || !(sy > 0))
    return InvalidArgumentError("hard activation alpha {} beta {} scales {} {} have no int8 form", alpha, beta, sx, sy);
  const double inv = 1 / (alpha * sx);  // the gate's full range in units of s_x
  int k = 8;
  while (k > 0 && std::ldexp(inv, k) > 32767) --k;
  HardActParams h;
  h.frac_bits = k;
  h.limit = std::llround(std::ldexp(inv, k));
  h.offset = std::llround(std::ldexp(beta * inv, k));
  if (h.limit < 1 || h.limit > kHardActBound || std::abs(h.offset) > kHardActBound)
    return InvalidArgumentError("hard activation gate range {} (input scale {}) has no int8 form", inv, sx);
  const double r = (swish ? alpha * sx * sx : alpha * sx) / (std::ldexp(1.0, k) * sy);
  TSR_ASSIGN_OR_RETURN(FixedPoint fp, ChooseFixedPoint({r}));
  h.multiplier = fp.multiplier[0];
  h.shift = fp.shift;
  return h;
}

}  // namespace tessera::quant
