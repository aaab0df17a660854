// Type inference for the float network ops: convolutions, GEMM/MatMul,
// pooling, batch/layer/instance normalization. Convolutions, gemm and matmul
// may carry a fused clamp activation (act_min / act_max, absent = unbounded).
#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

const AttrDef kActMin{"act_min", AttrKind::kFloat}, kActMax{"act_max", AttrKind::kFloat};

Status CheckAct(const Node& n) {
  const float lo = n.attrs().Float("act_min", -INFINITY), hi = n.attrs().Float("act_max", INFINITY);
  if (!(lo <= hi)) return NodeError(n, "act_min {} exceeds act_max {}", lo, hi);
  return OkStatus();
}

// The f32 result of shape `o` of an op that may carry a fused clamp.
Status ActivatedOutput(const Node& n, const Shape& o, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(CheckAct(n));
  (*out)[0] = TensorType(DType::kF32, o);
  return OkStatus();
}

Status InferConv(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  Shape o;
  TSR_RETURN_IF_ERROR(ConvShape(n, &o));
  return ActivatedOutput(n, o, out);
}

Status InferConvTranspose(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 4));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 1, 4));
  const Shape& x = In(n, 0).shape;
  const Shape& w = In(n, 1).shape;
  const int64_t g = n.attrs().Int("group", 1);
  if (g < 1 || x[1] % g != 0 || w[0] != x[1])
    return NodeError(n, "weight {} must have {} input channels divisible by group {}", Operand(n, 1), x[1], g);
  const int64_t m = w[1] * g;
  if (n.num_inputs() > 2 && In(n, 2).shape != Shape{m})
    return NodeError(n, "bias {} must have shape [{}]", Operand(n, 2), m);
  Window2D win;
  TSR_RETURN_IF_ERROR(ReadWindow(n, false, &win));
  std::vector<int64_t> op = n.attrs().Ints("output_padding", {0, 0});
  if (op.size() != 2) return NodeError(n, "attribute 'output_padding' must have 2 entries");
  Shape o = {x[0], m, 0, 0};
  for (int i = 0; i < 2; ++i) {
    if (op[i] < 0 || op[i] >= std::max(win.strides[i], win.dilations[i]))
      return NodeError(n, "output_padding {} must be below the stride or dilation", op[i]);
    o[2 + i] =
        win.strides[i] * (x[2 + i] - 1) + op[i] + (w[2 + i] - 1) * win.dilations[i] + 1 - win.pads[i] - win.pads[i + 2];
    if (o[2 + i] < 1) return NodeError(n, "output size {} along spatial axis {} is not positive", o[2 + i], i);
  }
  return ActivatedOutput(n, o, out);
}

Status InferGemm(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 2));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 1, 2));
  const Shape& a = In(n, 0).shape;
  const Shape& b = In(n, 1).shape;
  const bool ta = n.attrs().Int("trans_a", 0), tb = n.attrs().Int("trans_b", 0);
  const int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0], nn = tb ? b[0] : b[1];
  if (ka != kb) return NodeError(n, "inner dimensions disagree: A is {}, B is {}", ShapeToString(a), ShapeToString(b));
  Shape o = {m, nn};
  if (n.num_inputs() > 2) {
    Shape bc;
    TSR_RETURN_IF_ERROR(Broadcast(n, o, In(n, 2).shape, &bc));
    if (bc != o) return NodeError(n, "bias {} does not broadcast to {}", Operand(n, 2), ShapeToString(o));
  }
  return ActivatedOutput(n, o, out);
}

Status InferMatMul(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  Shape o;
  TSR_RETURN_IF_ERROR(MatMulShape(n, In(n, 0).shape, In(n, 1).shape, &o));
  if (n.num_inputs() > 2) {
    Shape bc;
    TSR_RETURN_IF_ERROR(Broadcast(n, o, In(n, 2).shape, &bc));
    if (bc != o) return NodeError(n, "bias {} does not broadcast to {}", Operand(n, 2), ShapeToString(o));
  }
  return ActivatedOutput(n, o, out);
}

