// Type inference for the accelerator's quantized ops (qconv, qmatmul,
// qbatch_matmul, qadd, qmul, qavg_pool, requantize): int8 activations (zero
// point 0; qconv/qmatmul: any per-tensor zero point on input and result),
// symmetric int8 weights, int32 bias, fixed-point requantization attributes;
// their exact per-element arithmetic is specified in docs/quantization.md and
// runs as isa/alu.h primitives. Plus the boundary ops quantize, dequantize and
// quant_cast. The ONNX-semantics CPU ops are in ops_qlinear.cc.
#include <algorithm>
#include <cstdlib>

#include "compiler/ir/ops_util.h"
#include "compiler/quant/alu_program.h"

namespace tessera::ir::opdefs {
namespace {

// Accumulation bound: K * 128 * 128 stays below 2^31, so int32 sums of int8
// products never wrap (docs/quantization.md).
constexpr int64_t kMaxReduction = 131071;
// With an input zero point |x - zx| <= 255: K * 255 * 128 < 2^31.
constexpr int64_t kMaxReductionZp = 65793;

int64_t MaxReduction(const Node& n) { return In(n, 0).quant->symmetric() ? kMaxReduction : kMaxReductionZp; }

Status ExpectQuantized(const Node& n, int i) {
  if (!In(n, i).quant) return NodeError(n, "{} must be quantized", Operand(n, i));
  return OkStatus();
}

Status ExpectWeights(const Node& n, int i, int64_t channels) {
  const TensorType& w = In(n, i);
  if (w.dtype != DType::kI8 || !w.quant || !w.quant->symmetric() || (w.quant->per_axis() && w.quant->axis != 0))
    return NodeError(n, "{} must be i8 weights quantized per-tensor or along axis 0 with zero point 0", Operand(n, i));
  if (w.shape.empty() || w.shape[0] != channels)
    return NodeError(n, "{} must have {} output channels", Operand(n, i), channels);
  return OkStatus();
}

// A requantize's multipliers `m` in (0, 2^31), shift in [0, 63], act_min <= act_max within [lo, hi].
Status CheckMultipliersShiftBounds(const Node& n, const std::vector<int64_t>& m, int64_t lo = -128, int64_t hi = 127) {
  for (int64_t v : m)
    if (v <= 0 || v > INT32_MAX) return NodeError(n, "multiplier {} out of range (0, 2^31)", v);
  const int64_t s = n.attrs().Int("shift");
  if (s < 0 || s > 63) return NodeError(n, "shift {} out of range [0, 63]", s);
  const int64_t amin = n.attrs().Int("act_min", lo), amax = n.attrs().Int("act_max", hi);
  if (amin < lo || amax > hi || amin > amax)
    return NodeError(n, "activation bounds [{}, {}] must lie within [{}, {}]", amin, amax, lo, hi);
  return OkStatus();
}

// The attribute 'multiplier' has 1 or `channels` entries.
Status CheckRequant(const Node& n, int64_t channels, int64_t lo = -128, int64_t hi = 127) {
  std::vector<int64_t> m = n.attrs().Ints("multiplier");
  if (m.size() != 1 && static_cast<int64_t>(m.size()) != channels)
    return NodeError(n, "attribute 'multiplier' needs 1 or {} entries, got {}", channels, m.size());
  return CheckMultipliersShiftBounds(n, m, lo, hi);
}

// The same for ops whose multiplier is one int attribute (qmul, qhard_sigmoid, qhard_swish).
Status CheckScalarRequant(const Node& n) { return CheckMultipliersShiftBounds(n, {n.attrs().Int("multiplier")}); }

Status InferQuantize(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  TensorType& o = (*out)[0];
  if (!o.quant || (o.dtype != DType::kI8 && o.dtype != DType::kU8 && o.dtype != DType::kI32))
    return NodeError(n, "result '%{}' must be declared as a quantized i8, u8 or i32 type", n.output(0)->name());
  o.shape = In(n, 0).shape;
  return OkStatus();
}

Status InferDequantize(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectQuantized(n, 0));
  (*out)[0] = TensorType(DType::kF32, In(n, 0).shape);
  return OkStatus();
}

Status InferQuantCast(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  TensorType& o = (*out)[0];
  if (!IsInt8(x.dtype) && x.dtype != DType::kI32) return NodeError(n, "{} must be i8, u8 or i32", Operand(n, 0));
  if (o.dtype != x.dtype || !o.quant)
    return NodeError(n, "result '%{}' must be declared {} with quantization parameters", n.output(0)->name(),
                     DTypeName(x.dtype));
  o.shape = x.shape;
  return OkStatus();
}

Status InferQConv(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectPerTensorI8(n, 0));
  Shape o;
  TSR_RETURN_IF_ERROR(ConvShape(n, &o));
  const Shape& w = In(n, 1).shape;
  TSR_RETURN_IF_ERROR(ExpectWeights(n, 1, w[0]));
  TSR_RETURN_IF_ERROR(ExpectBias(n, 2, w[0]));
  if (w[1] * w[2] * w[3] > MaxReduction(n))
    return NodeError(n, "reduction length {} exceeds {}", w[1] * w[2] * w[3], MaxReduction(n));
  TSR_RETURN_IF_ERROR(CheckRequant(n, w[0]));
  TSR_RETURN_IF_ERROR(ExpectDeclaredPerTensorI8(n, *out, 0));
  (*out)[0].shape = o;
  return OkStatus();
}

