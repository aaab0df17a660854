// Converters for shape arithmetic and indexing. Shapes are static, so Shape,
// Size, ConstantOfShape, Range and EyeLike become constants, and the shape
// subgraphs built on them fold away as they are emitted (ImportContext::Emit).
// Shape-like operands (Slice's bounds, Expand's shape, Tile's repeats,
// Resize's scales/sizes, Split's sizes) must be constants after folding.
// Split becomes one slice per output; DepthToSpace/SpaceToDepth become
// reshape -> transpose -> reshape.
#include <cmath>
#include <cstring>
#include <iterator>

#include "compiler/exec/kernel.h"
#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;
using ir::Tensor;

Tensor I64(const std::vector<int64_t>& v, bool scalar = false) {
  Tensor t(ir::DType::kI64, scalar ? ir::Shape{} : ir::Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

Status ConvertShape(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  const int64_t r = x->type().rank();
  int64_t start = ar.Int("start", 0), end = ar.Int("end", r);
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, start, r);
  const ir::Shape& s = x->type().shape;
  return ctx.EmitConstant(n, I64(std::vector<int64_t>(s.begin() + start, s.begin() + end)));
}

Status ConvertSize(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  return ctx.EmitConstant(n, I64({x->type().numel()}, true));
}

Status ConvertConstantOfShape(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Tensor value(ir::DType::kF32, {1});
  if (const onnx::TensorProto* p = ar.Tensor("value")) {
    TSR_ASSIGN_OR_RETURN(value, TensorFromProto(*p, ctx.model() + ": " + ctx.Describe(n) + ": value"));
    if (value.numel() != 1) return ctx.Error(n, "attribute 'value' must have one element");
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(n, 0, "shape"));
  for (int64_t d : shape)
    if (d < 0) return ctx.Error(n, "negative dimension {}", d);
  TSR_RETURN_IF_ERROR(ir::ValidateShape(shape, ctx.model() + ": " + ctx.Describe(n)));
  Tensor t(value.dtype(), shape);
  const int es = ir::DTypeSize(value.dtype());
  for (int64_t i = 0; i < t.numel(); ++i) std::memcpy(t.raw() + i * es, value.raw(), es);
  return ctx.EmitConstant(n, std::move(t));
}

Status ConvertRange(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  const ir::Tensor* v[3];
  const char* names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    TSR_ASSIGN_OR_RETURN(v[i], ctx.ConstInput(n, i, names[i]));
    if (v[i]->numel() != 1 || v[i]->dtype() != v[0]->dtype())
      return ctx.Error(n, "input '{}' must be a scalar of the start's type", names[i]);
  }
  const double start = v[0]->GetAsDouble(0), limit = v[1]->GetAsDouble(0), delta = v[2]->GetAsDouble(0);
  if (delta == 0) return ctx.Error(n, "delta is 0");
  const double count = std::max(std::ceil((limit - start) / delta), 0.0);
  if (count > static_cast<double>(ir::kMaxTensorElements))
    return ctx.Error(n, "range of {} elements is too large", count);
  Tensor t(v[0]->dtype(), {static_cast<int64_t>(count)});
  bool ok = true;
  exec::VisitDType(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      ok = false;
    } else {
      const T s = v[0]->data<T>()[0], d = v[2]->data<T>()[0];
      for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(s + static_cast<T>(i) * d);
    }
  });
  if (!ok) return ctx.Error(n, "range of bool");
  return ctx.EmitConstant(n, std::move(t));
}

Status ConvertEyeLike(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t k = ar.Int("k", 0);
  const bool has_dtype = ar.Has("dtype");
  const int64_t dt = ar.Int("dtype", 0);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (x->type().rank() != 2) return ctx.Error(n, "input must have rank 2");
  ir::DType t = x->type().dtype;
  if (has_dtype) {
    TSR_ASSIGN_OR_RETURN(t, DTypeFromOnnx(static_cast<int32_t>(dt), ctx.model() + ": " + ctx.Describe(n)));
  }
  Tensor e(t, x->type().shape);
  const int64_t rows = e.dim(0), cols = e.dim(1);
  exec::VisitDType(t, [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < rows; ++i)
      if (i + k >= 0 && i + k < cols) e.data<T>()[i * cols + i + k] = static_cast<T>(1);
  });
  return ctx.EmitConstant(n, std::move(e));
}

