// Converters for LSTM, GRU and RNN. Absent biases and initial states become
// zero constants, so the IR ops have every operand; sequence_lens must be a
// constant equal to the sequence length everywhere (padded batches are not
// supported); layout = 1 (batch-major) is lowered with transposes around the
// sequence-major op.
#include <iterator>

#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;

ir::Value* Zeros(ImportContext& ctx, const std::string& base, const ir::Shape& s) {
  return ctx.graph().AddConstant(ctx.NewName(base), ir::Tensor(ir::DType::kF32, s));
}

StatusOr<ir::Value*> Transpose(ImportContext& ctx, const onnx::NodeProto& n, ir::Value* v,
                               const std::vector<int64_t>& perm) {
  Attrs a;
  a.Set("perm", perm);
  return ctx.EmitInternal(n, "transpose", {v}, a, v->name() + ".t");
}

Status ConvertRecurrent(ImportContext& ctx, const onnx::NodeProto& n) {
  const std::string& t = n.op_type();
  const std::string op = t == "LSTM" ? "lstm" : t == "GRU" ? "gru" : "rnn";
  const int gates = op == "lstm" ? 4 : op == "gru" ? 3 : 1;
  AttrReader ar(ctx, n);
  Attrs a;
  const std::string dir = ar.Str("direction", "forward");
  const int64_t h = ar.Int("hidden_size", 0);
  a.Set("direction", dir);
  a.Set("hidden_size", h);
  if (ar.Has("clip")) a.Set("clip", ar.Float("clip", 0));
  std::string acts;
  for (const std::string& s : ar.Strings("activations")) acts += (acts.empty() ? "" : ",") + s;
  static const char* kKnown[] = {"Sigmoid",    "Tanh",        "Relu", "Affine",   "LeakyRelu", "ThresholdedRelu",
                                 "ScaledTanh", "HardSigmoid", "Elu",  "Softsign", "Softplus"};
  for (const std::string& s : ar.Strings("activations"))
    if (std::find(std::begin(kKnown), std::end(kKnown), s) == std::end(kKnown))
      return ctx.Unsupported(n, "activation '{}' is not supported", s);
  if (!acts.empty()) a.Set("activations", acts);
  if (ar.Has("activation_alpha")) a.Set("activation_alpha", ar.Floats("activation_alpha", {}));
  if (ar.Has("activation_beta")) a.Set("activation_beta", ar.Floats("activation_beta", {}));
  if (op == "lstm") a.Set("input_forget", ar.Int("input_forget", 0));
  if (op == "gru") a.Set("linear_before_reset", ar.Int("linear_before_reset", 0));
  const bool batch_major = ar.Int("layout", 0) != 0;
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 3));
  ir::Value* x = ins[0];
  if (x->type().rank() != 3) return ctx.Error(n, "input X must have rank 3");
  if (batch_major) {
    TSR_ASSIGN_OR_RETURN(x, Transpose(ctx, n, x, {1, 0, 2}));
  }
  const int64_t d = dir == "bidirectional" ? 2 : 1, steps = x->type().shape[0], batch = x->type().shape[1];
  if (ctx.HasInput(n, 4)) {
    TSR_ASSIGN_OR_RETURN(std::vector<int64_t> lens, ctx.ConstInts(n, 4, "sequence_lens"));
    for (int64_t l : lens)
      if (l != steps) return ctx.Unsupported(n, "sequence_lens other than the full length {} are not supported", steps);
  }
  ins[0] = x;
  if (ctx.HasInput(n, 3)) {
    TSR_ASSIGN_OR_RETURN(ir::Value * b, ctx.Input(n, 3));
    ins.push_back(b);
  } else {
    ins.push_back(Zeros(ctx, n.output_size() ? n.output(0) + ".B" : "B", {d, 2 * gates * h}));
  }
  const int states = op == "lstm" ? 2 : 1;
  for (int s = 0; s < states; ++s) {
    const int i = 5 + s;
    if (ctx.HasInput(n, i)) {
      TSR_ASSIGN_OR_RETURN(ir::Value * v, ctx.Input(n, i));
      if (batch_major) {
        TSR_ASSIGN_OR_RETURN(v, Transpose(ctx, n, v, {1, 0, 2}));
      }
      ins.push_back(v);
    } else {
      ins.push_back(Zeros(ctx, "initial_state", {d, batch, h}));
    }
  }
  if (op == "lstm") TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 7, &ins));
  if (!batch_major) return ctx.Emit(n, op, ins, a).status();
  // Batch-major: run sequence-major, then transpose Y [T,D,B,H] -> [B,T,D,H]
  // and the states [D,B,H] -> [B,D,H] into the ONNX outputs.
  onnx::NodeProto inner = n;
  for (int i = 0; i < inner.output_size(); ++i)
    if (!n.output(i).empty()) inner.set_output(i, ctx.NewName(n.output(i) + ".seq"));
  TSR_RETURN_IF_ERROR(ctx.Emit(inner, op, ins, a).status());
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    onnx::NodeProto one = n;
    one.clear_output();
    one.add_output(n.output(i));
    Attrs p;
    p.Set("perm", i == 0 ? std::vector<int64_t>{2, 0, 1, 3} : std::vector<int64_t>{1, 0, 2});
    TSR_RETURN_IF_ERROR(ctx.Emit(one, "transpose", {ctx.Lookup(inner.output(i))}, p).status());
  }
  return OkStatus();
}

const ConverterEntry kEntries[] = {
    {"LSTM", ConvertRecurrent, 7},
    {"GRU", ConvertRecurrent, 7},
    {"RNN", ConvertRecurrent, 7},
};

}  // namespace

std::vector<ConverterEntry> RnnConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
