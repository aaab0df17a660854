// fold-qdq patterns for the arithmetic ops that are not GEMMs:
// quantize(op(dequantize(x), ...)) with symmetric int8 operands becomes the
// integer op with a fixed-point rescale to the output scale: relu/clip ->
// requantize, hard_sigmoid/hard_swish -> qhard_sigmoid/qhard_swish, add ->
// qadd, mul -> qmul, avg_pool/global_avg_pool -> qavg_pool (with zero points:
// a depthwise qconv of ones).
#include <algorithm>

#include "compiler/passes/fold_qdq.h"
#include "compiler/quant/alu_program.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::passes::qdq {

bool FoldClamp(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  if (!x || !SymI8(x->type()) || !SymI8(q->output()->type())) return false;
  const float s = Scale(q->output());
  const float amin = p->op() == "relu" ? 0.f : p->attrs().Float("min", -INFINITY);
  const float amax = p->op() == "relu" ? INFINITY : p->attrs().Float("max", INFINITY);
  const int64_t lo =
      std::isinf(amin) ? -128 : static_cast<int64_t>(std::clamp(std::nearbyint(amin / s), -128.f, 127.f));
  const int64_t hi = std::isinf(amax) ? 127 : static_cast<int64_t>(std::clamp(std::nearbyint(amax / s), -128.f, 127.f));
  auto fp = quant::ChooseFixedPoint({double(Scale(x)) / s});
  if (!fp.ok()) return false;
  ir::Attrs a;
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  SetActBounds(&a, lo, hi);
  ReplaceQuantize(g, q, "requantize", {x}, a);
  return true;
}

// hard_sigmoid / hard_swish -> qhard_sigmoid / qhard_swish (compiler/quant/alu_program.h).
bool FoldHardAct(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  const ir::TensorType& y = q->output()->type();
  if (!x || !SymI8(x->type()) || !SymI8(y)) return false;
  const bool swish = p->op() == "hard_swish";
  const double alpha = swish ? 1.0 / 6 : p->attrs().Float("alpha", 0.2f);
  const double beta = swish ? 0.5 : p->attrs().Float("beta", 0.5f);
  auto h = quant::ChooseHardAct(alpha, beta, Scale(x), y.quant->scale[0], swish);
  if (!h.ok()) return false;
  ir::Attrs a;
  a.Set("frac_bits", h->frac_bits);
  a.Set("offset", h->offset);
  a.Set("limit", h->limit);
  a.Set("multiplier", h->multiplier);
  a.Set("shift", h->shift);
  ReplaceQuantize(g, q, swish ? "qhard_swish" : "qhard_sigmoid", {x}, a);
  return true;
}

bool FoldAdd(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* a = Dq(p->input(0));
  ir::Value* b = Dq(p->input(1));
  const ir::TensorType& y = q->output()->type();
  if (!a || !b || !SymI8(a->type()) || !SymI8(b->type()) || !SymI8(y) || a->type().shape != b->type().shape ||
      a->type().shape != y.shape)
    return false;
  auto fp = quant::ChooseAddFixedPoint(double(Scale(a)) / y.quant->scale[0], double(Scale(b)) / y.quant->scale[0]);
  if (!fp.ok()) return false;
  int64_t lo, hi;
  ActBounds(*p, y.quant->scale[0], 0, &lo, &hi);
  ir::Attrs at;
  at.Set("multiplier", std::vector<int64_t>{fp->multiplier[0], fp->multiplier[1]});
  at.Set("shift", std::vector<int64_t>{fp->shift[0], fp->shift[1]});
  at.Set("post_shift", static_cast<int64_t>(fp->post_shift));
  SetActBounds(&at, lo, hi);
  ReplaceQuantize(g, q, "qadd", {a, b}, at);
  return true;
}