Status ConvertGather(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("axis", ar.Int("axis", 0));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 2));
  return ctx.Emit(n, n.op_type() == "Gather" ? "gather" : "gather_elements", ins, a).status();
}

// Clamps one axis of a slice the way ONNX does; writes normalized bounds.
void ClampSlice(int64_t dim, int64_t* start, int64_t* end, int64_t step) {
  int64_t s = *start, e = *end;
  if (s < 0) s += dim;
  if (e < 0) e += dim;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
  } else {
    s = std::clamp<int64_t>(s, 0, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
  }
  *start = s, *end = e;
}

// Emits a slice of `x` along `axes` (per-axis starts/ends/steps, unclamped).
StatusOr<ir::Value*> EmitSlice(ImportContext& ctx, const onnx::NodeProto& n, ir::Value* x, std::vector<int64_t> axes,
                               const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                               const std::vector<int64_t>& steps) {
  const ir::Shape& s = x->type().shape;
  const int r = static_cast<int>(s.size());
  std::vector<int64_t> st(r, 0), en(s.begin(), s.end()), sp(r, 1);
  std::vector<bool> seen(r);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (a < -r || a >= r) return ctx.Error(n, "axis {} out of range for rank {}", a, r);
    if (a < 0) a += r;
    if (seen[a]) return ctx.Error(n, "axis {} repeated", a);
    seen[a] = true;
    if (steps[i] == 0) return ctx.Error(n, "step 0");
    st[a] = starts[i], en[a] = ends[i], sp[a] = steps[i];
    ClampSlice(s[a], &st[a], &en[a], sp[a]);
  }
  Attrs at;
  at.Set("starts", st);
  at.Set("ends", en);
  at.Set("steps", sp);
  return ctx.Emit(n, "slice", {x}, at);
}

Status ConvertSlice(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.Version(n) < 10) {
    starts = ar.Ints("starts", {});
    ends = ar.Ints("ends", {});
    axes = ar.Ints("axes", {});
  } else {
    TSR_ASSIGN_OR_RETURN(starts, ctx.ConstInts(n, 1, "starts"));
    TSR_ASSIGN_OR_RETURN(ends, ctx.ConstInts(n, 2, "ends"));
    if (ctx.HasInput(n, 3)) {
      TSR_ASSIGN_OR_RETURN(axes, ctx.ConstInts(n, 3, "axes"));
    }
    if (ctx.HasInput(n, 4)) {
      TSR_ASSIGN_OR_RETURN(steps, ctx.ConstInts(n, 4, "steps"));
    }
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.Error(n, "starts, ends, axes and steps differ in length");
  return EmitSlice(ctx, n, x, axes, starts, ends, steps).status();
}

Status ConvertSplit(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  int64_t axis = ar.Int("axis", 0);
  std::vector<int64_t> split;
  if (ctx.Version(n) < 13) split = ar.Ints("split", {});
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (ctx.Version(n) >= 13 && ctx.HasInput(n, 1)) {
    TSR_ASSIGN_OR_RETURN(split, ctx.ConstInts(n, 1, "split"));
  }
  const int r = x->type().rank();
  if (axis < -r || axis >= r) return ctx.Error(n, "axis {} out of range for rank {}", axis, r);
  if (axis < 0) axis += r;
  const int64_t dim = x->type().shape[axis], outs = n.output_size();
  if (split.empty()) {
    if (outs == 0 || dim % outs != 0) return ctx.Error(n, "cannot split {} elements into {} equal parts", dim, outs);
    split.assign(outs, dim / outs);
  }
  if (static_cast<int64_t>(split.size()) != outs)
    return ctx.Error(n, "{} split sizes for {} outputs", split.size(), outs);
  int64_t at = 0;
  for (int i = 0; i < outs; ++i) {
    if (split[i] < 0) return ctx.Error(n, "negative split size {}", split[i]);
    if (!n.output(i).empty()) {
      onnx::NodeProto one = n;
      one.clear_output();
      one.add_output(n.output(i));
      TSR_RETURN_IF_ERROR(EmitSlice(ctx, one, x, {axis}, {at}, {at + split[i]}, {1}).status());
    }
    at += split[i];
  }
  if (at != dim) return ctx.Error(n, "split sizes add up to {}, the axis has {}", at, dim);
  return OkStatus();
}

