// Type inference for elementwise ops: binary arithmetic and comparisons with
// numpy broadcasting, logical ops on bool, where, cast, and the unary math
// functions and activations. Float-only functions take unquantized f32;
// numeric ops also take raw integers. `add` may carry a fused clamp.
#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

const AttrDef kActMin{"act_min", AttrKind::kFloat}, kActMax{"act_max", AttrKind::kFloat};

bool Numeric(DType t) { return t != DType::kBool; }

Status ExpectNumeric(const Node& n, int i) {
  if (!Numeric(In(n, i).dtype)) return NodeError(n, "{} must be numeric", Operand(n, i));
  return ExpectUnquantized(n, i);
}

Status ExpectBool(const Node& n, int i) { return ExpectDType(n, i, DType::kBool); }

// Both operands of one unquantized type; result shape is their broadcast.
Status SameTypeBroadcast(const Node& n, Shape* o) {
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 1));
  if (In(n, 0).dtype != In(n, 1).dtype)
    return NodeError(n, "operand types differ: {} and {}", Operand(n, 0), Operand(n, 1));
  return Broadcast(n, In(n, 0).shape, In(n, 1).shape, o);
}

// add/sub/mul/div/min/max/mod: numeric, result of the operands' type.
Status InferArith(const Node& n, std::vector<TensorType>* out) {
  Shape o;
  TSR_RETURN_IF_ERROR(SameTypeBroadcast(n, &o));
  TSR_RETURN_IF_ERROR(ExpectNumeric(n, 0));
  if (n.op() != "add" && (n.attrs().Has("act_min") || n.attrs().Has("act_max")))
    return NodeError(n, "only add takes a fused activation");
  const float lo = n.attrs().Float("act_min", -INFINITY), hi = n.attrs().Float("act_max", INFINITY);
  if (!(lo <= hi)) return NodeError(n, "act_min {} exceeds act_max {}", lo, hi);
  if (n.op() == "mod" && In(n, 0).dtype == DType::kF32 && !n.attrs().Int("fmod", 0))
    return NodeError(n, "float mod needs fmod = 1");
  (*out)[0] = TensorType(In(n, 0).dtype, o);
  return OkStatus();
}

// pow: the base's type; the exponent may be any numeric type.
Status InferPow(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectNumeric(n, 0));
  TSR_RETURN_IF_ERROR(ExpectNumeric(n, 1));
  Shape o;
  TSR_RETURN_IF_ERROR(Broadcast(n, In(n, 0).shape, In(n, 1).shape, &o));
  (*out)[0] = TensorType(In(n, 0).dtype, o);
  return OkStatus();
}

// prelu: the slope broadcasts to x (unidirectionally).
Status InferPRelu(const Node& n, std::vector<TensorType>* out) {
  Shape o;
  TSR_RETURN_IF_ERROR(SameTypeBroadcast(n, &o));
  TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  if (o != In(n, 0).shape) return NodeError(n, "slope {} does not broadcast to x", Operand(n, 1));
  (*out)[0] = In(n, 0);
  return OkStatus();
}

Status InferCompare(const Node& n, std::vector<TensorType>* out) {
  Shape o;
  TSR_RETURN_IF_ERROR(SameTypeBroadcast(n, &o));
  if (n.op() != "equal") TSR_RETURN_IF_ERROR(ExpectNumeric(n, 0));
  (*out)[0] = TensorType(DType::kBool, o);
  return OkStatus();
}

Status InferLogical(const Node& n, std::vector<TensorType>* out) {
  for (int i = 0; i < n.num_inputs(); ++i) TSR_RETURN_IF_ERROR(ExpectBool(n, i));
  Shape o = In(n, 0).shape;
  if (n.num_inputs() == 2) TSR_RETURN_IF_ERROR(Broadcast(n, In(n, 0).shape, In(n, 1).shape, &o));
  (*out)[0] = TensorType(DType::kBool, o);
  return OkStatus();
}

// where(cond, x, y): x and y of one type (quantized alike: the choice keeps
// the integers), three-way broadcasting.
Status InferWhere(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectBool(n, 0));
  const TensorType &x = In(n, 1), &y = In(n, 2);
  if (x.dtype != y.dtype || x.quant != y.quant)
    return NodeError(n, "{} and {} differ in element type or quantization", Operand(n, 1), Operand(n, 2));
  if (x.quant && x.quant->per_axis()) return NodeError(n, "{} must be quantized per-tensor", Operand(n, 1));
  Shape a, o;
  TSR_RETURN_IF_ERROR(Broadcast(n, In(n, 0).shape, x.shape, &a));
  TSR_RETURN_IF_ERROR(Broadcast(n, a, y.shape, &o));
  (*out)[0] = TensorType(x.dtype, o, x.quant);
  return OkStatus();
}

Status InferCast(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  const std::string to = n.attrs().Str("to");
  std::optional<DType> t = ParseDType(to);
  if (!t) return NodeError(n, "unknown element type '{}'", to);
  (*out)[0] = TensorType(*t, In(n, 0).shape);
  return OkStatus();
}

// relu / clip: float or raw integers.
Status InferClamp(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectNumeric(n, 0));
  if (n.attrs().Float("min", -INFINITY) > n.attrs().Float("max", INFINITY)) return NodeError(n, "min exceeds max");
  (*out)[0] = TensorType(In(n, 0).dtype, In(n, 0).shape);
  return OkStatus();
}

