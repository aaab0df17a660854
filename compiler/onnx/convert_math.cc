// Converters for elementwise ops: arithmetic, comparisons and logic (numpy
// broadcasting; opset < 7's broadcast/axis attributes are rewritten into it),
// variadic Min/Max/Sum/Mean as chains, unary functions and activations with
// their attributes, Clip, Where, Cast, Dropout (inference: identity) and
// Identity.
#include <iterator>

#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;

// Operand 1 of a legacy (opset < 7) binary op with broadcast = 1: B's shape
// matches A's dimensions starting at `axis` (default: its trailing ones); it
// is reshaped so numpy broadcasting lines it up.
StatusOr<ir::Value*> LegacyBroadcast(ImportContext& ctx, const onnx::NodeProto& n, AttrReader& ar, ir::Value* a,
                                     ir::Value* b) {
  const bool bcast = ar.Int("broadcast", 0) != 0;
  const int ra = a->type().rank(), rb = b->type().rank();
  const int64_t axis = ar.Int("axis", ra - rb);
  if (!bcast) {
    if (a->type().shape != b->type().shape) return ctx.Error(n, "operand shapes differ without broadcast = 1");
    return b;
  }
  if (axis < 0 || axis + rb > ra) return ctx.Error(n, "broadcast axis {} out of range", axis);
  if (axis + rb == ra) return b;
  ir::Shape s = b->type().shape;
  s.insert(s.end(), ra - axis - rb, 1);
  Attrs at;
  at.Set("shape", s);
  return ctx.EmitInternal(n, "reshape", {b}, at, b->name() + ".bcast");
}

template <const char* kOp>
Status ConvertBinary(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 2));
  if (ctx.Version(n) < 7) {
    TSR_ASSIGN_OR_RETURN(ins[1], LegacyBroadcast(ctx, n, ar, ins[0], ins[1]));
  }
  Attrs a;
  if (std::string(kOp) == "mod" && ar.Int("fmod", 0)) a.Set("fmod", int64_t{1});
  TSR_RETURN_IF_ERROR(ar.Finish());
  return ctx.Emit(n, kOp, ins, a).status();
}

// Min, Max, Sum, Mean: a left-to-right chain of binary ops (Mean divides).
Status ConvertVariadic(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  const std::string& t = n.op_type();
  const std::string op = t == "Min" ? "min" : t == "Max" ? "max" : "add";
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, n.input_size()));
  if (ins.empty()) return ctx.Error(n, "needs at least one input");
  if (ins.size() == 1 && t != "Mean") return ctx.Emit(n, "identity", ins, {}).status();
  ir::Value* acc = ins[0];
  for (size_t i = 1; i + (t == "Mean" ? 0 : 1) < ins.size(); ++i) {
    TSR_ASSIGN_OR_RETURN(acc, ctx.EmitInternal(n, op, {acc, ins[i]}, {}, n.output(0) + ".acc"));
  }
  if (t != "Mean") return ctx.Emit(n, op, {acc, ins.back()}, {}).status();
  ir::Tensor count(ir::DType::kF32, {});
  count.data<float>()[0] = static_cast<float>(ins.size());
  ir::Value* c = ctx.graph().AddConstant(ctx.NewName(n.output(0) + ".count"), std::move(count));
  return ctx.Emit(n, "div", {acc, c}, {}).status();
}

// Unary ops and activations; `attrs` lists (ONNX name, IR name, default) of
// float attributes to carry over.
struct FloatAttr {
  const char* onnx;
  const char* ir;
  float dflt;
};

Status ConvertUnary(ImportContext& ctx, const onnx::NodeProto& n, const std::string& op,
                    std::initializer_list<FloatAttr> attrs) {
  AttrReader ar(ctx, n);
  Attrs a;
  for (const FloatAttr& f : attrs) a.Set(f.ir, ar.Float(f.onnx, f.dflt));
  if (op == "is_inf") {
    a.Set("detect_negative", ar.Int("detect_negative", 1));
    a.Set("detect_positive", ar.Int("detect_positive", 1));
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  return ctx.Emit(n, op, {x}, a).status();
}

template <const char* kOp>
Status ConvertPlainUnary(ImportContext& ctx, const onnx::NodeProto& n) {
  return ConvertUnary(ctx, n, kOp, {});
}

Status ConvertPRelu(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 2));
  // A per-channel slope [C] of an [N, C, ...] input (opset 6 semantics, and
  // what exporters emit) is lined up with axis 1.
  const ir::Shape& xs = ins[0]->type().shape;
  const ir::Shape& ss = ins[1]->type().shape;
  if (ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1] && ss[0] != xs.back()) {
    ir::Shape s = {ss[0]};
    s.insert(s.end(), xs.size() - 2, 1);
    Attrs at;
    at.Set("shape", s);
    TSR_ASSIGN_OR_RETURN(ins[1], ctx.EmitInternal(n, "reshape", {ins[1]}, at, ins[1]->name() + ".c11"));
  }
  return ctx.Emit(n, "prelu", ins, {}).status();
}