Status InferPool(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 4));
  const TensorType& x = In(n, 0);
  if (n.op() == "avg_pool") {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  } else if (x.dtype != DType::kF32 && x.dtype != DType::kI8 && x.dtype != DType::kU8) {
    return NodeError(n, "{} must be f32, i8 or u8", Operand(n, 0));
  } else if (x.quant && x.quant->per_axis()) {
    return NodeError(n, "{} must be quantized per-tensor", Operand(n, 0));
  }
  Window2D win;
  TSR_RETURN_IF_ERROR(ReadWindow(n, true, &win));
  for (int i = 0; i < 2; ++i)
    if (win.pads[i] >= win.kernel[i] * win.dilations[i] || win.pads[i + 2] >= win.kernel[i] * win.dilations[i])
      return NodeError(n, "padding must be smaller than the window");
  int64_t oh, ow;
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 0, x.shape[2], &oh));
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 1, x.shape[3], &ow));
  (*out)[0] = TensorType(x.dtype, {x.shape[0], x.shape[1], oh, ow}, x.quant);
  return OkStatus();
}

Status InferGlobalPool(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  if (x.rank() < 3) return NodeError(n, "{} must have rank >= 3", Operand(n, 0));
  if (n.op() == "global_avg_pool") {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  } else if (x.dtype != DType::kF32 && x.dtype != DType::kI8 && x.dtype != DType::kU8) {
    return NodeError(n, "{} must be f32, i8 or u8", Operand(n, 0));
  } else if (x.quant && x.quant->per_axis()) {
    return NodeError(n, "{} must be quantized per-tensor", Operand(n, 0));
  }
  Shape o = x.shape;
  for (int i = 2; i < x.rank(); ++i) o[i] = 1;
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferBatchNorm(const Node& n, std::vector<TensorType>* out) {
  for (int i = 0; i < 5; ++i) {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, i));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, i));
  }
  const Shape& x = In(n, 0).shape;
  if (x.size() < 2) return NodeError(n, "{} must have rank >= 2", Operand(n, 0));
  for (int i = 1; i < 5; ++i)
    if (In(n, i).shape != Shape{x[1]}) return NodeError(n, "{} must have shape [{}]", Operand(n, i), x[1]);
  (*out)[0] = TensorType(DType::kF32, x);
  return OkStatus();
}

// layer_norm: normalizes over axes [axis, rank); scale (and bias) broadcast
// to those trailing dimensions.
Status InferLayerNorm(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  const Shape& x = In(n, 0).shape;
  int axis;
  TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", n.attrs().Int("axis", -1), In(n, 0).rank(), &axis));
  const Shape tail(x.begin() + axis, x.end());
  for (int i = 1; i < n.num_inputs(); ++i) {
    Shape b;
    TSR_RETURN_IF_ERROR(Broadcast(n, tail, In(n, i).shape, &b));
    if (b != tail)
      return NodeError(n, "{} does not broadcast to the normalized shape {}", Operand(n, i), ShapeToString(tail));
  }
  (*out)[0] = TensorType(DType::kF32, x);
  return OkStatus();
}

Status InferInstanceNorm(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  const Shape& x = In(n, 0).shape;
  if (x.size() < 3) return NodeError(n, "{} must have rank >= 3", Operand(n, 0));
  for (int i = 1; i < 3; ++i)
    if (In(n, i).shape != Shape{x[1]}) return NodeError(n, "{} must have shape [{}]", Operand(n, i), x[1]);
  (*out)[0] = TensorType(DType::kF32, x);
  return OkStatus();
}

}  // namespace

Status ConvShape(const Node& n, Shape* out) {
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 4));
  TSR_RETURN_IF_ERROR(ExpectRank(n, 1, 4));
  const Shape& x = In(n, 0).shape;
  const Shape& w = In(n, 1).shape;
  const int64_t g = n.attrs().Int("group", 1);
  if (g < 1 || x[1] % g != 0 || w[0] % g != 0)
    return NodeError(n, "group {} must divide the {} input and {} output channels", g, x[1], w[0]);
  if (w[1] * g != x[1])
    return NodeError(n, "weight {} expects {} input channels per group, input {} has {} channels in {} groups",
                     Operand(n, 1), w[1], ShapeToString(x), x[1], g);
  if (n.num_inputs() > 2 && In(n, 2).shape != Shape{w[0]})
    return NodeError(n, "bias {} must have shape [{}]", Operand(n, 2), w[0]);
  Window2D win;
  TSR_RETURN_IF_ERROR(ReadWindow(n, false, &win));
  win.kernel = {w[2], w[3]};
  if (w[2] < 1 || w[3] < 1) return NodeError(n, "empty kernel {}", ShapeToString(w));
  int64_t oh, ow;
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 0, x[2], &oh));
  TSR_RETURN_IF_ERROR(WindowOutput(n, win, 1, x[3], &ow));
  *out = {x[0], w[0], oh, ow};
  return OkStatus();
}