// a * b with b of a's shape or per channel ([N, C, 1, 1]; either operand):
// qmul with the fixed-point factor s_a s_b / s_y.
bool FoldMul(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* a = Dq(p->input(0));
  ir::Value* b = Dq(p->input(1));
  const ir::TensorType& y = q->output()->type();
  if (!a || !b || !SymI8(a->type()) || !SymI8(b->type()) || !SymI8(y)) return false;
  if (a->type().numel() < b->type().numel()) std::swap(a, b);
  if (a->type().shape != y.shape) return false;
  if (a->type().shape != b->type().shape && !ir::IsPerChannelOf(b->type().shape, a->type().shape)) return false;
  auto fp = quant::ChooseFixedPoint({double(Scale(a)) * Scale(b) / y.quant->scale[0]});
  if (!fp.ok()) return false;
  int64_t lo, hi;
  ActBounds(*p, y.quant->scale[0], 0, &lo, &hi);
  ir::Attrs at;
  at.Set("multiplier", fp->multiplier[0]);
  at.Set("shift", static_cast<int64_t>(fp->shift));
  SetActBounds(&at, lo, hi);
  ReplaceQuantize(g, q, "qmul", {a, b}, at);
  return true;
}

namespace {

// An average pool with zero points (ONNX Runtime's uint8; qavg_pool takes
// none): a depthwise qconv
// with all-one weights, acc = Σ (x − z_x) over the window (padding is z_x:
// count_include_pad's zeros), times s_x / (s_y · count), plus z_y.
bool FoldAvgPoolZp(ir::Graph& g, ir::Node* q, ir::Value* x, const std::vector<int64_t>& kernel, ir::Attrs a,
                   int64_t count) {
  const ir::TensorType& y = q->output()->type();
  auto fp = quant::ChooseFixedPoint({double(Scale(x)) / (y.quant->scale[0] * double(count))});
  if (!fp.ok()) return false;
  const int64_t c = x->type().shape[1];
  ir::Tensor w(ir::DType::kI8, {c, 1, kernel[0], kernel[1]});
  std::fill(w.data<int8_t>(), w.data<int8_t>() + w.numel(), int8_t{1});
  a.Erase("kernel");
  a.Set("group", c);
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  ir::Value* wv =
      g.AddConstant(g.UniqueName(q->output()->name() + ".ones"), std::move(w), ir::QuantParams::PerTensor(1));
  ReplaceQuantize(g, q, "qconv", {x, wv}, a);
  return true;
}

}  // namespace

bool FoldAvgPool(ir::Graph& g, ir::Node* q, ir::Node* p) {
  ir::Value* x = Dq(p->input(0));
  const ir::TensorType& y = q->output()->type();
  if (!x || !PerTensorI8(x->type()) || !PerTensorI8(y) || x->type().rank() != 4) return false;
  ir::Attrs a;
  int64_t count;
  if (p->op() == "global_avg_pool") {
    a.Set("kernel", std::vector<int64_t>{x->type().shape[2], x->type().shape[3]});
    count = x->type().shape[2] * x->type().shape[3];
  } else {
    if (p->attrs().Int("ceil_mode", 0)) return false;
    const auto pads = p->attrs().Ints("pads", {0, 0, 0, 0});
    const bool padded = std::any_of(pads.begin(), pads.end(), [](int64_t v) { return v != 0; });
    if (padded && !p->attrs().Int("count_include_pad", 0)) return false;  // the divisor would vary
    const auto k = p->attrs().Ints("kernel");
    a.Set("kernel", k);
    a.Set("strides", p->attrs().Ints("strides", {1, 1}));
    a.Set("pads", pads);
    count = k[0] * k[1];
  }
  if (!SymI8(x->type()) || !SymI8(y)) {
    // An operand quantized by the host (after a float op) keeps the pool there
    // too: on the device it would upload the whole map instead of the result.
    if (x->producer() && x->producer()->op() == "quantize") return false;
    return FoldAvgPoolZp(g, q, x, a.Ints("kernel"), a, count);
  }
  auto fp = quant::ChooseFixedPoint({double(Scale(x)) / (y.quant->scale[0] * double(count))});
  if (!fp.ok()) return false;
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  ReplaceQuantize(g, q, "qavg_pool", {x}, a);
  return true;
}

}  // namespace tessera::passes::qdq