Status ConvertClip(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  if (ctx.Version(n) < 11) {  // bounds are attributes
    if (ar.Has("min")) a.Set("min", ar.Float("min", 0));
    if (ar.Has("max")) a.Set("max", ar.Float("max", 0));
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  const char* names[] = {"", "min", "max"};
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.HasInput(n, i)) continue;
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* t, ctx.ConstInput(n, i, names[i]));
    if (t->numel() != 1) return ctx.Error(n, "input '{}' must be a scalar", names[i]);
    a.Set(names[i], static_cast<float>(t->GetAsDouble(0)));
  }
  return ctx.Emit(n, "clip", {x}, a).status();
}

Status ConvertWhere(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 3));
  return ctx.Emit(n, "where", ins, {}).status();
}

Status ConvertCast(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t to = ar.Int("to", 0);
  ar.Ignore("saturate");
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::DType t, DTypeFromOnnx(static_cast<int32_t>(to), ctx.model() + ": " + ctx.Describe(n)));
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  Attrs a;
  a.Set("to", std::string(ir::DTypeName(t)));
  return ctx.Emit(n, "cast", {x}, a).status();
}

// Inference-mode Dropout: the identity; the optional mask is all true.
Status ConvertDropout(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  ar.Ignore("seed");
  ar.Ignore("ratio");
  if (ar.Int("is_test", 1) == 0) return ctx.Unsupported(n, "training-mode dropout (is_test = 0) is not supported");
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (ctx.HasInput(n, 2)) {
    TSR_ASSIGN_OR_RETURN(const ir::Tensor* t, ctx.ConstInput(n, 2, "training_mode"));
    if (t->numel() != 1 || t->GetAsDouble(0) != 0)
      return ctx.Unsupported(n, "training-mode dropout (training_mode = true) is not supported");
  }
  onnx::NodeProto first = n;
  first.clear_output();
  first.add_output(n.output(0));
  TSR_RETURN_IF_ERROR(ctx.Emit(first, "identity", {x}, {}).status());
  if (n.output_size() > 1 && !n.output(1).empty()) {
    ir::Tensor mask(ir::DType::kBool, x->type().shape);
    std::fill(mask.raw(), mask.raw() + mask.nbytes(), uint8_t{1});
    onnx::NodeProto second = n;
    second.clear_output();
    second.add_output(n.output(1));
    return ctx.EmitConstant(second, std::move(mask));
  }
  return OkStatus();
}

Status ConvertIdentity(ImportContext& ctx, const onnx::NodeProto& n) { return ConvertSimple(ctx, n, "identity", 1); }

constexpr char kAdd[] = "add", kSub[] = "sub", kMul[] = "mul", kDiv[] = "div", kPow[] = "pow", kMod[] = "mod",
               kEq[] = "equal", kLt[] = "less", kLe[] = "less_equal", kGt[] = "greater", kGe[] = "greater_equal",
               kAnd[] = "and", kOr[] = "or", kXor[] = "xor";
constexpr char kNot[] = "not", kNeg[] = "neg", kAbs[] = "abs", kSign[] = "sign", kRelu[] = "relu",
               kSigmoid[] = "sigmoid", kTanh[] = "tanh", kErf[] = "erf", kExp[] = "exp", kLog[] = "log",
               kSqrt[] = "sqrt", kRecip[] = "reciprocal", kCeil[] = "ceil", kFloor[] = "floor", kRound[] = "round",
               kSin[] = "sin", kCos[] = "cos", kTan[] = "tan", kAsin[] = "asin", kAcos[] = "acos", kAtan[] = "atan",
               kSinh[] = "sinh", kCosh[] = "cosh", kAsinh[] = "asinh", kAcosh[] = "acosh", kAtanh[] = "atanh",
               kSoftplus[] = "softplus", kSoftsign[] = "softsign", kHardSwish[] = "hard_swish", kIsNan[] = "is_nan";

