// Converters for data-movement ops and constants: Flatten, Reshape,
// Transpose, Concat, Pad, Squeeze, Unsqueeze, Constant. Shape-like operands
// (Reshape's shape, Pad's pads, axes) must be constants; the IR stores them
// as resolved attributes.
#include <iterator>

#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;

Status ConvertFlatten(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("axis", ar.Int("axis", 1));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  return ctx.Emit(n, "flatten", {x}, a).status();
}

Status ConvertReshape(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const bool allowzero = ar.Int("allowzero", 0) != 0;
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(n, 1, "shape"));
  const ir::Shape& in = x->type().shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) return ctx.Error(n, "shape entry {} is 0 but the input has rank {}", i, in.size());
      shape[i] = in[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) return ctx.Error(n, "shape has more than one -1");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return ctx.Error(n, "shape entry {} is negative", shape[i]);
    } else {
      known *= shape[i];
      if (known > ir::kMaxTensorElements) return ctx.Error(n, "shape is too large");
    }
  }
  const int64_t numel = x->type().numel();
  if (infer >= 0) {
    if (known == 0 || numel % known != 0)
      return ctx.Error(n, "cannot infer the -1 entry: {} elements into {} known", numel, known);
    shape[infer] = numel / known;
  }
  Attrs a;
  a.Set("shape", shape);
  return ctx.Emit(n, "reshape", {x}, a).status();
}

Status ConvertTranspose(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  std::vector<int64_t> rev;
  for (int i = x->type().rank() - 1; i >= 0; --i) rev.push_back(i);
  Attrs a;
  a.Set("perm", ar.Ints("perm", rev));
  TSR_RETURN_IF_ERROR(ar.Finish());
  return ctx.Emit(n, "transpose", {x}, a).status();
}

Status ConvertConcat(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  if (!ar.Has("axis")) return ctx.Error(n, "missing required attribute 'axis'");
  Attrs a;
  a.Set("axis", ar.Int("axis", 0));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, n.input_size()));
  if (ins.empty()) return ctx.Error(n, "needs at least one input");
  return ctx.Emit(n, "concat", ins, a).status();
}

Status ConvertPad(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  const std::string mode = ar.Str("mode", "constant");
  const bool legacy = ctx.Version(n) < 11;  // pads and value are attributes
  std::vector<int64_t> pads;
  float value = 0.f;
  if (legacy) {
    pads = ar.Ints("pads", {});
    value = ar.Float("value", 0.f);
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return ctx.Unsupported(n, "attribute 'mode' value '{}' is not supported", mode);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (!legacy) {
    TSR_ASSIGN_OR_RETURN(pads, ctx.ConstInts(n, 1, "pads"));
  }
  if (ctx.HasInput(n, 3)) return ctx.Unsupported(n, "input 'axes' is not supported");
  if (!legacy && ctx.HasInput(n, 2)) {
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* v, ctx.ConstInput(n, 2, "constant_value"));
    if (v->numel() != 1) return ctx.Error(n, "input 'constant_value' must be a scalar");
    value = static_cast<float>(v->GetAsDouble(0));
  }
  a.Set("pads", pads);
  if (mode != "constant") a.Set("mode", mode);
  if (value != 0.f) a.Set("value", value);
  return ctx.Emit(n, "pad", {x}, a).status();
}

Status ConvertSqueezeLike(ImportContext& ctx, const onnx::NodeProto& n) {
  const bool squeeze = n.op_type() == "Squeeze";
  AttrReader ar(ctx, n);
  std::vector<int64_t> axes;
  bool have = false;
  const bool attr_axes = ctx.Version(n) < 13;
  if (attr_axes) {
    have = ar.Has("axes");
    axes = ar.Ints("axes", {});
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (!attr_axes && ctx.HasInput(n, 1)) {
    TSR_ASSIGN_OR_RETURN(axes, ctx.ConstInts(n, 1, "axes"));
    have = true;
  }
  if (!have) {
    if (!squeeze) return ctx.Error(n, "axes are required");
    for (int i = 0; i < x->type().rank(); ++i)
      if (x->type().shape[i] == 1) axes.push_back(i);
  }
  Attrs a;
  a.Set("axes", axes);
  return ctx.Emit(n, squeeze ? "squeeze" : "unsqueeze", {x}, a).status();
}

Status ConvertConstant(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  if (n.output_size() != 1 || n.output(0).empty()) return ctx.Error(n, "needs exactly one output");
  const std::string what = fmt::format("{}: {}", ctx.model(), ImportContext::Describe(n));
  ir::Tensor t;
  int count = 0;
  if (const onnx::TensorProto* p = ar.Tensor("value")) {
    TSR_ASSIGN_OR_RETURN(t, TensorFromProto(*p, what));
    ++count;
  }
  if (ar.Has("value_float")) {
    t = ir::Tensor(ir::DType::kF32, {});
    t.data<float>()[0] = ar.Float("value_float", 0);
    ++count;
  }
  if (ar.Has("value_int")) {
    t = ir::Tensor(ir::DType::kI64, {});
    t.data<int64_t>()[0] = ar.Int("value_int", 0);
    ++count;
  }
  if (ar.Has("value_floats")) {
    auto v = ar.Floats("value_floats", {});
    t = ir::Tensor(ir::DType::kF32, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data<float>());
    ++count;
  }
  if (ar.Has("value_ints")) {
    auto v = ar.Ints("value_ints", {});
    t = ir::Tensor(ir::DType::kI64, {static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    ++count;
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (count != 1) return ctx.Error(n, "needs exactly one supported value attribute");
  if (ctx.graph().FindValue(n.output(0))) return ctx.Error(n, "output '{}' is defined twice", n.output(0));
  ctx.Define(n.output(0), ctx.graph().AddConstant(n.output(0), std::move(t)));
  return OkStatus();
}

const ConverterEntry kEntries[] = {
    {"Flatten", ConvertFlatten, 1},       {"Reshape", ConvertReshape, 5},   {"Transpose", ConvertTranspose, 1},
    {"Concat", ConvertConcat, 4},         {"Pad", ConvertPad, 2},           {"Squeeze", ConvertSqueezeLike, 1},
    {"Unsqueeze", ConvertSqueezeLike, 1}, {"Constant", ConvertConstant, 1},
};

}  // namespace

std::vector<ConverterEntry> TensorConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
