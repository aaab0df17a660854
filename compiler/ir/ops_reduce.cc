// Type inference for reductions and ops along one axis: reduce_* over a set
// of axes (keepdims), arg_max/arg_min (i64 indices), softmax/log_softmax/
// hardmax and cumsum. reduce_max/reduce_min/arg_* also take per-tensor
// quantized integers (a max of integers is the integer of the max).
#include <algorithm>

#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

bool KeepsQuant(const std::string& op) {
  return op == "reduce_max" || op == "reduce_min" || op == "arg_max" || op == "arg_min";
}

bool FloatOnly(const std::string& op) {
  return op == "reduce_mean" || op == "reduce_l2" || op == "reduce_log_sum" || op == "reduce_log_sum_exp";
}

Status CheckOperand(const Node& n) {
  const TensorType& x = In(n, 0);
  if (x.dtype == DType::kBool) return NodeError(n, "{} must be numeric", Operand(n, 0));
  if (FloatOnly(n.op())) TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  if (!KeepsQuant(n.op())) return ExpectUnquantized(n, 0);
  if (x.quant && x.quant->per_axis()) return NodeError(n, "{} must be quantized per-tensor", Operand(n, 0));
  return OkStatus();
}

// Result shape after reducing `axes` (normalized into `reduced`).
Status ReducedShape(const Node& n, const std::vector<int64_t>& axes, bool keepdims, Shape* o) {
  const TensorType& x = In(n, 0);
  std::vector<bool> reduced(x.rank());
  for (int64_t a : axes) {
    int ax;
    TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", a, x.rank(), &ax));
    if (reduced[ax]) return NodeError(n, "axis {} repeated", a);
    reduced[ax] = true;
  }
  o->clear();
  for (int i = 0; i < x.rank(); ++i) {
    if (!reduced[i])
      o->push_back(x.shape[i]);
    else if (keepdims)
      o->push_back(1);
  }
  return OkStatus();
}

Status InferReduce(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(CheckOperand(n));
  const TensorType& x = In(n, 0);
  const std::vector<int64_t> axes = n.attrs().Ints("axes");
  if (axes.empty()) return NodeError(n, "attribute 'axes' must name at least one axis");
  Shape o;
  TSR_RETURN_IF_ERROR(ReducedShape(n, axes, n.attrs().Int("keepdims", 1) != 0, &o));
  for (int64_t a : axes)
    if (x.shape[a < 0 ? a + x.rank() : a] == 0 && (n.op() == "reduce_max" || n.op() == "reduce_min"))
      return NodeError(n, "max/min over an empty axis");
  (*out)[0] = TensorType(x.dtype, o, KeepsQuant(n.op()) ? x.quant : std::nullopt);
  return OkStatus();
}

Status InferArg(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(CheckOperand(n));
  const TensorType& x = In(n, 0);
  const int64_t axis = n.attrs().Int("axis", 0);
  Shape o;
  TSR_RETURN_IF_ERROR(ReducedShape(n, {axis}, n.attrs().Int("keepdims", 1) != 0, &o));
  if (x.shape[axis < 0 ? axis + x.rank() : axis] == 0) return NodeError(n, "arg max/min over an empty axis");
  (*out)[0] = TensorType(DType::kI64, o);
  return OkStatus();
}

// softmax / log_softmax / hardmax / cumsum: same shape, one axis.
Status InferAlongAxis(const Node& n, std::vector<TensorType>* out) {
  const TensorType& x = In(n, 0);
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  if (n.op() == "cumsum") {
    if (x.dtype == DType::kBool) return NodeError(n, "{} must be numeric", Operand(n, 0));
  } else {
    TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  }
  int axis;
  TSR_RETURN_IF_ERROR(NormalizeAxis(n, "axis", n.attrs().Int("axis", -1), x.rank(), &axis));
  (*out)[0] = TensorType(x.dtype, x.shape);
  return OkStatus();
}

}  // namespace

void RegisterReduceOps(std::vector<OpDef>* ops) {
  const AttrDef axes{"axes", AttrKind::kInts, true}, keep{"keepdims", AttrKind::kInt}, axis{"axis", AttrKind::kInt};
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_l1",
                         "reduce_l2", "reduce_log_sum", "reduce_log_sum_exp", "reduce_sum_square"})
    ops->push_back({op, 1, 1, 1, {axes, keep}, InferReduce, "reduction over axes (keepdims, default 1)"});
  for (const char* op : {"arg_max", "arg_min"})
    ops->push_back({op,
                    1,
                    1,
                    1,
                    {axis, keep, {"select_last_index", AttrKind::kInt}},
                    InferArg,
                    "index of the extreme along axis (i64)"});
  ops->push_back({"softmax", 1, 1, 1, {axis}, InferAlongAxis, "softmax along one axis"});
  ops->push_back({"log_softmax", 1, 1, 1, {axis}, InferAlongAxis, "log of softmax along one axis"});
  ops->push_back({"hardmax", 1, 1, 1, {axis}, InferAlongAxis, "1 at the first maximum along axis, else 0"});
  ops->push_back({"cumsum",
                  1,
                  1,
                  1,
                  {axis, {"exclusive", AttrKind::kInt}, {"reverse", AttrKind::kInt}},
                  InferAlongAxis,
                  "running sum along axis"});
}

}  // namespace tessera::ir::opdefs