Status ConvertExpand(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstInts(n, 1, "shape"));
  // Bidirectional broadcast of the input shape and the requested one.
  const ir::Shape& xs = x->type().shape;
  const size_t r = std::max(xs.size(), shape.size());
  ir::Shape o(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t a = i < r - xs.size() ? 1 : xs[i - (r - xs.size())];
    const int64_t b = i < r - shape.size() ? 1 : shape[i - (r - shape.size())];
    if (a != b && a != 1 && b != 1)
      return ctx.Error(n, "shape {} does not broadcast with the input", ir::ShapeToString(shape));
    o[i] = a == 1 ? b : a;
  }
  Attrs a;
  a.Set("shape", o);
  return ctx.Emit(n, "expand", {x}, a).status();
}

Status ConvertTile(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(std::vector<int64_t> reps, ctx.ConstInts(n, 1, "repeats"));
  Attrs a;
  a.Set("repeats", reps);
  return ctx.Emit(n, "tile", {x}, a).status();
}

// Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample
// (opset 7: scales attribute; 9: input). Opset 10 Resize and Upsample use
// the asymmetric transform; nearest rounds down.
Status ConvertResize(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const bool legacy = n.op_type() == "Upsample" || ctx.Version(n) < 11;
  Attrs a;
  std::string mode = ar.Str("mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-7's name
  a.Set("mode", mode);
  std::vector<float> scales;
  if (legacy) {
    a.Set("coordinate_transformation_mode", std::string("asymmetric"));
    a.Set("nearest_mode", std::string("floor"));
    if (n.op_type() == "Upsample" && ctx.Version(n) < 9) scales = ar.Floats("scales", {});
  } else {
    std::string ctm = ar.Str("coordinate_transformation_mode", "half_pixel");
    if (ctm == "tf_half_pixel_for_nn") ctm = "tf_half_pixel_for_nearest";  // the opset 11 spelling
    a.Set("coordinate_transformation_mode", ctm);
    a.Set("nearest_mode", ar.Str("nearest_mode", "round_prefer_floor"));
    a.Set("cubic_coeff_a", ar.Float("cubic_coeff_a", -0.75f));
    a.Set("exclude_outside", ar.Int("exclude_outside", 0));
    a.Set("extrapolation_value", ar.Float("extrapolation_value", 0.f));
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  const int scales_in = legacy ? 1 : 2;
  if (ctx.HasInput(n, scales_in)) {
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* t, ctx.ConstInput(n, scales_in, "scales"));
    scales.clear();
    for (int64_t i = 0; i < t->numel(); ++i) scales.push_back(static_cast<float>(t->GetAsDouble(i)));
  }
  std::vector<int64_t> sizes;
  if (!legacy && ctx.HasInput(n, 3)) {
    TSR_ASSIGN_OR_RETURN(sizes, ctx.ConstInts(n, 3, "sizes"));
  }
  const ir::Shape& xs = x->type().shape;
  if (!sizes.empty() && !scales.empty()) return ctx.Error(n, "give either scales or sizes, not both");
  if (sizes.empty()) {
    if (scales.size() != xs.size()) return ctx.Error(n, "{} scales for rank {}", scales.size(), xs.size());
    for (size_t d = 0; d < xs.size(); ++d) {
      if (!(scales[d] > 0)) return ctx.Error(n, "scale {} is not positive", scales[d]);
      sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(scales[d]) * xs[d])));
    }
    a.Set("scales", scales);
  }
  if (sizes.size() != xs.size()) return ctx.Error(n, "{} sizes for rank {}", sizes.size(), xs.size());
  if (!legacy && a.Str("coordinate_transformation_mode") == "tf_crop_and_resize") {
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* roi, ctx.ConstInput(n, 1, "roi"));
    std::vector<float> r;
    for (int64_t i = 0; i < roi->numel(); ++i) r.push_back(static_cast<float>(roi->GetAsDouble(i)));
    a.Set("roi", r);
  }
  a.Set("sizes", sizes);
  return ctx.Emit(n, "resize", {x}, a).status();
}

