// Type inference for the recurrent layers lstm, gru and rnn (ONNX LSTM/GRU/
// RNN, sequence-major layout). Every operand is explicit: the importer
// materializes absent biases and initial states as zeros, so
//   lstm(x[T,B,I], w[D,4H,I], r[D,4H,H], b[D,8H], h0[D,B,H], c0[D,B,H], p[D,3H]?) -> y[T,D,B,H], y_h, y_c
//   gru (x, w[D,3H,I], r[D,3H,H], b[D,6H], h0)  -> y, y_h
//   rnn (x, w[D,H,I],  r[D,H,H],  b[D,2H], h0)  -> y, y_h
// (input_projected = 1, hoist-rnn-input: x holds x W^T [T, B, D*G*H] and w
// is empty [D, G*H, 0]; the recurrence adds both biases as before)
// with D = 2 for direction "bidirectional", else 1. `activations` lists the
// gate functions comma-separated (ONNX names, defaults when absent).
#include "compiler/ir/ops_util.h"

namespace tessera::ir::opdefs {
namespace {

int Gates(const std::string& op) { return op == "lstm" ? 4 : op == "gru" ? 3 : 1; }

Status InferRecurrent(const Node& n, std::vector<TensorType>* out) {
  TSR_RETURN_IF_ERROR(ExpectFloatOperands(n));
  const std::string dir = n.attrs().Str("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return NodeError(n, "direction '{}' is not forward, reverse or bidirectional", dir);
  const int64_t d = dir == "bidirectional" ? 2 : 1, h = n.attrs().Int("hidden_size"), g = Gates(n.op());
  if (h < 1) return NodeError(n, "hidden_size {} must be positive", h);
  TSR_RETURN_IF_ERROR(ExpectRank(n, 0, 3));
  const Shape& x = In(n, 0).shape;
  // input_projected: x already holds x W^T per direction, w is empty.
  const bool projected = n.attrs().Int("input_projected", 0) != 0;
  const int64_t t = x[0], b = x[1], i = projected ? 0 : x[2];
  if (projected && x[2] != d * g * h)
    return NodeError(n, "{} must have {} projected features", Operand(n, 0), d * g * h);
  auto expect = [&](int k, const Shape& s) -> Status {
    if (In(n, k).shape != s) return NodeError(n, "{} must have shape {}", Operand(n, k), ShapeToString(s));
    return OkStatus();
  };
  TSR_RETURN_IF_ERROR(expect(1, {d, g * h, i}));
  TSR_RETURN_IF_ERROR(expect(2, {d, g * h, h}));
  TSR_RETURN_IF_ERROR(expect(3, {d, 2 * g * h}));
  TSR_RETURN_IF_ERROR(expect(4, {d, b, h}));
  if (n.op() == "lstm") {
    TSR_RETURN_IF_ERROR(expect(5, {d, b, h}));
    if (n.num_inputs() > 6) TSR_RETURN_IF_ERROR(expect(6, {d, 3 * h}));
  }
  if (n.attrs().Has("clip") && !(n.attrs().Float("clip") > 0)) return NodeError(n, "clip must be positive");
  (*out)[0] = TensorType(DType::kF32, {t, d, b, h});
  for (int k = 1; k < n.num_outputs(); ++k) (*out)[k] = TensorType(DType::kF32, {d, b, h});
  return OkStatus();
}

}  // namespace

void RegisterRnnOps(std::vector<OpDef>* ops) {
  const std::vector<AttrDef> common = {{"direction", AttrKind::kString},
                                       {"hidden_size", AttrKind::kInt, true},
                                       {"clip", AttrKind::kFloat},
                                       {"activations", AttrKind::kString},
                                       {"activation_alpha", AttrKind::kFloats},
                                       {"activation_beta", AttrKind::kFloats},
                                       {"input_projected", AttrKind::kInt}};
  std::vector<AttrDef> lstm = common, gru = common;
  lstm.push_back({"input_forget", AttrKind::kInt});
  gru.push_back({"linear_before_reset", AttrKind::kInt});
  ops->push_back({"lstm", 6, 7, 3, lstm, InferRecurrent, "LSTM layer (gates i, o, f, c; optional peepholes)"});
  ops->push_back({"gru", 5, 5, 2, gru, InferRecurrent, "GRU layer (gates z, r, h)"});
  ops->push_back({"rnn", 5, 5, 2, common, InferRecurrent, "simple recurrent layer"});
}

}  // namespace tessera::ir::opdefs
