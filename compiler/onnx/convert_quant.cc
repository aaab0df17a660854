// Converters for QDQ and QOperator ops. Scales and zero points must be
// constants; they become quantization parameters on IR types. QLinearConv and
// QLinearMatMul become the accelerator ops qconv / qmatmul when the operands
// are int8 with zero point 0 (weights symmetric, per-tensor or per output
// channel) and the rescale fits a 32-bit multiplier; otherwise they keep ONNX
// semantics as the CPU ops qlinear_conv / qlinear_matmul.
#include <iterator>

#include "compiler/onnx/context.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;
using ir::DType;

struct QInfo {
  ir::QuantParams q;
  DType dtype;
};

// Scale input `si` and optional zero point `zi` for a tensor of rank `rank`,
// per-axis along `axis` when the scale has more than one element.
StatusOr<QInfo> ReadQParams(ImportContext& ctx, const onnx::NodeProto& n, int si, int zi, const ir::Shape& shape,
                            int64_t axis, DType default_type) {
  TSR_ASSIGN_OR_RETURN(const ir::Tensor* s, ctx.ConstInput(n, si, "scale"));
  if (s->dtype() != DType::kF32) return ctx.Error(n, "scale '{}' must be float", n.input(si));
  if (s->rank() > 1) return ctx.Error(n, "scale '{}' must be a scalar or 1-D", n.input(si));
  QInfo info{{}, default_type};
  for (int64_t i = 0; i < s->numel(); ++i) info.q.scale.push_back(s->data<float>()[i]);
  if (ctx.HasInput(n, zi)) {
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* z, ctx.ConstInput(n, zi, "zero point"));
    if (z->numel() != s->numel()) return ctx.Error(n, "zero point '{}' and scale differ in length", n.input(zi));
    if (z->dtype() == DType::kF32 || z->dtype() == DType::kI64)
      return ctx.Unsupported(n, "zero point '{}' of type {} is not supported", n.input(zi), ir::DTypeName(z->dtype()));
    info.dtype = z->dtype();
    for (int64_t i = 0; i < z->numel(); ++i) info.q.zero_point.push_back(static_cast<int32_t>(z->GetAsDouble(i)));
  } else {
    info.q.zero_point.assign(info.q.scale.size(), 0);
  }
  if (s->numel() > 1) {
    const int r = static_cast<int>(shape.size());
    if (axis < -r || axis >= r) return ctx.Error(n, "axis {} out of range for rank {}", axis, r);
    info.q.axis = static_cast<int>(axis < 0 ? axis + r : axis);
  }
  ir::TensorType t(info.dtype, shape, info.q);
  Status v = ir::ValidateQuant(t, fmt::format("quantization of '{}'", n.input(0)));
  if (!v.ok()) return ctx.Error(n, "{}", v.message());
  return info;
}

Status ConvertQuantizeLinear(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t axis = ar.Int("axis", 1);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(QInfo qi, ReadQParams(ctx, n, 1, 2, x->type().shape, axis, DType::kU8));
  return ctx.Emit(n, "quantize", {x}, {}, {ir::TensorType(qi.dtype, x->type().shape, qi.q)}).status();
}

Status ConvertDequantizeLinear(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t axis = ar.Int("axis", 1);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(QInfo qi, ReadQParams(ctx, n, 1, 2, x->type().shape, axis, x->type().dtype));
  if (ctx.HasInput(n, 2) && qi.dtype != x->type().dtype)
    return ctx.Error(n, "zero point type {} differs from the input type {}", ir::DTypeName(qi.dtype),
                     ir::DTypeName(x->type().dtype));
  TSR_ASSIGN_OR_RETURN(ir::Value * xq, ctx.WithQuant(n, x, qi.q));
  return ctx.Emit(n, "dequantize", {xq}, {}).status();
}

bool SymmetricI8(const ir::Value* v) {
  return v->type().dtype == DType::kI8 && v->type().quant && v->type().quant->symmetric();
}

// Fixed-point multipliers for real factors sx * sw[c] / sy.
StatusOr<quant::FixedPoint> Multipliers(const ir::QuantParams& xq, const ir::QuantParams& wq, const ir::QuantParams& yq,
                                        int64_t channels) {
  std::vector<double> real;
  for (int64_t c = 0; c < channels; ++c)
    real.push_back(double(xq.scale[0]) * wq.scale[wq.per_axis() ? c : 0] / yq.scale[0]);
  return quant::ChooseFixedPoint(real);
}

