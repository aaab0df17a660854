// Type inference for the ONNX-semantics quantized CPU ops (qlinear_conv,
// qlinear_matmul, conv_integer, matmul_integer): zero points or types the
// accelerator cannot take, run by the CPU reference only.
#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

// ONNX QLinearConv / QLinearMatMul semantics: zero points and scales come
// from the operand types, the result type is declared.
Status ExpectQLinearOperand(const Node& n, int i, bool allow_axis, int axis) {
  const TensorType& t = In(n, i);
  if (!IsInt8(t.dtype) || !t.quant) return NodeError(n, "{} must be quantized i8 or u8", Operand(n, i));
  if (t.quant->per_axis() && (!allow_axis || t.quant->axis != axis))
    return NodeError(n, "{} has unsupported quantization axis {}", Operand(n, i), t.quant->axis);
  return OkStatus();
}

Status InferQLinearConv(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectQLinearOperand(n, 0, false, 0));
  TSR_RETURN_IF_ERROR(ExpectQLinearOperand(n, 1, true, 0));
  Shape o;
  TSR_RETURN_IF_ERROR(ConvShape(n, &o));
  TSR_RETURN_IF_ERROR(ExpectBias(n, 2, In(n, 1).shape[0]));
  const TensorType& r = (*out)[0];
  if (!IsInt8(r.dtype) || !r.quant || r.quant->per_axis())
    return NodeError(n, "result '%{}' must be declared i8 or u8 quantized per-tensor", n.output(0)->name());
  (*out)[0].shape = o;
  return OkStatus();
}

Status InferQLinearMatMul(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectQLinearOperand(n, 0, false, 0));
  TSR_RETURN_IF_ERROR(ExpectQLinearOperand(n, 1, true, In(n, 1).rank() - 1));
  Shape o;
  TSR_RETURN_IF_ERROR(MatMulShape(n, In(n, 0).shape, In(n, 1).shape, &o));
  const TensorType& r = (*out)[0];
  if (!IsInt8(r.dtype) || !r.quant || r.quant->per_axis())
    return NodeError(n, "result '%{}' must be declared i8 or u8 quantized per-tensor", n.output(0)->name());
  (*out)[0].shape = o;
  return OkStatus();
}

Status CheckZeroPoint(const Node& n, int i, int64_t zp) {
  if (zp < DTypeMin(In(n, i).dtype) || zp > DTypeMax(In(n, i).dtype))
    return NodeError(n, "zero point {} out of range for {}", zp, Operand(n, i));
  return OkStatus();
}

Status InferIntegerOp(const Node& n, std::vector<TensorType>* out) {
  const bool conv = n.op() == "conv_integer";
  for (int i = 0; i < 2; ++i) {
    if (!IsInt8(In(n, i).dtype)) return NodeError(n, "{} must be i8 or u8", Operand(n, i));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, i));
  }
  Shape o;
  if (conv)
    TSR_RETURN_IF_ERROR(ConvShape(n, &o));
  else
    TSR_RETURN_IF_ERROR(MatMulShape(n, In(n, 0).shape, In(n, 1).shape, &o));
  const char* az = conv ? "x_zero_point" : "a_zero_point";
  const char* bz = conv ? "w_zero_point" : "b_zero_point";
  TSR_RETURN_IF_ERROR(CheckZeroPoint(n, 0, n.attrs().Int(az, 0)));
  std::vector<int64_t> wz = n.attrs().Ints(bz, {0});
  const int64_t channels = conv ? In(n, 1).shape[0] : In(n, 1).shape.back();
  if (wz.size() != 1 && static_cast<int64_t>(wz.size()) != channels)
    return NodeError(n, "attribute '{}' needs 1 or {} entries", bz, channels);
  for (int64_t z : wz) TSR_RETURN_IF_ERROR(CheckZeroPoint(n, 1, z));
  (*out)[0] = TensorType(DType::kI32, o);
  return OkStatus();
}

}  // namespace

void RegisterQLinearOps(std::vector<OpDef>* ops) {
  const auto [strides, pads, dil, group] = ConvAttrDefs{};
  ops->push_back({"qlinear_conv",
                  2,
                  3,
                  1,
                  {strides, pads, dil, group},
                  InferQLinearConv,
                  "ONNX QLinearConv semantics (zero points, float requantization), CPU only"});
  ops->push_back({"qlinear_matmul", 2, 2, 1, {}, InferQLinearMatMul, "ONNX QLinearMatMul semantics, CPU only"});
  ops->push_back({"conv_integer",
                  2,
                  2,
                  1,
                  {strides, pads, dil, group, {"x_zero_point", AttrKind::kInt}, {"w_zero_point", AttrKind::kInts}},
                  InferIntegerOp,
                  "ONNX ConvInteger: int32 sum of (x - xz)(w - wz)"});
  ops->push_back({"matmul_integer",
                  2,
                  2,
                  1,
                  {{"a_zero_point", AttrKind::kInt}, {"b_zero_point", AttrKind::kInts}},
                  InferIntegerOp,
                  "ONNX MatMulInteger: int32 sum of (a - az)(b - bz)"});
}

}  // namespace tessera::ir::opdefs
