// fold-qdq: turns the quantize/dequantize ("QDQ") form of an int8 graph into
// integer ops. uint8 activations first become int8 (zero point - 128), and
// QOperator qlinear_conv/qlinear_matmul become qconv/qmatmul where they can;
// then it looks at every quantize node q = quantize(p(dequantize(..))):
//   conv/gemm/matmul -> qconv/qmatmul (fold_qdq_gemm.cc), matmul of two
//   activations -> qbatch_matmul, add -> qadd,
//   avg_pool/global_avg_pool -> qavg_pool (with zero points: a depthwise
//   qconv of ones, unless the host quantized its operand), relu/clip ->
//   requantize,
//   hard_sigmoid/hard_swish -> qhard_sigmoid/qhard_swish,
//   max_pool and data movement -> the same op on int8 (+ requantize if the
//   scale changes), concat -> requantize inputs (with zero points: 1x1
//   identity qconvs) + concat,
//   quantize(dequantize(x)) -> x or requantize,
//   quantize(reshape-like(float v)) -> the same op after quantize(v).
// Ops that do not match stay float between dequantize and quantize: they run
// on the CPU. Both ONNX QDQ models and the post-training quantizer use this.
//   before: %a = dequantize(%xq)  %w = dequantize(%wq)  %c = conv(%a, %w, %b) {act_min=0}  %y = quantize(%c)
//   after:  %y = qconv(%xq, %wq, %b.q) {act_min=0, multiplier=[...], shift=38, ...}
#include "compiler/passes/fold_qdq.h"

#include <algorithm>

#include "compiler/ir/ops.h"
#include "compiler/passes/rewrite.h"
#include "compiler/quant/alu_program.h"
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
  if (lo != -128) a.Set("act_min", lo);
  if (hi != 127) a.Set("act_max", hi);
  ir::Node* r = g.AddNode("requantize", {x}, {g.UniqueName(x->name() + ".rq")}, a, "", before);
  r->output()->set_type(ir::TensorType(ir::DType::kI8, x->type().shape, to));
  return r->output();
}

namespace {

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
  if (lo != -128) a.Set("act_min", lo);
  if (hi != 127) a.Set("act_max", hi);
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
  if (lo != -128) at.Set("act_min", lo);
  if (hi != 127) at.Set("act_max", hi);
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
  if (lo != -128) at.Set("act_min", lo);
  if (hi != 127) at.Set("act_max", hi);
  ReplaceQuantize(g, q, "qmul", {a, b}, at);
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
  if (lo != -128) at.Set("act_min", lo);
  if (hi != 127) at.Set("act_max", hi);
  ReplaceQuantize(g, q, "qbatch_matmul", {a, b}, at);
  return true;
}

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

// uint8 activations become int8 with the zero point moved by -128:
// quantize's saturate(round(x / s) + z) to [0, 255] minus 128 is
// saturate(round(x / s) + z - 128) to [-128, 127], dequantize's (q - z) is
// unchanged, and so are qlinear_conv/qlinear_matmul, which only see q - z
// and saturate their result to its type, and max pool and data movement,
// which keep the parameters; the graph computes the same numbers.
//   before: %q: u8[..]<s=0.02, zp=128> = quantize(%x)   %d = dequantize(%q)
//   after:  %q: i8[..]<s=0.02, zp=0>   = quantize(%x)   %d = dequantize(%q)
// A group of values linked by data movement changes together; a group that
// holds a graph input or output, or that another op reads, keeps u8.
bool ZeroPointAware(const std::string& op) {
  return op == "dequantize" || op == "qlinear_conv" || op == "qlinear_matmul";
}

bool KeepsQuant(const std::string& op) {
  return op == "reshape" || op == "flatten" || op == "squeeze" || op == "unsqueeze" || op == "transpose" ||
         op == "identity" || op == "max_pool" || op == "global_max_pool";
}