Status ConvertQLinearConv(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 3));
  Attrs a;
  TSR_RETURN_IF_ERROR(ReadConvAttrs(ctx, n, ar, x, w, &a));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(QInfo xi, ReadQParams(ctx, n, 1, 2, x->type().shape, 1, x->type().dtype));
  TSR_ASSIGN_OR_RETURN(QInfo wi, ReadQParams(ctx, n, 4, 5, w->type().shape, 0, w->type().dtype));
  TSR_ASSIGN_OR_RETURN(QInfo yi, ReadQParams(ctx, n, 6, 7, {}, 0, DType::kU8));
  if (xi.q.per_axis() || yi.q.per_axis()) return ctx.Unsupported(n, "per-axis activation scales are not supported");
  if (xi.dtype != x->type().dtype || wi.dtype != w->type().dtype)
    return ctx.Error(n, "zero point types must match their operands");
  TSR_ASSIGN_OR_RETURN(ir::Value * xq, ctx.WithQuant(n, x, xi.q));
  TSR_ASSIGN_OR_RETURN(ir::Value * wq, ctx.WithQuant(n, w, wi.q));
  std::vector<ir::Value*> ins = {xq, wq};
  TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 8, &ins));
  const bool accel = SymmetricI8(xq) && SymmetricI8(wq) && yi.dtype == DType::kI8 && yi.q.symmetric();
  if (accel) {
    auto fp = Multipliers(xi.q, wi.q, yi.q, w->type().shape[0]);
    if (fp.ok()) {
      a.Set("multiplier", fp->multiplier);
      a.Set("shift", static_cast<int64_t>(fp->shift));
      return ctx.Emit(n, "qconv", ins, a, {ir::TensorType(DType::kI8, {}, yi.q)}).status();
    }
  }
  return ctx.Emit(n, "qlinear_conv", ins, a, {ir::TensorType(yi.dtype, {}, yi.q)}).status();
}

Status ConvertQLinearMatMul(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 3));
  TSR_ASSIGN_OR_RETURN(QInfo xi, ReadQParams(ctx, n, 1, 2, x->type().shape, 0, x->type().dtype));
  TSR_ASSIGN_OR_RETURN(QInfo wi, ReadQParams(ctx, n, 4, 5, w->type().shape, -1, w->type().dtype));
  TSR_ASSIGN_OR_RETURN(QInfo yi, ReadQParams(ctx, n, 6, 7, {}, 0, DType::kU8));
  if (xi.q.per_axis() || yi.q.per_axis()) return ctx.Unsupported(n, "per-axis activation scales are not supported");
  if (xi.dtype != x->type().dtype || wi.dtype != w->type().dtype)
    return ctx.Error(n, "zero point types must match their operands");
  TSR_ASSIGN_OR_RETURN(ir::Value * xq, ctx.WithQuant(n, x, xi.q));
  TSR_ASSIGN_OR_RETURN(ir::Value * wq, ctx.WithQuant(n, w, wi.q));
  const bool accel = SymmetricI8(xq) && xq->type().rank() >= 2 && SymmetricI8(wq) && wq->is_constant() &&
                     wq->type().rank() == 2 && yi.dtype == DType::kI8 && yi.q.symmetric();
  if (accel) {
    // qmatmul keeps weights as [N, K] (output channels first), quantized along axis 0.
    const int64_t k = w->type().shape[0], nn = w->type().shape[1];
    auto fp = Multipliers(xi.q, wi.q, yi.q, nn);
    if (fp.ok()) {
      ir::Tensor wt(DType::kI8, {nn, k});
      const int8_t* src = w->data().data<int8_t>();
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < nn; ++j) wt.data<int8_t>()[j * k + i] = src[i * nn + j];
      ir::QuantParams tq = wi.q;
      if (tq.per_axis()) tq.axis = 0;
      ir::Value* wtv = ctx.graph().AddConstant(ctx.NewName(w->name() + ".t"), std::move(wt), tq);
      Attrs a;
      a.Set("multiplier", fp->multiplier);
      a.Set("shift", static_cast<int64_t>(fp->shift));
      return ctx.Emit(n, "qmatmul", {xq, wtv}, a, {ir::TensorType(DType::kI8, {}, yi.q)}).status();
    }
  }
  return ctx.Emit(n, "qlinear_matmul", {xq, wq}, {}, {ir::TensorType(yi.dtype, {}, yi.q)}).status();
}

