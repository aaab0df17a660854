// Type inference for indexing and resampling data movement: gather,
// gather_elements, slice, expand, tile, resize, trilu. Like the ops of
// ops_tensor.cc they take any element type and pass per-tensor quantization
// through (resize only in nearest mode: interpolation creates new values).
#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

Status ExpectIndices(const Node& n, int i) {
  const DType t = In(n, i).dtype;
  if (t != DType::kI32 && t != DType::kI64) return NodeError(n, "{} must be i32 or i64 indices", Operand(n, i));
  return ExpectUnquantized(n, i);
}

Status InferGather(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  TSR_RETURN_IF_ERROR(ExpectIndices(n, 1));
  const TensorType& x = In(n, 0);
  int axis;
  TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", n.attrs().Int("axis", 0), x.rank(), &axis));
  Shape o(x.shape.begin(), x.shape.begin() + axis);
  const Shape& idx = In(n, 1).shape;
  o.insert(o.end(), idx.begin(), idx.end());
  o.insert(o.end(), x.shape.begin() + axis + 1, x.shape.end());
  if (n.op() == "gather_elements") {
    if (In(n, 1).rank() != x.rank()) return NodeError(n, "{} must have the data's rank", Operand(n, 1));
    o = idx;
  }
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

// Elements taken along one axis: start, start + step, ... before end.
int64_t SliceCount(int64_t start, int64_t end, int64_t step) {
  if (step > 0) return end > start ? (end - start + step - 1) / step : 0;
  return start > end ? (start - end - step - 1) / -step : 0;
}

// slice: starts/ends/steps for every axis, already clamped by the importer
// (step > 0: 0 <= start, end <= dim; step < 0: -1 <= start, end <= dim - 1).
Status InferSlice(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  const auto starts = n.attrs().Ints("starts"), ends = n.attrs().Ints("ends"), steps = n.attrs().Ints("steps");
  const size_t r = x.shape.size();
  if (starts.size() != r || ends.size() != r || steps.size() != r)
    return NodeError(n, "starts, ends and steps need {} entries each", r);
  Shape o(r);
  for (size_t d = 0; d < r; ++d) {
    const int64_t dim = x.shape[d], s = starts[d], e = ends[d], t = steps[d];
    const bool ok =
        t > 0 ? (s >= 0 && s <= dim && e >= 0 && e <= dim) : (t < 0 && s >= -1 && s < dim && e >= -1 && e < dim);
    if (!ok) return NodeError(n, "slice [{}:{}:{}] is not normalized for axis {} of size {}", s, e, t, d, dim);
    o[d] = SliceCount(s, e, t);
  }
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferExpand(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const Shape s = n.attrs().Ints("shape");
  Shape o;
  TSR_RETURN_IF_ERROR(Broadcast(n, In(n, 0).shape, s, &o));
  if (o != s) return NodeError(n, "{} does not broadcast to {}", Operand(n, 0), ShapeToString(s));
  (*out)[0] = TensorType(In(n, 0).dtype, o, In(n, 0).quant);
  return OkStatus();
}

Status InferTile(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  const auto reps = n.attrs().Ints("repeats");
  if (static_cast<int>(reps.size()) != x.rank()) return NodeError(n, "attribute 'repeats' needs {} entries", x.rank());
  Shape o = x.shape;
  for (int d = 0; d < x.rank(); ++d) {
    if (reps[d] < 0) return NodeError(n, "negative repeat {}", reps[d]);
    o[d] *= reps[d];
  }
  TSR_RETURN_IF_ERROR(ValidateShape(o, n.Describe()));
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferResize(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  const Attrs& a = n.attrs();
  const std::string mode = a.Str("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return NodeError(n, "mode '{}' is not nearest, linear or cubic", mode);
  if (mode == "nearest") {
    TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  } else {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  }
  const std::string ct = a.Str("coordinate_transformation_mode", "half_pixel");
  if (ct != "half_pixel" && ct != "asymmetric" && ct != "align_corners" && ct != "pytorch_half_pixel" &&
      ct != "tf_half_pixel_for_nearest" && ct != "tf_crop_and_resize")
    return NodeError(n, "coordinate_transformation_mode '{}' is not supported", ct);
  const std::string nm = a.Str("nearest_mode", "round_prefer_floor");
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" && nm != "floor" && nm != "ceil")
    return NodeError(n, "nearest_mode '{}' is not supported", nm);
  const Shape sizes = a.Ints("sizes");
  const auto scales = a.Floats("scales", {});
  const auto roi = a.Floats("roi", {});
  if (static_cast<int>(sizes.size()) != x.rank()) return NodeError(n, "attribute 'sizes' needs {} entries", x.rank());
  if (!scales.empty() && static_cast<int>(scales.size()) != x.rank())
    return NodeError(n, "attribute 'scales' needs {} entries", x.rank());
  if (ct == "tf_crop_and_resize" && static_cast<int>(roi.size()) != 2 * x.rank())
    return NodeError(n, "tf_crop_and_resize needs a roi of {} entries", 2 * x.rank());
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) return NodeError(n, "negative output size {}", sizes[d]);
    if (!scales.empty() && !(scales[d] > 0)) return NodeError(n, "scale {} is not positive", scales[d]);
  }
  TSR_RETURN_IF_ERROR(ValidateShape(sizes, n.Describe()));
  (*out)[0] = TensorType(x.dtype, sizes, mode == "nearest" ? x.quant : std::nullopt);
  return OkStatus();
}

Status InferTrilu(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  if (In(n, 0).rank() < 2) return NodeError(n, "{} must have rank >= 2", Operand(n, 0));
  if (In(n, 0).quant && !In(n, 0).quant->symmetric())
    return NodeError(n, "{} must have zero point 0 (the cleared part is 0)", Operand(n, 0));
  (*out)[0] = In(n, 0);
  return OkStatus();
}

}  // namespace

void RegisterShapeOps(std::vector<OpDef>* ops) {
  const AttrDef axis{"axis", AttrKind::kInt};
  ops->push_back({"gather", 2, 2, 1, {axis}, InferGather, "take slices along axis at the indices (numpy take)"});
  ops->push_back(
      {"gather_elements", 2, 2, 1, {axis}, InferGather, "take elements along axis (indices of data's rank)"});
  ops->push_back(
      {"slice",
       1,
       1,
       1,
       {{"starts", AttrKind::kInts, true}, {"ends", AttrKind::kInts, true}, {"steps", AttrKind::kInts, true}},
       InferSlice,
       "strided window, every axis explicit and clamped"});
  ops->push_back({"expand", 1, 1, 1, {{"shape", AttrKind::kInts, true}}, InferExpand, "broadcast to a shape"});
  ops->push_back({"tile", 1, 1, 1, {{"repeats", AttrKind::kInts, true}}, InferTile, "repeat along every axis"});
  ops->push_back({"resize",
                  1,
                  1,
                  1,
                  {{"sizes", AttrKind::kInts, true},
                   {"scales", AttrKind::kFloats},
                   {"roi", AttrKind::kFloats},
                   {"mode", AttrKind::kString},
                   {"coordinate_transformation_mode", AttrKind::kString},
                   {"nearest_mode", AttrKind::kString},
                   {"cubic_coeff_a", AttrKind::kFloat},
                   {"exclude_outside", AttrKind::kInt},
                   {"extrapolation_value", AttrKind::kFloat}},
                  InferResize,
                  "ONNX Resize to `sizes` (nearest, n-linear or cubic)"});
  ops->push_back({"trilu",
                  1,
                  1,
                  1,
                  {{"upper", AttrKind::kInt}, {"k", AttrKind::kInt}},
                  InferTrilu,
                  "keep the upper (or lower) triangle of the last two axes"});
}

}  // namespace tessera::ir::opdefs
