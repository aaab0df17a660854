// Element-wise int8 functions as straight-line ALU programs: the one
// definition of their integer semantics. The int8 CPU reference runs a
// program with isa/alu.h per element; the accelerator's codegen emits the
// same steps as ALU instructions over accumulator tiles. A program works on
// one register t, which starts as the input x; a step computes
// t = op(t, b) with b an immediate (fits the 16-bit field), a parameter row
// (a broadcast accumulator row holding `value`) or the input x itself.
//   hard_sigmoid: t = MIN(MAX(ADD(SHL(x, k), offset), 0), limit)
//                 y = CLIP(MULSHR(t, M, s))            (MAX/MIN for act bounds)
//   hard_swish:   the same t, then y = CLIP(MULSHR(MUL(t, x), M, s))
//   requantize:   y = MIN(MAX(MULSHR(x, M, s), act_min), act_max)
// The final clamp is left out when no int8 input needs it.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/alu.h"
#include "isa/base/status.h"

namespace tessera::quant {

enum class AluSrc { kImm, kParam, kInput };

struct AluStep {
  AluOp op;
  AluSrc src;
  int64_t value = 0;  // the immediate or the parameter row's value (unused for kInput)
  int64_t shift = 0;  // MULSHR's shift (its instruction immediate)
};

using AluProgram = std::vector<AluStep>;

// The result for one input lane; the accumulator is 32 bits wide for int8 layers.
inline int64_t RunAluProgram(const AluProgram& p, int64_t x) {
  int64_t t = x;
  for (const AluStep& s : p) t = alu::Apply(s.op, t, s.src == AluSrc::kInput ? x : s.value, s.shift, 32);
  return t;
}

inline bool ReadsInput(const AluProgram& p) {
  for (const AluStep& s : p)
    if (s.src == AluSrc::kInput) return true;
  return false;
}

// An immediate when it fits the instruction's 16-bit field, else a parameter row.
inline AluStep ImmOrParam(AluOp op, int64_t v) {
  return {op, v >= -32768 && v <= 32767 ? AluSrc::kImm : AluSrc::kParam, v, 0};
}

// The final clamp to [lo, hi]: one CLIP when symmetric around -1/2, else MAX
// and MIN; nothing when no int8 input takes the program outside [lo, hi].
inline void AppendClamp(AluProgram* p, int64_t lo, int64_t hi) {
  bool needed = false;
  for (int64_t x = -128; x <= 127 && !needed; ++x) {
    const int64_t y = RunAluProgram(*p, x);
    needed = y < lo || y > hi;
  }
  if (!needed) return;
  if (lo == -hi - 1) {
    p->push_back(ImmOrParam(AluOp::kClip, hi));
  } else {
    p->push_back(ImmOrParam(AluOp::kMax, lo));
    p->push_back(ImmOrParam(AluOp::kMin, hi));
  }
}

// |limit| and |offset| of a hard activation stay within 2^23, so |x| 2^k +
// |offset| and |x| * limit stay below 2^30 in the 32-bit accumulator.
inline constexpr int64_t kHardActBound = int64_t{1} << 23;

// Integer parameters of qhard_sigmoid / qhard_swish (their IR attributes).
struct HardActParams {
  int64_t frac_bits = 0;  // k: t carries k fractional bits of x
  int64_t offset = 0;     // round(beta / (alpha * s_x) * 2^k)
  int64_t limit = 0;      // round(1 / (alpha * s_x) * 2^k)
  int64_t multiplier = 1;
  int64_t shift = 0;
  int64_t act_min = -128, act_max = 127;
};

// Integer parameters for y = g(x) with g(x) = clamp(alpha x + beta, 0, 1)
// (hard_sigmoid) or x g(x) (hard_swish), x and y symmetric int8 of scales
// s_x and s_y. With g = alpha clamp(x + beta/alpha, 0, 1/alpha), the gate t
// is that clamp in units of s_x / 2^k; k (<= 8) is the largest keeping
// `limit` within an immediate. Fails unless alpha > 0 and the factors have a
// fixed-point form.
StatusOr<HardActParams> ChooseHardAct(double alpha, double beta, double sx, double sy, bool swish);

inline AluProgram HardActProgram(const HardActParams& h, bool swish) {
  AluProgram p;
  if (swish) p.push_back({AluOp::kMov, AluSrc::kInput});
  if (h.frac_bits > 0) p.push_back({AluOp::kShr, AluSrc::kImm, -h.frac_bits});  // SHR by -k shifts left
  p.push_back(ImmOrParam(AluOp::kAdd, h.offset));
  p.push_back({AluOp::kMax, AluSrc::kImm, 0});
  p.push_back(ImmOrParam(AluOp::kMin, h.limit));
  if (swish) p.push_back({AluOp::kMul, AluSrc::kInput});
  p.push_back({AluOp::kMulShr, AluSrc::kParam, h.multiplier, h.shift});
  AppendClamp(&p, h.act_min, h.act_max);
  return p;
}

inline AluProgram RequantizeProgram(int64_t multiplier, int64_t shift, int64_t act_min, int64_t act_max) {
  AluProgram p = {{AluOp::kMulShr, AluSrc::kParam, multiplier, shift}};
  AppendClamp(&p, act_min, act_max);
  return p;
}

}  // namespace tessera::quant