// Zero point operand i as integers (absent: 0).
StatusOr<std::vector<int64_t>> ZeroPoints(ImportContext& ctx, const onnx::NodeProto& n, int i) {
  if (!ctx.HasInput(n, i)) return std::vector<int64_t>{0};
  return ctx.ConstInts(n, i, "zero point");
}

Status ConvertConvInteger(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 1));
  Attrs a;
  TSR_RETURN_IF_ERROR(ReadConvAttrs(ctx, n, ar, x, w, &a));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(auto xz, ZeroPoints(ctx, n, 2));
  TSR_ASSIGN_OR_RETURN(auto wz, ZeroPoints(ctx, n, 3));
  if (xz.size() != 1) return ctx.Unsupported(n, "a per-channel x_zero_point is not supported");
  a.Set("x_zero_point", xz[0]);
  a.Set("w_zero_point", wz);
  return ctx.Emit(n, "conv_integer", {x, w}, a).status();
}

Status ConvertMatMulInteger(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 1));
  TSR_ASSIGN_OR_RETURN(auto az, ZeroPoints(ctx, n, 2));
  TSR_ASSIGN_OR_RETURN(auto bz, ZeroPoints(ctx, n, 3));
  if (az.size() != 1) return ctx.Unsupported(n, "a per-row a_zero_point is not supported");
  Attrs a;
  a.Set("a_zero_point", az[0]);
  a.Set("b_zero_point", bz);
  return ctx.Emit(n, "matmul_integer", {x, w}, a).status();
}

// com.microsoft QLinearAdd (ONNX Runtime's QOperator add, e.g. the residual
// adds of its quantized ResNets): C = quantize(dequantize(A) + dequantize(B))
// at C's scale and zero point, numpy broadcasting. Imported in that QDQ form,
// so fold-qdq treats it as any QDQ add: `qadd` on the accelerator when A, B
// and C have zero point 0 (int8, or uint8 at 128 after the int8 retype) and
// one shape; otherwise a float add on the CPU between dequantize and quantize.
// That is the ONNX float formula, which ONNX Runtime's scalar fallback
// computes; its SIMD kernels (22-bit fixed-point multipliers,
// MlasCalcQLinearAddParameters) may differ from it by 1 LSB.
Status ConvertQLinearAdd(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  ir::Value* dq[2];
  for (int k = 0; k < 2; ++k) {
    TSR_ASSIGN_OR_RETURN(ir::Value * v, ctx.Input(n, 3 * k));
    TSR_ASSIGN_OR_RETURN(QInfo vi, ReadQParams(ctx, n, 3 * k + 1, 3 * k + 2, v->type().shape, 0, v->type().dtype));
    if (vi.q.per_axis()) return ctx.Unsupported(n, "per-axis scales are not supported");
    if (vi.dtype != v->type().dtype) return ctx.Error(n, "zero point types must match their operands");
    TSR_ASSIGN_OR_RETURN(ir::Value * vq, ctx.WithQuant(n, v, vi.q));
    TSR_ASSIGN_OR_RETURN(dq[k], ctx.EmitInternal(n, "dequantize", {vq}, {}, v->name() + ".dq"));
  }
  TSR_ASSIGN_OR_RETURN(ir::Value * a, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(QInfo ci, ReadQParams(ctx, n, 6, 7, {}, 0, a->type().dtype));
  if (ci.q.per_axis()) return ctx.Unsupported(n, "per-axis scales are not supported");
  TSR_ASSIGN_OR_RETURN(ir::Value * sum, ctx.EmitInternal(n, "add", {dq[0], dq[1]}, {}, n.output(0) + ".sum"));
  return ctx.Emit(n, "quantize", {sum}, {}, {ir::TensorType(ci.dtype, {}, ci.q)}).status();
}

const ConverterEntry kEntries[] = {
    {"QuantizeLinear", ConvertQuantizeLinear},
    {"DequantizeLinear", ConvertDequantizeLinear},
    {"QLinearConv", ConvertQLinearConv},
    {"QLinearMatMul", ConvertQLinearMatMul},
    {"ConvInteger", ConvertConvInteger},
    {"MatMulInteger", ConvertMatMulInteger},
    {"QLinearAdd", ConvertQLinearAdd, 0, "com.microsoft"},
};

}  // namespace

std::vector<ConverterEntry> QuantConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
