// Op table assembly, attribute checking and the shared inference helpers.
#include "compiler/ir/ops.h"

#include "compiler/ir/graph.h"
#include "compiler/ir/ops_util.h"

namespace tessera::ir {

const AttrDef* OpDef::FindAttr(std::string_view attr) const {
  for (const AttrDef& a : attrs)
    if (a.name == attr) return &a;
  return nullptr;
}

const std::vector<OpDef>& AllOps() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> v;
    opdefs::RegisterNnOps(&v);
    opdefs::RegisterMathOps(&v);
    opdefs::RegisterReduceOps(&v);
    opdefs::RegisterTensorOps(&v);
    opdefs::RegisterShapeOps(&v);
    opdefs::RegisterRnnOps(&v);
    opdefs::RegisterQuantOps(&v);
    opdefs::RegisterQLinearOps(&v);
    return v;
  }();
  return ops;
}

const OpDef* FindOp(std::string_view name) {
  for (const OpDef& d : AllOps())
    if (d.name == name) return &d;
  return nullptr;
}

Status InferNodeTypes(const Node& node, std::vector<TensorType>* out) {
  const OpDef* def = FindOp(node.op());
  if (!def) return UnimplementedError("{}: unknown op '{}'", node.Describe(), node.op());
  const int n = node.num_inputs();
  if (n < def->min_inputs || (def->max_inputs >= 0 && n > def->max_inputs)) {
    if (def->max_inputs < 0) return opdefs::NodeError(node, "takes at least {} inputs, got {}", def->min_inputs, n);
    if (def->min_inputs == def->max_inputs)
      return opdefs::NodeError(node, "takes {} inputs, got {}", def->min_inputs, n);
    return opdefs::NodeError(node, "takes {} to {} inputs, got {}", def->min_inputs, def->max_inputs, n);
  }
  if (node.num_outputs() != def->num_outputs)
    return opdefs::NodeError(node, "has {} results, expected {}", node.num_outputs(), def->num_outputs);
  for (const auto& [name, value] : node.attrs().map()) {
    const AttrDef* a = def->FindAttr(name);
    if (!a) return opdefs::NodeError(node, "unknown attribute '{}'", name);
    if (KindOf(value) != a->kind)
      return opdefs::NodeError(node, "attribute '{}' must be a {}, got a {}", name, AttrKindName(a->kind),
                               AttrKindName(KindOf(value)));
  }
  for (const AttrDef& a : def->attrs)
    if (a.required && !node.attrs().Has(a.name))
      return opdefs::NodeError(node, "missing required attribute '{}'", a.name);
  out->clear();
  for (Value* v : node.outputs()) out->push_back(v->type());
  TSR_RETURN_IF_ERROR(def->infer(node, out));
  for (int i = 0; i < static_cast<int>(out->size()); ++i) {
    const std::string what = fmt::format("{}: result '%{}'", node.Describe(), node.output(i)->name());
    TSR_RETURN_IF_ERROR(ValidateShape((*out)[i].shape, what));
    TSR_RETURN_IF_ERROR(ValidateQuant((*out)[i], what));
  }
  return OkStatus();
}

namespace opdefs {

std::string Operand(const Node& n, int i) {
  return fmt::format("input {} '%{}' ({})", i, n.input(i)->name(), TypeToString(n.input(i)->type()));
}

Status ExpectRank(const Node& n, int i, int rank) {
  if (In(n, i).rank() != rank) return NodeError(n, "{} must have rank {}", Operand(n, i), rank);
  return OkStatus();
}

Status ExpectDType(const Node& n, int i, DType t) {
  if (In(n, i).dtype != t) return NodeError(n, "{} must be {}", Operand(n, i), DTypeName(t));
  return OkStatus();
}

Status ExpectFloat(const Node& n, int i) { return ExpectDType(n, i, DType::kF32); }

Status ExpectFloatOperands(const Node& n) {
  for (int i = 0; i < n.num_inputs(); ++i) {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, i));
    TSR_RETURN_IF_ERROR(ExpectUnquantized(n, i));
  }
  return OkStatus();
}

Status ExpectUnquantized(const Node& n, int i) {
  if (In(n, i).quant) return NodeError(n, "{} must not be quantized", Operand(n, i));
  return OkStatus();
}

Status PerTensorOnly(const Node& n, int i) {
  if (In(n, i).quant && In(n, i).quant->per_axis())
    return NodeError(n, "{} must be quantized per-tensor", Operand(n, i));
  return OkStatus();
}

bool IsInt8(DType t) { return t == DType::kI8 || t == DType::kU8; }