// neg / abs / sign: any numeric type.
Status InferNumericUnary(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectNumeric(n, 0));
  (*out)[0] = TensorType(In(n, 0).dtype, In(n, 0).shape);
  return OkStatus();
}

Status InferFloatUnary(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  if (n.op() == "gelu") {
    const std::string a = n.attrs().Str("approximate", "none");
    if (a != "none" && a != "tanh") return NodeError(n, "approximate must be 'none' or 'tanh', got '{}'", a);
  }
  (*out)[0] = TensorType(DType::kF32, In(n, 0).shape);
  return OkStatus();
}

Status InferFloatPredicate(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloat(n, 0));
  TSR_RETURN_IF_ERROR(ExpectUnquantized(n, 0));
  (*out)[0] = TensorType(DType::kBool, In(n, 0).shape);
  return OkStatus();
}

}  // namespace

void RegisterMathOps(std::vector<OpDef>* ops) {
  for (const char* op : {"add", "sub", "mul", "div", "min", "max"})
    ops->push_back({op, 2, 2, 1, {kActMin, kActMax}, InferArith, "elementwise with numpy broadcasting"});
  ops->push_back(
      {"mod", 2, 2, 1, {{"fmod", AttrKind::kInt}}, InferArith, "remainder (fmod = 1: sign of the dividend)"});
  ops->push_back({"pow", 2, 2, 1, {}, InferPow, "x ^ y (result of x's type)"});
  ops->push_back({"prelu", 2, 2, 1, {}, InferPRelu, "x < 0 ? slope * x : x (slope broadcasts to x)"});
  for (const char* op : {"equal", "less", "less_equal", "greater", "greater_equal"})
    ops->push_back({op, 2, 2, 1, {}, InferCompare, "comparison with broadcasting -> bool"});
  for (const char* op : {"and", "or", "xor"}) ops->push_back({op, 2, 2, 1, {}, InferLogical, "logical, bool"});
  ops->push_back({"not", 1, 1, 1, {}, InferLogical, "logical not, bool"});
  ops->push_back({"where", 3, 3, 1, {}, InferWhere, "cond ? x : y with broadcasting"});
  ops->push_back({"cast", 1, 1, 1, {{"to", AttrKind::kString, true}}, InferCast, "element type conversion"});
  ops->push_back({"relu", 1, 1, 1, {}, InferClamp, "max(x, 0)"});
  ops->push_back(
      {"clip", 1, 1, 1, {{"min", AttrKind::kFloat}, {"max", AttrKind::kFloat}}, InferClamp, "min(max(x, min), max)"});
  for (const char* op : {"neg", "abs", "sign"}) ops->push_back({op, 1, 1, 1, {}, InferNumericUnary, "elementwise"});
  for (const char* op :
       {"sigmoid", "tanh",  "erf",   "exp",      "log",      "sqrt",       "reciprocal", "ceil", "floor",
        "round",   "sin",   "cos",   "tan",      "asin",     "acos",       "atan",       "sinh", "cosh",
        "asinh",   "acosh", "atanh", "softplus", "softsign", "hard_swish", "mish"})
    ops->push_back({op, 1, 1, 1, {}, InferFloatUnary, "elementwise float function"});
  const AttrDef alpha{"alpha", AttrKind::kFloat};
  ops->push_back({"hard_sigmoid",
                  1,
                  1,
                  1,
                  {alpha, {"beta", AttrKind::kFloat}},
                  InferFloatUnary,
                  "max(0, min(1, alpha * x + beta))"});
  ops->push_back({"leaky_relu", 1, 1, 1, {alpha}, InferFloatUnary, "x < 0 ? alpha * x : x"});
  ops->push_back({"elu", 1, 1, 1, {alpha}, InferFloatUnary, "x < 0 ? alpha * (exp(x) - 1) : x"});
  ops->push_back({"celu", 1, 1, 1, {alpha}, InferFloatUnary, "max(0, x) + min(0, alpha * (exp(x / alpha) - 1))"});
  ops->push_back({"selu", 1, 1, 1, {alpha, {"gamma", AttrKind::kFloat}}, InferFloatUnary, "gamma * elu(x) with alpha"});
  ops->push_back({"thresholded_relu", 1, 1, 1, {alpha}, InferFloatUnary, "x > alpha ? x : 0"});
  ops->push_back({"shrink",
                  1,
                  1,
                  1,
                  {{"bias", AttrKind::kFloat}, {"lambd", AttrKind::kFloat}},
                  InferFloatUnary,
                  "x < -lambd ? x + bias : x > lambd ? x - bias : 0"});
  ops->push_back({"gelu",
                  1,
                  1,
                  1,
                  {{"approximate", AttrKind::kString}},
                  InferFloatUnary,
                  "x * Phi(x) (approximate = tanh: the tanh form)"});
  ops->push_back({"is_nan", 1, 1, 1, {}, InferFloatPredicate, "x is NaN -> bool"});
  ops->push_back({"is_inf",
                  1,
                  1,
                  1,
                  {{"detect_negative", AttrKind::kInt}, {"detect_positive", AttrKind::kInt}},
                  InferFloatPredicate,
                  "x is infinite -> bool"});
}

}  // namespace tessera::ir::opdefs
