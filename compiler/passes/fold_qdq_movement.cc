// fold-qdq patterns for the ops that move data without computing on it:
// max pool and data movement run on the int8 values (+ a requantize if the
// scale changes), concat requantizes its operands to its own parameters,
// quantize(dequantize(x)) is x or a requantize, and a quantize after a float
// reshape-like op moves above it.
#include <algorithm>

#include "compiler/ir/ops.h"
#include "compiler/passes/fold_qdq.h"
#include "compiler/passes/rewrite.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::passes::qdq {

bool IsMovement(const std::string& op) {
  return op == "max_pool" || op == "global_max_pool" || op == "reshape" || op == "flatten" || op == "transpose" ||
         op == "squeeze" || op == "unsqueeze" || op == "identity" || op == "pad" || op == "slice" || op == "expand" ||
         op == "tile" || op == "resize" || op == "gather";
}

// y = quantize(op(dequantize(x))) for ops that commute with the affine map
// (a gather's indices, operand 1, are carried over).
bool FoldMovement(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  if (!x || !x->type().quant || x->type().quant->per_axis()) return false;
  if (p->op() == "resize" && p->attrs().Str("mode", "nearest") != "nearest") return false;  // only copies commute
  if (p->op() == "pad" && p->attrs().Str("mode", "constant") == "constant" && x->type().dtype != ir::DType::kI8 &&
      x->type().dtype != ir::DType::kU8)
    return false;
  std::vector<ir::Value*> in = p->inputs();
  in[0] = x;
  const ir::TensorType& y = q->output()->type();
  if (y.quant == x->type().quant) {
    ReplaceQuantize(g, q, p->op(), in, p->attrs());
    return true;
  }
  if (!SymI8(x->type()) || !SymI8(y)) return false;
  // Same op on int8, then a requantize to the output scale.
  ir::Node* moved = g.AddNode(p->op(), in, {g.UniqueName(q->output()->name() + ".i8")}, p->attrs(), p->name(), q);
  std::vector<ir::TensorType> types;
  if (!ir::InferNodeTypes(*moved, &types).ok()) {
    g.RemoveNode(moved);
    return false;
  }
  moved->output()->set_type(types[0]);
  auto fp = quant::ChooseFixedPoint({double(Scale(x)) / y.quant->scale[0]});
  if (!fp.ok()) {
    g.RemoveNode(moved);
    return false;
  }
  ir::Attrs a;
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  ReplaceQuantize(g, q, "requantize", {moved->output()}, a);
  return true;
}

// quantize(m(v)) -> m(quantize(v)) for a reshape-like m whose operand is a
// float result only m reads: the quantize moves up to v's producer, where it
// may fold (ONNX Runtime leaves ReduceMean float: global_avg_pool + flatten).
bool HoistQuantize(ir::Graph& g, ir::Node* q, ir::Node* p) {
  static const std::vector<std::string> kReshapes = {"reshape", "flatten", "squeeze", "unsqueeze", "transpose"};
  ir::Value* v = p->input(0);
  if (std::find(kReshapes.begin(), kReshapes.end(), p->op()) == kReshapes.end() || !v->producer() ||
      v->producer()->op() == "dequantize" || v->type().dtype != ir::DType::kF32 || !SingleNodeUse(g, v))
    return false;
  const ir::TensorType& y = q->output()->type();
  if (!y.quant || y.quant->per_axis()) return false;  // an axis would not survive the reshape
  ir::Node* vq = g.AddNode("quantize", {v}, {g.UniqueName(v->name() + ".q")}, {}, "", p);
  vq->output()->set_type(ir::TensorType(y.dtype, v->type().shape, y.quant));
  std::vector<ir::Value*> in = p->inputs();
  in[0] = vq->output();
  ReplaceQuantize(g, q, p->op(), in, p->attrs());
  return true;
}

// Operands at other parameters are requantized first: a requantize between
// symmetric scales; with zero points (ONNX Runtime's uint8 concat, which has
// its own parameters) on the channels of rank-4 values, a 1x1 qconv with
// identity weights (no requantize form takes zero points).
bool FoldConcat(ir::Graph& g, ir::Node* q, ir::Node* p) {
  const ir::TensorType& y = q->output()->type();
  if (!PerTensorI8(y)) return false;
  bool sym = SymI8(y);
  std::vector<ir::Value*> xs;
  for (ir::Value* in : p->inputs()) {
    ir::Value* x = Dq(in);
    if (!x || !PerTensorI8(x->type())) return false;
    sym &= SymI8(x->type());
    xs.push_back(x);
  }
  const int64_t axis = p->attrs().Int("axis", 0);
  if (!sym && (y.rank() != 4 || (axis != 1 && axis != -3))) return false;
  for (ir::Value*& x : xs) {
    if (x->type().quant == y.quant) continue;
    if (sym) {
      x = Requantize(g, q, x, *y.quant);
    } else {
      std::vector<int64_t> all(static_cast<size_t>(x->type().shape[1]));
      for (size_t c = 0; c < all.size(); ++c) all[c] = static_cast<int64_t>(c);
      ir::Node* r = AddSelectionConv(g, x, all, *y.quant, x->name() + ".rq", p->name(), q);
      x = r ? r->output() : nullptr;
    }
    if (!x) return false;
  }
  ReplaceQuantize(g, q, "concat", xs, p->attrs());
  return true;
}

// quantize(dequantize(x)): x itself, or a requantize between int8 scales.
bool FoldRoundTrip(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = p->input(0);
  const ir::TensorType& y = q->output()->type();
  if (x->type() == y) {
    ReplaceQuantize(g, q, "identity", {x}, {});
    return true;
  }
  if (!SymI8(x->type()) || !SymI8(y)) return false;
  auto fp = quant::ChooseFixedPoint({double(Scale(x)) / y.quant->scale[0]});
  if (!fp.ok()) return false;
  ir::Attrs a;
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  ReplaceQuantize(g, q, "requantize", {x}, a);
  return true;
}

}  // namespace tessera::passes::qdq