Status ExpectBias(const Node& n, int i, int64_t channels) {
  if (i >= n.num_inputs()) return OkStatus();
  TSR_RETURN_IF_ERROR(ExpectDType(n, i, DType::kI32));
  if (In(n, i).shape != Shape{channels}) return NodeError(n, "{} must have shape [{}]", Operand(n, i), channels);
  return OkStatus();
}

Status ExpectSymmetricI8(const Node& n, int i) {
  const TensorType& t = In(n, i);
  if (t.dtype != DType::kI8 || !t.quant || t.quant->per_axis() || !t.quant->symmetric())
    return NodeError(n, "{} must be i8 quantized per-tensor with zero point 0", Operand(n, i));
  return OkStatus();
}

Status ExpectPerTensorI8(const Node& n, int i) {
  const TensorType& t = In(n, i);
  if (t.dtype != DType::kI8 || !t.quant || t.quant->per_axis())
    return NodeError(n, "{} must be i8 quantized per-tensor", Operand(n, i));
  return OkStatus();
}

Status ExpectDeclaredPerTensorI8(const Node& n, const std::vector<TensorType>& out, int r) {
  const TensorType& t = out[r];
  if (t.dtype != DType::kI8 || !t.quant || t.quant->per_axis())
    return NodeError(n, "result '%{}' must be declared i8 quantized per-tensor, got {}", n.output(r)->name(),
                     TypeToString(t));
  return OkStatus();
}

Status ExpectDeclaredSymmetricI8(const Node& n, const std::vector<TensorType>& out, int r) {
  const TensorType& t = out[r];
  if (t.dtype != DType::kI8 || !t.quant || t.quant->per_axis() || !t.quant->symmetric())
    return NodeError(n, "result '%{}' must be declared i8 quantized per-tensor with zero point 0, got {}",
                     n.output(r)->name(), TypeToString(t));
  return OkStatus();
}

Status Broadcast(const Node& n, const Shape& a, const Shape& b, Shape* out) {
  const size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1)
      return NodeError(n, "shapes {} and {} do not broadcast", ShapeToString(a), ShapeToString(b));
    (*out)[i] = da == 1 ? db : da;
  }
  return OkStatus();
}

Status NormalizeAxis(const Node& n, const char* what, int64_t axis, int rank, int* out) {
  if (axis < -rank || axis >= rank) return NodeError(n, "{} {} out of range for rank {}", what, axis, rank);
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return OkStatus();
}

Status ReadWindow(const Node& n, bool needs_kernel, Window2D* w) {
  const Attrs& a = n.attrs();
  w->kernel = a.Ints("kernel", {});
  if (needs_kernel && w->kernel.size() != 2)
    return NodeError(n, "attribute 'kernel' must have 2 entries, got {}", w->kernel.size());
  w->strides = a.Ints("strides", {1, 1});
  w->pads = a.Ints("pads", {0, 0, 0, 0});
  w->dilations = a.Ints("dilations", {1, 1});
  w->ceil_mode = a.Int("ceil_mode", 0) != 0;
  if (w->strides.size() != 2) return NodeError(n, "attribute 'strides' must have 2 entries");
  if (w->dilations.size() != 2) return NodeError(n, "attribute 'dilations' must have 2 entries");
  if (w->pads.size() != 4) return NodeError(n, "attribute 'pads' must have 4 entries [top, left, bottom, right]");
  for (int i = 0; i < 2; ++i) {
    if (w->strides[i] < 1 || w->strides[i] > 1 << 16) return NodeError(n, "stride {} out of range", w->strides[i]);
    if (w->dilations[i] < 1 || w->dilations[i] > 1 << 16)
      return NodeError(n, "dilation {} out of range", w->dilations[i]);
  }
  for (int64_t p : w->pads)
    if (p < 0 || p > 1 << 16) return NodeError(n, "pad {} out of range", p);
  for (int64_t k : w->kernel)
    if (k < 1 || k > 1 << 16) return NodeError(n, "kernel size {} out of range", k);
  return OkStatus();
}

Status WindowOutput(const Node& n, const Window2D& w, int axis, int64_t in, int64_t* out) {
  const int64_t extent = (w.kernel[axis] - 1) * w.dilations[axis] + 1;
  const int64_t span = in + w.pads[axis] + w.pads[axis + 2] - extent;
  if (span < 0)
    return NodeError(n, "window of extent {} does not fit the padded input of size {} along spatial axis {}", extent,
                     in + w.pads[axis] + w.pads[axis + 2], axis);
  *out = (w.ceil_mode ? (span + w.strides[axis] - 1) / w.strides[axis] : span / w.strides[axis]) + 1;
  return OkStatus();
}

}  // namespace opdefs
}  // namespace tessera::ir