Status ConvertTrilu(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("upper", ar.Int("upper", 1));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  int64_t k = 0;
  if (ctx.HasInput(n, 1)) {
    TSR_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.ConstInts(n, 1, "k"));
    if (kv.size() != 1) return ctx.Error(n, "input 'k' must be a scalar");
    k = kv[0];
  }
  a.Set("k", k);
  return ctx.Emit(n, "trilu", {x}, a).status();
}

// DepthToSpace (DCR or CRD) and SpaceToDepth as reshape -> transpose -> reshape.
Status ConvertDepthSpace(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t b = ar.Int("blocksize", 0);
  const std::string mode = ar.Str("mode", "DCR");
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (x->type().rank() != 4) return ctx.Error(n, "input must have rank 4");
  const ir::Shape& s = x->type().shape;
  const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
  if (b < 1) return ctx.Error(n, "blocksize {} must be positive", b);
  ir::Shape mid, out;
  std::vector<int64_t> perm;
  if (n.op_type() == "DepthToSpace") {
    if (C % (b * b)) return ctx.Error(n, "{} channels are not a multiple of blocksize^2", C);
    if (mode != "DCR" && mode != "CRD") return ctx.Error(n, "mode '{}' is not DCR or CRD", mode);
    const bool dcr = mode == "DCR";
    mid = dcr ? ir::Shape{N, b, b, C / (b * b), H, W} : ir::Shape{N, C / (b * b), b, b, H, W};
    perm = dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
    out = {N, C / (b * b), H * b, W * b};
  } else {
    if (H % b || W % b) return ctx.Error(n, "spatial size {}x{} is not a multiple of blocksize {}", H, W, b);
    mid = {N, C, H / b, b, W / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    out = {N, C * b * b, H / b, W / b};
  }
  Attrs r1, t, r2;
  r1.Set("shape", mid);
  t.Set("perm", perm);
  r2.Set("shape", out);
  TSR_ASSIGN_OR_RETURN(ir::Value * v, ctx.EmitInternal(n, "reshape", {x}, r1, n.output(0) + ".6d"));
  TSR_ASSIGN_OR_RETURN(v, ctx.EmitInternal(n, "transpose", {v}, t, n.output(0) + ".6d"));
  return ctx.Emit(n, "reshape", {v}, r2).status();
}

const ConverterEntry kEntries[] = {
    {"Shape", ConvertShape, 1},
    {"Size", ConvertSize, 1},
    {"ConstantOfShape", ConvertConstantOfShape},
    {"Range", ConvertRange},
    {"EyeLike", ConvertEyeLike},
    {"Gather", ConvertGather, 1},
    {"GatherElements", ConvertGather},
    {"Slice", ConvertSlice, 1},
    {"Split", ConvertSplit, 2},
    {"Expand", ConvertExpand, 8},
    {"Tile", ConvertTile, 6},
    {"Resize", ConvertResize, 10},
    {"Upsample", ConvertResize, 7},
    {"Trilu", ConvertTrilu},
    {"DepthToSpace", ConvertDepthSpace, 1},
    {"SpaceToDepth", ConvertDepthSpace, 1},
};

}  // namespace

std::vector<ConverterEntry> ShapeConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
