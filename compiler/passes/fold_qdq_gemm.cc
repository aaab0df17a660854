// fold-qdq patterns for the GEMM-based ops: quantize(conv / gemm / matmul of
// dequantized int8 activations (any per-tensor zero point; uint8 ones were
// moved to int8) and dequantized constant symmetric int8 weights) ->
// qconv / qmatmul with per-channel fixed-point multipliers sx * sw[c] / sy,
// the bias quantized to int32 at scale sx * sw[c], and the fused clamp
// quantized to the output scale and zero point. The zero points stay on the
// operand and result types (the ops' semantics read them from there). A
// matmul of two symmetric int8 activations becomes qbatch_matmul; QOperator
// qlinear_conv / qlinear_matmul become qconv / qmatmul.
#include <algorithm>

#include "compiler/ir/ops.h"
#include "compiler/passes/fold_qdq.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::passes::qdq {
namespace {

// Constant int8 weights with zero point 0, per-tensor or along `axis`.
bool WeightI8(const ir::Value* w, int axis) {
  const ir::TensorType& t = w->type();
  return w->is_constant() && t.dtype == ir::DType::kI8 && t.quant && t.quant->symmetric() &&
         (!t.quant->per_axis() || t.quant->axis == axis);
}

// The verifier's reduction bound (int32 accumulation; ops_quant.cc).
int64_t MaxReduction(const ir::Value* x) { return ZeroPoint(x->type()) == 0 ? 131071 : 65793; }

std::vector<float> ChannelScales(const ir::QuantParams& q, int64_t channels) {
  std::vector<float> s(channels);
  for (int64_t c = 0; c < channels; ++c) s[c] = q.scale[q.per_axis() ? c : 0];
  return s;
}

// Requantization attributes and the int32 bias constant for one layer.
bool Requant(ir::Graph& g, const ir::Node& p, ir::Value* x, const std::vector<float>& sw, const ir::Value* bias,
             const ir::TensorType& y, ir::Attrs* a, ir::Value** bias_out) {
  const double sx = Scale(x), sy = y.quant->scale[0];
  std::vector<double> real;
  for (float s : sw) real.push_back(sx * s / sy);
  auto fp = quant::ChooseFixedPoint(real);
  if (!fp.ok()) return false;
  std::vector<int32_t> b;
  if (!QuantizeBias(bias, sx, sw, &b)) return false;
  int64_t lo, hi;
  ActBounds(p, y.quant->scale[0], ZeroPoint(y), &lo, &hi);
  a->Set("multiplier", fp->multiplier);
  a->Set("shift", static_cast<int64_t>(fp->shift));
  SetActBounds(a, lo, hi);
  *bias_out = nullptr;
  if (bias) {
    ir::Tensor t(ir::DType::kI32, {static_cast<int64_t>(b.size())});
    std::copy(b.begin(), b.end(), t.data<int32_t>());
    std::vector<float> bs;
    for (float s : sw) bs.push_back(static_cast<float>(sx * s));
    ir::QuantParams bq = bs.size() == 1 ? ir::QuantParams::PerTensor(bs[0]) : ir::QuantParams::PerAxis(0, bs);
    *bias_out = g.AddConstant(g.UniqueName(p.output()->name() + ".bias_q"), std::move(t), bq);
  }
  return true;
}

}  // namespace

bool FoldConv(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  ir::Value* w = Dq(p->input(1));
  const ir::TensorType& y = q->output()->type();
  if (!x || !w || !PerTensorI8(x->type()) || !WeightI8(w, 0) || !PerTensorI8(y)) return false;
  const ir::Shape& ws = w->type().shape;
  if (ws[1] * ws[2] * ws[3] > MaxReduction(x)) return false;
  ir::Attrs a;
  for (const char* k : {"strides", "pads", "dilations", "group"})
    if (p->attrs().Has(k)) a.Set(k, p->attrs().map().at(k));
  ir::Value* bias = nullptr;
  if (!Requant(g, *p, x, ChannelScales(*w->type().quant, ws[0]), p->num_inputs() > 2 ? p->input(2) : nullptr, y, &a,
               &bias))
    return false;
  std::vector<ir::Value*> ins = {x, w};
  if (bias) ins.push_back(bias);
  ReplaceQuantize(g, q, "qconv", ins, a);
  return true;
}

bool FoldGemm(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  ir::Value* w = Dq(p->input(1));
  const ir::TensorType& y = q->output()->type();
  if (!x || !w || !PerTensorI8(x->type()) || !PerTensorI8(y) || x->type().rank() < 2 || w->type().rank() != 2)
    return false;
  const bool gemm = p->op() == "gemm";
  if (gemm &&
      (p->attrs().Int("trans_a", 0) || p->attrs().Float("alpha", 1.f) != 1.f || p->attrs().Float("beta", 1.f) != 1.f))
    return false;
  // qmatmul wants weights [N, K] quantized along N (axis 0).
  const bool nk = gemm && p->attrs().Int("trans_b", 0);
  if (!WeightI8(w, nk ? 0 : 1)) return false;
  const int64_t n = nk ? w->type().shape[0] : w->type().shape[1];
  const int64_t k = nk ? w->type().shape[1] : w->type().shape[0];
  if (k > MaxReduction(x)) return false;
  const ir::Value* bias = p->num_inputs() > 2 ? p->input(2) : nullptr;
  if (bias && bias->type().numel() != n) return false;  // only a per-output-channel bias
  ir::Attrs a;
  ir::Value* bq = nullptr;
  if (!Requant(g, *p, x, ChannelScales(*w->type().quant, n), bias, y, &a, &bq)) return false;
  ir::Value* wnk = w;
  if (!nk) {
    ir::Tensor t(ir::DType::kI8, {n, k});
    const int8_t* src = w->data().data<int8_t>();
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) t.data<int8_t>()[j * k + i] = src[i * n + j];
    ir::QuantParams tq = *w->type().quant;
    if (tq.per_axis()) tq.axis = 0;
    wnk = g.AddConstant(g.UniqueName(w->name() + ".nk"), std::move(t), tq);
  }
  std::vector<ir::Value*> ins = {x, wnk};
  if (bq) ins.push_back(bq);
  ReplaceQuantize(g, q, "qmatmul", ins, a);
  return true;
}