Status InferQMatMul(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectPerTensorI8(n, 0));
  const Shape& x = In(n, 0).shape;
  TSR_RETURN_IF_ERROR(ExpectRank(n, 1, 2));
  const Shape& w = In(n, 1).shape;
  if (x.size() < 2) return NodeError(n, "{} must have rank >= 2", Operand(n, 0));
  TSR_RETURN_IF_ERROR(ExpectWeights(n, 1, w[0]));
  if (x.back() != w[1])
    return NodeError(n, "{} has inner size {}, weight [N, K] {} has K = {}", Operand(n, 0), x.back(), ShapeToString(w),
                     w[1]);
  if (w[1] > MaxReduction(n)) return NodeError(n, "reduction length {} exceeds {}", w[1], MaxReduction(n));
  TSR_RETURN_IF_ERROR(ExpectBias(n, 2, w[0]));
  TSR_RETURN_IF_ERROR(CheckRequant(n, w[0]));
  TSR_RETURN_IF_ERROR(ExpectDeclaredPerTensorI8(n, *out, 0));
  Shape o = x;
  o.back() = w[0];
  (*out)[0].shape = o;
  return OkStatus();
}

Status InferQAdd(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 0));
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 1));
  if (In(n, 0).shape != In(n, 1).shape)
    return NodeError(n, "operand shapes differ: {} and {}", Operand(n, 0), Operand(n, 1));
  std::vector<int64_t> m = n.attrs().Ints("multiplier"), s = n.attrs().Ints("shift");
  if (m.size() != 2 || s.size() != 2) return NodeError(n, "attributes 'multiplier' and 'shift' need 2 entries");
  for (int i = 0; i < 2; ++i) {
    if (m[i] <= 0 || m[i] > INT32_MAX) return NodeError(n, "multiplier {} out of range (0, 2^31)", m[i]);
    if (s[i] < 0 || s[i] > 63) return NodeError(n, "shift {} out of range [0, 63]", s[i]);
  }
  const int64_t ps = n.attrs().Int("post_shift");
  if (ps < 0 || ps > 31) return NodeError(n, "post_shift {} out of range [0, 31]", ps);
  const int64_t amin = n.attrs().Int("act_min", -128), amax = n.attrs().Int("act_max", 127);
  if (amin < -128 || amax > 127 || amin > amax)
    return NodeError(n, "activation bounds [{}, {}] must lie within [-128, 127]", amin, amax);
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  (*out)[0].shape = In(n, 0).shape;
  return OkStatus();
}

// y = clamp(MULSHR(a * b, multiplier, shift)); b is a's shape or one value per
// (image, channel) of a rank-4 a (the SE block's per-channel scale).
Status InferQMul(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 0));
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 1));
  const Shape& a = In(n, 0).shape;
  const Shape& b = In(n, 1).shape;
  if (a != b && !IsPerChannelOf(b, a))
    return NodeError(n, "operand {} is neither {}'s shape nor [N, C, 1, 1] of it", Operand(n, 1), Operand(n, 0));
  TSR_RETURN_IF_ERROR(CheckScalarRequant(n));
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  (*out)[0].shape = a;
  return OkStatus();
}

// y[..., M, N] = clamp(MULSHR(a[..., M, K] x b[..., K, N], multiplier, shift)):
// a product of two activations (attention's Q K^T and P V), one product per
// index of the shared leading dimensions.
Status InferQBatchMatMul(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 0));
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 1));
  const Shape& a = In(n, 0).shape;
  const Shape& b = In(n, 1).shape;
  if (a.size() < 2 || a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin()) ||
      a[a.size() - 1] != b[b.size() - 2])
    return NodeError(n, "operands {} and {} are not [..., M, K] and [..., K, N] with the same leading dimensions",
                     Operand(n, 0), Operand(n, 1));
  if (a.back() > kMaxReduction) return NodeError(n, "reduction length {} exceeds {}", a.back(), kMaxReduction);
  TSR_RETURN_IF_ERROR(CheckRequant(n, 1));
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  Shape o = a;
  o.back() = b.back();
  (*out)[0].shape = o;
  return OkStatus();
}

// qhard_sigmoid / qhard_swish: the ALU programs of compiler/quant/alu_program.h.
Status InferQHardAct(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 0));
  const int64_t k = n.attrs().Int("frac_bits"), limit = n.attrs().Int("limit"), offset = n.attrs().Int("offset");
  if (k < 0 || k > 8) return NodeError(n, "frac_bits {} out of range [0, 8]", k);
  if (limit < 1 || limit > quant::kHardActBound || std::abs(offset) > quant::kHardActBound)
    return NodeError(n, "limit {} or offset {} out of range (|value| <= 2^23, limit >= 1)", limit, offset);
  TSR_RETURN_IF_ERROR(CheckScalarRequant(n));
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  (*out)[0].shape = In(n, 0).shape;
  return OkStatus();
}

