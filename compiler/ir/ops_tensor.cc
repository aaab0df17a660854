// Type inference for data-movement ops. They work on any element type; a
// quantized input must be per-tensor and its parameters pass through (concat
// requires identical parameters on all inputs), so these ops are exact on
// int8 tensors.
#include <algorithm>

#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

Status InferFlatten(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  int64_t axis = n.attrs().Int("axis", 1);
  if (axis < -x.rank() || axis > x.rank()) return NodeError(n, "axis {} out of range for rank {}", axis, x.rank());
  if (axis < 0) axis += x.rank();
  int64_t a = 1, b = 1;
  for (int i = 0; i < x.rank(); ++i) (i < axis ? a : b) *= x.shape[i];
  (*out)[0] = TensorType(x.dtype, {a, b}, x.quant);
  return OkStatus();
}

Status InferReshape(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  Shape s = n.attrs().Ints("shape");
  for (int64_t d : s)
    if (d < 0) return NodeError(n, "attribute 'shape' {} must be fully resolved (no -1)", ShapeToString(s));
  TSR_RETURN_IF_ERROR(ValidateShape(s, n.Describe()));
  if (NumElements(s) != x.numel())
    return NodeError(n, "cannot reshape {} ({} elements) to {}", Operand(n, 0), x.numel(), ShapeToString(s));
  (*out)[0] = TensorType(x.dtype, s, x.quant);
  return OkStatus();
}

Status InferTranspose(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  std::vector<int64_t> perm = n.attrs().Ints("perm");
  if (static_cast<int>(perm.size()) != x.rank())
    return NodeError(n, "attribute 'perm' has {} entries for rank {}", perm.size(), x.rank());
  std::vector<bool> seen(perm.size());
  Shape o(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= x.rank() || seen[perm[i]])
      return NodeError(n, "attribute 'perm' is not a permutation of 0..{}", x.rank() - 1);
    seen[perm[i]] = true;
    o[i] = x.shape[perm[i]];
  }
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferConcat(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  int axis;
  TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", n.attrs().Int("axis", 0), x.rank(), &axis));
  Shape o = x.shape;
  for (int i = 0; i < n.num_inputs(); ++i) {
    TSR_RETURN_IF_ERROR(PerTensorOnly(n, i));
    const TensorType& t = In(n, i);
    if (t.dtype != x.dtype || t.quant != x.quant)
      return NodeError(n, "{} differs in element type or quantization from input 0", Operand(n, i));
    if (t.rank() != x.rank()) return NodeError(n, "{} has a different rank than input 0", Operand(n, i));
    for (int d = 0; d < x.rank(); ++d)
      if (d != axis && t.shape[d] != x.shape[d])
        return NodeError(n, "{} disagrees with input 0 outside axis {}", Operand(n, i), axis);
    if (i > 0) o[axis] += t.shape[axis];
  }
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferPad(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  std::vector<int64_t> pads = n.attrs().Ints("pads");
  if (static_cast<int>(pads.size()) != 2 * x.rank())
    return NodeError(n, "attribute 'pads' needs {} entries (begins then ends), got {}", 2 * x.rank(), pads.size());
  const std::string mode = n.attrs().Str("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return NodeError(n, "pad mode '{}' is not constant, edge or reflect", mode);
  Shape o = x.shape;
  for (int i = 0; i < x.rank(); ++i) {
    if (pads[i] < 0 || pads[i + x.rank()] < 0) return NodeError(n, "negative pads are not supported");
    if (mode == "reflect" && (pads[i] >= x.shape[i] || pads[i + x.rank()] >= x.shape[i]))
      return NodeError(n, "reflect padding must be smaller than the dimension");
    if (mode == "edge" && x.shape[i] == 0 && pads[i] + pads[i + x.rank()] > 0)
      return NodeError(n, "edge padding of an empty dimension");
    o[i] += pads[i] + pads[i + x.rank()];
  }
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferSqueeze(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  std::vector<int64_t> axes = n.attrs().Ints("axes");
  std::vector<bool> drop(x.rank());
  for (int64_t a : axes) {
    int ax;
    TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", a, x.rank(), &ax));
    if (x.shape[ax] != 1) return NodeError(n, "cannot squeeze axis {} of size {}", a, x.shape[ax]);
    drop[ax] = true;
  }
  Shape o;
  for (int i = 0; i < x.rank(); ++i)
    if (!drop[i]) o.push_back(x.shape[i]);
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferUnsqueeze(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(PerTensorOnly(n, 0));
  const TensorType& x = In(n, 0);
  std::vector<int64_t> axes = n.attrs().Ints("axes");
  const int r = x.rank() + static_cast<int>(axes.size());
  std::vector<bool> add(r);
  for (int64_t a : axes) {
    int ax;
    TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", a, r, &ax));
    if (add[ax]) return NodeError(n, "axis {} repeated", a);
    add[ax] = true;
  }
  Shape o;
  for (int i = 0, j = 0; i < r; ++i) o.push_back(add[i] ? 1 : x.shape[j++]);
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferIdentity(const Node& n, std::vector<TensorType>* out) {
  (*out)[0] = In(n, 0);
  return OkStatus();
}

}  // namespace

void RegisterTensorOps(std::vector<OpDef>* ops) {
  ops->push_back({"flatten", 1, 1, 1, {{"axis", AttrKind::kInt}}, InferFlatten, "to 2-D at axis (default 1)"});
  ops->push_back({"reshape",
                  1,
                  1,
                  1,
                  {{"shape", AttrKind::kInts, true}},
                  InferReshape,
                  "to an explicit shape (the importer resolves 0 and -1)"});
  ops->push_back({"transpose", 1, 1, 1, {{"perm", AttrKind::kInts, true}}, InferTranspose, "permute axes"});
  ops->push_back({"concat", 1, -1, 1, {{"axis", AttrKind::kInt}}, InferConcat, "join along axis"});
  ops->push_back({"pad",
                  1,
                  1,
                  1,
                  {{"pads", AttrKind::kInts, true}, {"mode", AttrKind::kString}, {"value", AttrKind::kFloat}},
                  InferPad,
                  "pad (begins then ends per axis); constant value is a real number"});
  ops->push_back({"squeeze", 1, 1, 1, {{"axes", AttrKind::kInts, true}}, InferSqueeze, "drop size-1 axes"});
  ops->push_back({"unsqueeze",
                  1,
                  1,
                  1,
                  {{"axes", AttrKind::kInts, true}},
                  InferUnsqueeze,
                  "insert size-1 axes (axes index the result)"});
  ops->push_back({"identity", 1, 1, 1, {}, InferIdentity, "copy"});
}

}  // namespace tessera::ir::opdefs
