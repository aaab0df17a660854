// fold-qdq's shared pieces: the quantized-type predicates, the bias and
// clamp quantization, and the graph edits every pattern ends with (replace a
// quantize node by the integer op, insert a requantize).
#include <algorithm>

#include "compiler/ir/ops.h"
#include "compiler/passes/fold_qdq.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::passes::qdq {

ir::Value* Dq(const ir::Value* v) {
  const ir::Node* p = v->producer();
  return p && p->op() == "dequantize" ? p->input(0) : nullptr;
}

bool SymI8(const ir::TensorType& t) {
  return t.dtype == ir::DType::kI8 && t.quant && !t.quant->per_axis() && t.quant->symmetric();
}

bool PerTensorI8(const ir::TensorType& t) { return t.dtype == ir::DType::kI8 && t.quant && !t.quant->per_axis(); }

int64_t ZeroPoint(const ir::TensorType& t) { return t.quant->zero_point.empty() ? 0 : t.quant->zero_point[0]; }

float Scale(const ir::Value* v) { return v->type().quant->scale[0]; }

void ActBounds(const ir::Node& op, float scale, int64_t zero_point, int64_t* lo, int64_t* hi) {
  const float amin = op.attrs().Float("act_min", -INFINITY), amax = op.attrs().Float("act_max", INFINITY);
  auto q = [&](float v) {
    return std::clamp(static_cast<int64_t>(std::clamp(std::nearbyint(v / scale), -1e6f, 1e6f)) + zero_point,
                      int64_t{-128}, int64_t{127});
  };
  *lo = std::isinf(amin) ? -128 : q(amin);
  *hi = std::isinf(amax) ? 127 : q(amax);
}

void SetActBounds(ir::Attrs* a, int64_t lo, int64_t hi) {
  if (lo != -128) a->Set("act_min", lo);
  if (hi != 127) a->Set("act_max", hi);
}

bool QuantizeBias(const ir::Value* bias, double sx, const std::vector<float>& sw, std::vector<int32_t>* out) {
  const int64_t n = static_cast<int64_t>(sw.size());
  out->assign(n, 0);
  if (!bias) return true;
  auto to_i32 = [](double v) {
    return static_cast<int32_t>(std::clamp(std::nearbyint(v), double{INT32_MIN}, double{INT32_MAX}));
  };
  if (bias->is_constant() && bias->type().dtype == ir::DType::kF32 && bias->type().numel() == n) {
    for (int64_t c = 0; c < n; ++c) (*out)[c] = to_i32(bias->data().data<float>()[c] / (sx * sw[c]));
    return true;
  }
  const ir::Value* bq = Dq(bias);
  if (!bq || !bq->is_constant() || bq->type().dtype != ir::DType::kI32 || bq->type().numel() != n ||
      !bq->type().quant->symmetric())
    return false;
  const ir::QuantParams& q = *bq->type().quant;
  for (int64_t c = 0; c < n; ++c) {
    const float sb = q.scale[q.per_axis() ? c : 0];
    const int32_t v = bq->data().data<int32_t>()[c];
    (*out)[c] = sb == static_cast<float>(sx * sw[c]) ? v : to_i32(v * (double(sb) / (sx * sw[c])));
  }
  return true;
}

ir::Node* ReplaceQuantize(ir::Graph& g, ir::Node* q, const std::string& op, const std::vector<ir::Value*>& inputs,
                          ir::Attrs attrs) {
  ir::Value* old = q->output();
  const std::string name = old->name();
  // The new node carries the name of the layer it replaces (else the quantize's).
  const ir::Node* p = q->input(0)->producer();
  const std::string node_name = p && !p->name().empty() && p->op() != "dequantize" ? p->name() : q->name();
  ir::Node* n = g.AddNode(op, inputs, {g.UniqueName(name + ".q")}, std::move(attrs), node_name, q);
  n->output()->set_type(old->type());
  std::vector<ir::TensorType> types;
  Status s = ir::InferNodeTypes(*n, &types);
  TSR_CHECK(s.ok(), "fold-qdq built an ill-typed node: {}", s.ToString());
  n->output()->set_type(types[0]);
  g.ReplaceAllUsesWith(old, n->output());
  // Remove q and, backwards, every node it leaves without uses.
  std::vector<ir::Node*> work = {q};
  while (!work.empty()) {
    ir::Node* d = work.back();
    work.pop_back();
    bool used = false;
    for (ir::Value* o : d->outputs()) used |= g.NumUses(o) > 0;
    if (used) continue;
    std::vector<ir::Node*> producers;
    for (ir::Value* in : d->inputs())
      if (in->producer()) producers.push_back(in->producer());
    g.RemoveNode(d);
    for (ir::Node* p : producers)
      if (std::find(work.begin(), work.end(), p) == work.end()) work.push_back(p);
  }
  g.Rename(n->output(), name);
  return n;
}

ir::Value* Requantize(ir::Graph& g, ir::Node* before, ir::Value* x, const ir::QuantParams& to, int64_t lo, int64_t hi) {
  auto fp = quant::ChooseFixedPoint({double(x->type().quant->scale[0]) / to.scale[0]});
  if (!fp.ok()) return nullptr;
  ir::Attrs a;
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  SetActBounds(&a, lo, hi);
  ir::Node* r = g.AddNode("requantize", {x}, {g.UniqueName(x->name() + ".rq")}, a, "", before);
  r->output()->set_type(ir::TensorType(ir::DType::kI8, x->type().shape, to));
  return r->output();
}

}  // namespace tessera::passes::qdq