Status InferQAvgPool(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectSymmetricI8(n, 0));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 4));
  Window2D win;
  TSR_RETURN_IF_ERROR(ReadWindow(n, true, &win));
  if (win.kernel[0] * win.kernel[1] > (1 << 23)) return NodeError(n, "window too large");
  const Shape& x = In(n, 0).shape;
  int64_t oh, ow;
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 0, x[2], &oh));
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 1, x[3], &ow));
  TSR_RETURN_IF_ERROR(CheckRequant(n, 1));
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  (*out)[0].shape = {x[0], x[1], oh, ow};
  return OkStatus();
}

Status InferRequantize(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  if ((x.dtype != DType::kI8 && x.dtype != DType::kI32) || !x.quant || !x.quant->symmetric())
    return NodeError(n, "{} must be i8 or i32 quantized with zero point 0", Operand(n, 0));
  TSR_RETURN_IF_ERROR(CheckRequant(n, x.rank() >= 2 ? x.shape[1] : 1));
  TSR_RETURN_IF_ERROR(ExpectDeclaredSymmetricI8(n, *out, 0));
  (*out)[0].shape = x.shape;
  return OkStatus();
}

}  // namespace

void RegisterQuantOps(std::vector<OpDef>* ops) {
  const auto [strides, pads, dil, group] = ConvAttrDefs{};
  const AttrDef mult{"multiplier", AttrKind::kInts, true}, shift{"shift", AttrKind::kInt, true},
      amin{"act_min", AttrKind::kInt}, amax{"act_max", AttrKind::kInt};
  ops->push_back({"quantize",
                  1,
                  1,
                  1,
                  {},
                  InferQuantize,
                  "f32 -> declared quantized type: saturate(round_half_even(x / scale) + zero_point)"});
  ops->push_back({"dequantize", 1, 1, 1, {}, InferDequantize, "quantized -> f32: (x - zero_point) * scale"});
  ops->push_back(
      {"quant_cast", 1, 1, 1, {}, InferQuantCast, "same integers, new quantization parameters (no data change)"});
  ops->push_back({"qconv",
                  2,
                  3,
                  1,
                  {strides, pads, dil, group, mult, shift, amin, amax},
                  InferQConv,
                  "int8 conv of (x - zx), int32 accumulate + bias, per-channel MULSHR requantize, + zy, clamp"});
  ops->push_back({"qmatmul",
                  2,
                  3,
                  1,
                  {mult, shift, amin, amax},
                  InferQMatMul,
                  "int8 (x[..., K] - zx) times w[N, K]^T, int32 accumulate + bias, MULSHR requantize, + zy, clamp"});
  ops->push_back({"qbatch_matmul",
                  2,
                  2,
                  1,
                  {mult, shift, amin, amax},
                  InferQBatchMatMul,
                  "int8 a[..., M, K] times b[..., K, N] (two activations), int32 accumulate, MULSHR, clamp"});
  ops->push_back({"qadd",
                  2,
                  2,
                  1,
                  {{"multiplier", AttrKind::kInts, true},
                   {"shift", AttrKind::kInts, true},
                   {"post_shift", AttrKind::kInt, true},
                   amin,
                   amax},
                  InferQAdd,
                  "int8 add of two scales: MULSHR each, ADD, SHR post_shift, clamp"});
  ops->push_back({"qmul",
                  2,
                  2,
                  1,
                  {{"multiplier", AttrKind::kInt, true}, {"shift", AttrKind::kInt, true}, amin, amax},
                  InferQMul,
                  "int8 product a * b (b: a's shape or [N, C, 1, 1]), MULSHR requantize, clamp"});
  const std::vector<AttrDef> hard = {{"frac_bits", AttrKind::kInt, true},
                                     {"offset", AttrKind::kInt, true},
                                     {"limit", AttrKind::kInt, true},
                                     {"multiplier", AttrKind::kInt, true},
                                     {"shift", AttrKind::kInt, true},
                                     amin,
                                     amax};
  ops->push_back({"qhard_sigmoid", 1, 1, 1, hard, InferQHardAct,
                  "int8 clamp(alpha x + beta, 0, 1): t = clamp((x << frac_bits) + offset, 0, limit), MULSHR, clamp"});
  ops->push_back(
      {"qhard_swish", 1, 1, 1, hard, InferQHardAct, "int8 x * hard_sigmoid(x): the same t, MUL by x, MULSHR, clamp"});
  ops->push_back({"qavg_pool",
                  1,
                  1,
                  1,
                  {{"kernel", AttrKind::kInts, true}, strides, pads, mult, shift},
                  InferQAvgPool,
                  "int8 window sum (zero padding counted), MULSHR by 1/count, clamp"});
  ops->push_back({"requantize",
                  1,
                  1,
                  1,
                  {mult, shift, amin, amax},
                  InferRequantize,
                  "clamp(MULSHR(x, multiplier[c], shift), act_min, act_max) to i8"});
}

}  // namespace tessera::ir::opdefs