Status MatMulShape(const Node& n, Shape a, Shape b, Shape* out) {
  if (a.empty() || b.empty()) return NodeError(n, "matmul operands must have rank >= 1");
  const bool a1 = a.size() == 1, b1 = b.size() == 1;
  if (a1) a.insert(a.begin(), 1);
  if (b1) b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return NodeError(n, "inner dimensions disagree: {} and {}", Operand(n, 0), Operand(n, 1));
  Shape batch;
  TSR_RETURN_IF_ERROR(Broadcast(n, Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), &batch));
  *out = batch;
  if (!a1) out->push_back(a[a.size() - 2]);
  if (!b1) out->push_back(b.back());
  return OkStatus();
}

void RegisterNnOps(std::vector<OpDef>* ops) {
  const auto [strides, pads, dil, group] = ConvAttrDefs{};
  const AttrDef kernel{"kernel", AttrKind::kInts, true}, ceil{"ceil_mode", AttrKind::kInt};
  ops->push_back({"conv",
                  2,
                  3,
                  1,
                  {strides, pads, dil, group, kActMin, kActMax},
                  InferConv,
                  "2-D convolution x[N,C,H,W] * w[M,C/group,kh,kw] (+ b[M]), optional fused clamp"});
  ops->push_back({"conv_transpose",
                  2,
                  3,
                  1,
                  {strides, pads, dil, group, {"output_padding", AttrKind::kInts}, kActMin, kActMax},
                  InferConvTranspose,
                  "2-D transposed convolution, w[C,M/group,kh,kw]"});
  ops->push_back({"gemm",
                  2,
                  3,
                  1,
                  {{"alpha", AttrKind::kFloat},
                   {"beta", AttrKind::kFloat},
                   {"trans_a", AttrKind::kInt},
                   {"trans_b", AttrKind::kInt},
                   kActMin,
                   kActMax},
                  InferGemm,
                  "alpha * op(A) op(B) + beta * C (ONNX Gemm), optional fused clamp"});
  ops->push_back({"matmul",
                  2,
                  3,
                  1,
                  {kActMin, kActMax},
                  InferMatMul,
                  "numpy matmul (+ bias broadcast to the result), optional fused clamp"});
  ops->push_back({"max_pool",
                  1,
                  1,
                  1,
                  {kernel, strides, pads, dil, ceil},
                  InferPool,
                  "2-D max pooling (f32, or i8/u8 keeping the scale)"});
  ops->push_back({"avg_pool",
                  1,
                  1,
                  1,
                  {kernel, strides, pads, ceil, {"count_include_pad", AttrKind::kInt}},
                  InferPool,
                  "2-D average pooling"});
  ops->push_back({"global_avg_pool", 1, 1, 1, {}, InferGlobalPool, "mean over all spatial axes"});
  ops->push_back({"global_max_pool", 1, 1, 1, {}, InferGlobalPool, "max over all spatial axes"});
  ops->push_back({"batch_norm",
                  5,
                  5,
                  1,
                  {{"epsilon", AttrKind::kFloat}},
                  InferBatchNorm,
                  "inference batch normalization (x, scale, bias, mean, var)"});
  ops->push_back({"layer_norm",
                  2,
                  3,
                  1,
                  {{"axis", AttrKind::kInt}, {"epsilon", AttrKind::kFloat}},
                  InferLayerNorm,
                  "(x - mean) / sqrt(var + epsilon) * scale + bias over axes [axis, rank)"});
  ops->push_back({"instance_norm",
                  3,
                  3,
                  1,
                  {{"epsilon", AttrKind::kFloat}},
                  InferInstanceNorm,
                  "per sample and channel normalization over the spatial axes (x, scale, bias)"});
}

}  // namespace tessera::ir::opdefs