const ConverterEntry kEntries[] = {
    {"Add", ConvertBinary<kAdd>, 6},
    {"Sub", ConvertBinary<kSub>, 6},
    {"Mul", ConvertBinary<kMul>, 6},
    {"Div", ConvertBinary<kDiv>, 6},
    {"Pow", ConvertBinary<kPow>, 1},
    {"Mod", ConvertBinary<kMod>},
    {"Equal", ConvertBinary<kEq>, 7},
    {"Less", ConvertBinary<kLt>, 7},
    {"LessOrEqual", ConvertBinary<kLe>},
    {"Greater", ConvertBinary<kGt>, 7},
    {"GreaterOrEqual", ConvertBinary<kGe>},
    {"And", ConvertBinary<kAnd>, 7},
    {"Or", ConvertBinary<kOr>, 7},
    {"Xor", ConvertBinary<kXor>, 7},
    {"Min", ConvertVariadic, 6},
    {"Max", ConvertVariadic, 6},
    {"Sum", ConvertVariadic, 6},
    {"Mean", ConvertVariadic, 6},
    {"PRelu", ConvertPRelu, 6},
    {"Not", ConvertPlainUnary<kNot>, 1},
    {"Neg", ConvertPlainUnary<kNeg>, 6},
    {"Abs", ConvertPlainUnary<kAbs>, 6},
    {"Sign", ConvertPlainUnary<kSign>, 9},
    {"Relu", ConvertPlainUnary<kRelu>, 6},
    {"Sigmoid", ConvertPlainUnary<kSigmoid>, 6},
    {"Tanh", ConvertPlainUnary<kTanh>, 6},
    {"Erf", ConvertPlainUnary<kErf>, 9},
    {"Exp", ConvertPlainUnary<kExp>, 6},
    {"Log", ConvertPlainUnary<kLog>, 6},
    {"Sqrt", ConvertPlainUnary<kSqrt>, 6},
    {"Reciprocal", ConvertPlainUnary<kRecip>, 6},
    {"Ceil", ConvertPlainUnary<kCeil>, 6},
    {"Floor", ConvertPlainUnary<kFloor>, 6},
    {"Round", ConvertPlainUnary<kRound>, 11},
    {"Sin", ConvertPlainUnary<kSin>, 7},
    {"Cos", ConvertPlainUnary<kCos>, 7},
    {"Tan", ConvertPlainUnary<kTan>, 7},
    {"Asin", ConvertPlainUnary<kAsin>, 7},
    {"Acos", ConvertPlainUnary<kAcos>, 7},
    {"Atan", ConvertPlainUnary<kAtan>, 7},
    {"Sinh", ConvertPlainUnary<kSinh>, 9},
    {"Cosh", ConvertPlainUnary<kCosh>, 9},
    {"Asinh", ConvertPlainUnary<kAsinh>, 9},
    {"Acosh", ConvertPlainUnary<kAcosh>, 9},
    {"Atanh", ConvertPlainUnary<kAtanh>, 9},
    {"Softplus", ConvertPlainUnary<kSoftplus>, 1},
    {"Softsign", ConvertPlainUnary<kSoftsign>, 1},
    {"HardSwish", ConvertPlainUnary<kHardSwish>, 14},
    {"IsNaN", ConvertPlainUnary<kIsNan>, 9},
    {"IsInf", [](ImportContext& c, const onnx::NodeProto& n) { return ConvertUnary(c, n, "is_inf", {}); }, 10},
    {"HardSigmoid",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "hard_sigmoid", {{"alpha", "alpha", 0.2f}, {"beta", "beta", 0.5f}});
     },
     6},
    {"LeakyRelu",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "leaky_relu", {{"alpha", "alpha", 0.01f}});
     },
     6},
    {"Elu",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "elu", {{"alpha", "alpha", 1.f}});
     },
     6},
    {"Celu",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "celu", {{"alpha", "alpha", 1.f}});
     }},
    {"Selu",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(
           c, n, "selu",
           {{"alpha", "alpha", 1.67326319217681884765625f}, {"gamma", "gamma", 1.05070102214813232421875f}});
     },
     6},
    {"ThresholdedRelu",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "thresholded_relu", {{"alpha", "alpha", 1.f}});
     }},
    {"Shrink",
     [](ImportContext& c, const onnx::NodeProto& n) {
       return ConvertUnary(c, n, "shrink", {{"bias", "bias", 0.f}, {"lambd", "lambd", 0.5f}});
     },
     9},
    {"Clip", ConvertClip, 6},
    {"Where", ConvertWhere},
    {"Cast", ConvertCast, 6},
    {"Dropout", ConvertDropout, 6},
    {"Identity", ConvertIdentity, 1},
};

}  // namespace

std::vector<ConverterEntry> MathConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