// The u8 values linked to v through KeepsQuant ops; false if one cannot change type.
bool U8Group(const ir::Graph& g, ir::Value* v, std::vector<ir::Value*>* group) {
  std::vector<ir::Value*> work = {v};
  group->assign(1, v);
  auto add = [&](ir::Value* a) {
    if (std::find(group->begin(), group->end(), a) != group->end()) return;
    group->push_back(a);
    work.push_back(a);
  };
  while (!work.empty()) {
    ir::Value* a = work.back();
    work.pop_back();
    const ir::TensorType& t = a->type();
    const ir::Node* p = a->producer();
    if (t.dtype != ir::DType::kU8 || !t.quant || t.quant->per_axis() || g.IsOutput(a) || !p) return false;
    if (KeepsQuant(p->op()))
      add(p->input(0));
    else if (p->op() != "quantize" && p->op() != "qlinear_conv" && p->op() != "qlinear_matmul")
      return false;
    for (ir::Node* u : a->users()) {
      if (KeepsQuant(u->op()) && u->input(0) == a)
        add(u->output());
      else if (!ZeroPointAware(u->op()))
        return false;
    }
  }
  return true;
}

int RetypeU8(ir::Graph& g) {
  int n = 0;
  for (ir::Node* node : g.nodes()) {
    std::vector<ir::Value*> group;
    if (node->num_outputs() != 1 || node->output()->type().dtype != ir::DType::kU8 ||
        !U8Group(g, node->output(), &group))
      continue;
    for (ir::Value* v : group) {
      const ir::TensorType& t = v->type();
      ir::QuantParams qp = *t.quant;
      qp.zero_point.assign(1, static_cast<int32_t>(ZeroPoint(t) - 128));
      v->set_type(ir::TensorType(ir::DType::kI8, t.shape, qp));
      ++n;
    }
  }
  return n;
}

}  // namespace
}  // namespace tessera::passes::qdq

namespace tessera::passes {

StatusOr<PassStats> FoldQdq(ir::Graph& g) {
  using namespace qdq;
  PassStats stats;
  if (int n = RetypeU8(g)) stats.Count("u8 -> i8", n);
  for (ir::Node* n : g.nodes()) {
    const std::string op = n->op();  // FoldQLinear removes n
    if ((op == "qlinear_conv" || op == "qlinear_matmul") && FoldQLinear(g, n)) stats.Count(op);
  }
  for (bool again = true; again;) {
    again = false;
    for (ir::Node* q : g.nodes()) {
      if (q->op() != "quantize") continue;
      ir::Node* p = q->input(0)->producer();
      if (!p || (g.NumUses(p->output()) != 1 && p->op() != "dequantize")) continue;
      const std::string op = p->op();
      bool done = false;
      if (op == "conv")
        done = FoldConv(g, q, p);
      else if (op == "gemm" || op == "matmul")
        done = FoldGemm(g, q, p) || (op == "matmul" && FoldBatchMatMul(g, q, p));
      else if (op == "add")
        done = FoldAdd(g, q, p);
      else if (op == "mul")
        done = FoldMul(g, q, p);
      else if (op == "avg_pool" || op == "global_avg_pool")
        done = FoldAvgPool(g, q, p);
      else if (op == "relu" || op == "clip")
        done = FoldClamp(g, q, p);
      else if (op == "hard_sigmoid" || op == "hard_swish")
        done = FoldHardAct(g, q, p);
      else if (op == "concat")
        done = FoldConcat(g, q, p);
      else if (op == "dequantize")
        done = FoldRoundTrip(g, q, p);
      else if (IsMovement(op))
        done = FoldMovement(g, q, p) || HoistQuantize(g, q, p);
      if (!done) continue;
      stats.Count(op == "dequantize" ? "round trips" : op);
      again = true;
      break;  // the node list changed
    }
  }
  // Identity left by a round trip is removed by eliminate-identity; do it here.
  for (ir::Node* n : g.nodes())
    if (n->op() == "identity" && !g.IsOutput(n->output())) {
      g.ReplaceAllUsesWith(n->output(), n->input(0));
      g.RemoveNode(n);
    }
  return stats;
}

}  // namespace tessera::passes