// a x b of two symmetric int8 activations ([..., M, K] x [..., K, N], the
// same leading dims: attention's Q K^T and P V): qbatch_matmul with the
// fixed-point factor s_a s_b / s_y.
bool FoldBatchMatMul(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* a = Dq(p->input(0));
  ir::Value* b = Dq(p->input(1));
  const ir::TensorType& y = q->output()->type();
  if (!a || !b || b->is_constant() || !SymI8(a->type()) || !SymI8(b->type()) || !SymI8(y)) return false;
  const ir::Shape& as = a->type().shape;
  const ir::Shape& bs = b->type().shape;
  if (as.size() < 2 || as.size() != bs.size() || !std::equal(as.begin(), as.end() - 2, bs.begin()) ||
      as.back() != bs[bs.size() - 2] || as.back() > 131071)
    return false;
  auto fp = quant::ChooseFixedPoint({double(Scale(a)) * Scale(b) / y.quant->scale[0]});
  if (!fp.ok()) return false;
  int64_t lo, hi;
  ActBounds(*p, y.quant->scale[0], 0, &lo, &hi);
  ir::Attrs at;
  at.Set("multiplier", fp->multiplier);
  at.Set("shift", static_cast<int64_t>(fp->shift));
  SetActBounds(&at, lo, hi);
  ReplaceQuantize(g, q, "qbatch_matmul", {a, b}, at);
  return true;
}

// QOperator form: the multipliers come from the operand scales, the int32
// bias is already at s_x * s_w[c]. ONNX rounds float(acc) * s_x * s_w / s_y
// half to even; the fixed-point multiplier can differ by one unit on ties
// (as for the symmetric QLinearConv the importer maps to qconv).
//   before: %y: i8<s, zp=-125> = qlinear_conv(%x: i8<zp=-28>, %w, %b)
//   after:  %y: i8<s, zp=-125> = qconv(%x, %w, %b) {multiplier=[...], shift=...}
bool FoldQLinear(ir::Graph& g, ir::Node* n) {
  ir::Value* x = n->input(0);
  ir::Value* w = n->input(1);
  ir::Value* y = n->output();
  const bool conv = n->op() == "qlinear_conv";
  if (!PerTensorI8(x->type()) || !PerTensorI8(y->type()) || !w->is_constant() || x->type().rank() < 2) return false;
  if (conv ? !WeightI8(w, 0) : w->type().rank() != 2 || !WeightI8(w, 1)) return false;
  const ir::Shape& ws = w->type().shape;
  const int64_t channels = conv ? ws[0] : ws[1];
  if ((conv ? ws[1] * ws[2] * ws[3] : ws[0]) > MaxReduction(x)) return false;
  const std::vector<float> sw = ChannelScales(*w->type().quant, channels);
  std::vector<double> real;
  for (float s : sw) real.push_back(double(Scale(x)) * s / y->type().quant->scale[0]);
  auto fp = quant::ChooseFixedPoint(real);
  if (!fp.ok()) return false;
  ir::Attrs a = conv ? n->attrs() : ir::Attrs();
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  std::vector<ir::Value*> ins = {x, w};
  if (conv && n->num_inputs() > 2) ins.push_back(n->input(2));
  if (!conv) {  // qmatmul wants weights [N, K] along axis 0
    const int64_t k = ws[0];
    ir::Tensor t(ir::DType::kI8, {channels, k});
    const int8_t* src = w->data().data<int8_t>();
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < channels; ++j) t.data<int8_t>()[j * k + i] = src[i * channels + j];
    ir::QuantParams tq = *w->type().quant;
    if (tq.per_axis()) tq.axis = 0;
    ins[1] = g.AddConstant(g.UniqueName(w->name() + ".nk"), std::move(t), tq);
  }
  ir::Node* r =
      g.AddNode(conv ? "qconv" : "qmatmul", ins, {g.UniqueName(y->name() + ".q")}, std::move(a), n->name(), n);
  r->output()->set_type(y->type());
  std::vector<ir::TensorType> types;
  if (!ir::InferNodeTypes(*r, &types).ok() || types[0] != y->type()) {
    g.RemoveNode(r);
    return false;
  }
  const std::string name = y->name();
  g.ReplaceAllUsesWith(y, r->output());
  g.RemoveNode(n);
  g.Rename(r->output(), name);
  return true;
}

}  // namespace tessera::passes::qdq
