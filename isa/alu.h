// Exact integer arithmetic of the ALU, shared by every engine (reference and
// cycle simulators, RTL checks) and by the compiler's int8 reference executor
// and quantizer, so requantization on the host and on the accelerator agree
// bit for bit. All values are held in int64_t; `bits` is the accumulator width.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "isa/isa.h"

namespace tessera::alu {

// Two's-complement wrap of v to `bits` (sign-extends the low bits).
inline int64_t Wrap(int64_t v, int bits) {
  const int sh = 64 - bits;
  return static_cast<int64_t>(static_cast<uint64_t>(v) << sh) >> sh;
}

// Saturate v to the signed range of `bits`.
inline int64_t Saturate(int64_t v, int bits) {
  const int64_t hi = (int64_t{1} << (bits - 1)) - 1;
  return std::clamp(v, -hi - 1, hi);
}

// Arithmetic shift right by s in [0, 63], rounding to nearest with ties
// toward +infinity: floor(v / 2^s + 1/2). Never overflows.
inline int64_t RoundShiftRight(int64_t v, int s) {
  if (s <= 0) return v;
  if (s > 63) s = 63;
  return (v >> s) + ((v >> (s - 1)) & 1);
}

// SHR semantics: b >= 0 rounds right by b (capped at 63); b < 0 shifts left
// by -b with wrap.
inline int64_t Shift(int64_t x, int64_t b, int bits) {
  if (b >= 0) return Wrap(RoundShiftRight(x, static_cast<int>(std::min<int64_t>(b, 63))), bits);
  const int64_t l = -b;
  if (l >= 64) return 0;
  return Wrap(static_cast<int64_t>(static_cast<uint64_t>(x) << l), bits);
}

// MULSHR semantics: the 64-bit product, rounded right by s in [0, 63],
// saturated to `bits`. For bits <= 32 the product of two in-range values
// cannot overflow int64.
inline int64_t MulShr(int64_t x, int64_t m, int s, int bits) { return Saturate(RoundShiftRight(x * m, s), bits); }

// MULSHRC: MULSHR by the immediate's `shift`, then the clamp to
// [lo, 2^c - 1] with lo = 0 when `relu` is set, else -2^c (isa.def's
// TSR_ALU_IMM_FIELD rows place shift, c and relu in the immediate).
inline int64_t MulShrClip(int64_t x, int64_t m, int64_t imm, int bits) {
  const int64_t v = MulShr(x, m, static_cast<int>(AluImmGet(AluImmField::kShift, imm)), bits);
  const int64_t hi = (int64_t{1} << AluImmGet(AluImmField::kClipBits, imm)) - 1;
  return std::clamp(v, AluImmGet(AluImmField::kRelu, imm) ? int64_t{0} : -hi - 1, hi);
}

// The MULSHRC immediate for a MULSHR by `shift` followed by a clamp to
// [lo, hi], if one instruction can express that clamp.
inline std::optional<int64_t> MulShrClipImm(int64_t shift, int64_t lo, int64_t hi) {
  if (shift < 0 || shift > AluImmMax(AluImmField::kShift)) return std::nullopt;
  for (int64_t c = 0; c <= AluImmMax(AluImmField::kClipBits); ++c) {
    if (hi != (int64_t{1} << c) - 1 || (lo != -hi - 1 && lo != 0)) continue;
    return AluImmPut(AluImmField::kShift, shift) | AluImmPut(AluImmField::kClipBits, c) |
           AluImmPut(AluImmField::kRelu, lo == 0 ? 1 : 0);
  }
  return std::nullopt;
}

// One lane of an ALU operation. `b` is the immediate or the source lane;
// `imm` is the instruction's immediate (MULSHR's shift). Inputs are in range
// of `bits`; the result is too.
inline int64_t Apply(AluOp op, int64_t dst, int64_t b, int64_t imm, int bits) {
  switch (op) {
    case AluOp::kMin: return std::min(dst, b);
    case AluOp::kMax: return std::max(dst, b);
    case AluOp::kAdd: return Wrap(dst + b, bits);
    case AluOp::kShr: return Shift(dst, b, bits);
    case AluOp::kMul: return Wrap(static_cast<int64_t>(static_cast<uint64_t>(dst) * static_cast<uint64_t>(b)), bits);
    case AluOp::kMulShr: return MulShr(dst, b, static_cast<int>(imm), bits);
    case AluOp::kClip: return std::min(std::max(dst, -b - 1), b);
    case AluOp::kMov: return b;
    case AluOp::kMulShrClip: return MulShrClip(dst, b, imm, bits);
  }
  return dst;
}

// Requantization as the accelerator performs it for one value:
//   y = clamp(MULSHR(acc + bias, multiplier, shift), lo, hi)
// (ALU sequence: ADD bias; MULSHR multiplier, shift; MAX lo; MIN hi).
inline int64_t Requantize(int64_t acc, int64_t bias, int64_t multiplier, int shift, int64_t lo, int64_t hi, int bits) {
  int64_t v = Apply(AluOp::kAdd, acc, bias, 0, bits);
  v = Apply(AluOp::kMulShr, v, multiplier, shift, bits);
  v = Apply(AluOp::kMax, v, lo, 0, bits);
  return Apply(AluOp::kMin, v, hi, 0, bits);
}

// Requantization to a result with zero point zp (asymmetric int8):
//   y = clamp(MULSHR(acc + bias, multiplier, shift) + zp, lo, hi)
// (ALU sequence: ADD bias; MULSHR; ADD zp (immediate); MAX lo; MIN hi).
inline int64_t RequantizeZp(int64_t acc, int64_t bias, int64_t multiplier, int shift, int64_t zp, int64_t lo,
                            int64_t hi, int bits) {
  int64_t v = Apply(AluOp::kAdd, acc, bias, 0, bits);
  v = Apply(AluOp::kMulShr, v, multiplier, shift, bits);
  v = Apply(AluOp::kAdd, v, zp, 0, bits);
  v = Apply(AluOp::kMax, v, lo, 0, bits);
  return Apply(AluOp::kMin, v, hi, 0, bits);
}

}  // namespace tessera::alu
