// QDQ insertion for post-training quantization, then fold-qdq.
//   before: %c = conv(%x, %w, %b) {act_min=0}
//   after:  %x.q = quantize(%x)  %c = qconv(%x.q, %w.q, %c.bias_q) {...}  %c.dq = dequantize(%c)
#include "compiler/quant/quantizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "compiler/ir/graph.h"
#include "compiler/ir/verifier.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/passes/rewrite.h"

namespace tessera::quant {
namespace {

// Ops that keep the scale of their (first) input: their result gets the
// input's scale, so the int8 op needs no rescale. A gather counts when it
// takes channels of a rank-4 value with constant in-range indices (what
// fold-channel-shuffle leaves; channel-gather-to-conv runs it on the device).
// fold-qdq's data-movement list (fold_qdq_movement.cc IsMovement) is wider on purpose:
// any gather commutes with a per-tensor affine map, so explicit Q/DQ around
// one fold; this list is what the quantizer chooses to run in int8.
bool KeepsScale(const ir::Node& n) {
  const std::string& op = n.op();
  if (op == "gather") return passes::ChannelIndices(n, n.input(0)->type().dtype).has_value();
  return op == "max_pool" || op == "global_max_pool" || op == "reshape" || op == "flatten" || op == "transpose" ||
         op == "squeeze" || op == "unsqueeze" || op == "identity" || op == "pad" || op == "relu" || op == "avg_pool" ||
         op == "global_avg_pool" || op == "clip" || op == "slice" || op == "expand" || op == "tile" || op == "resize";
}

bool ConstF32(const ir::Value* v) { return v->is_constant() && v->type().dtype == ir::DType::kF32; }

// Which operands of n are activations that the int8 form reads (empty: the
// node stays float). Weight operands are handled separately.
std::vector<int> Int8Operands(const ir::Node& n) {
  const std::string& op = n.op();
  const auto f32 = [&](int i) { return n.input(i)->type().dtype == ir::DType::kF32 && !n.input(i)->is_constant(); };
  if (!f32(0)) return {};
  if (op == "conv") {
    if (!ConstF32(n.input(1)) || (n.num_inputs() > 2 && !ConstF32(n.input(2)))) return {};
    return {0};
  }
  if (op == "matmul" && f32(1)) {  // two activations (attention): [..., M, K] x [..., K, N], same leading dims
    const ir::Shape& a = n.input(0)->type().shape;
    const ir::Shape& b = n.input(1)->type().shape;
    if (a.size() < 2 || a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())) return {};
    return {0, 1};
  }
  if (op == "gemm" || op == "matmul") {
    if (!ConstF32(n.input(1)) || n.input(1)->type().rank() != 2 || n.input(0)->type().rank() < 2) return {};
    if (op == "gemm" &&
        (n.attrs().Int("trans_a", 0) || n.attrs().Float("alpha", 1.f) != 1.f || n.attrs().Float("beta", 1.f) != 1.f))
      return {};
    const int64_t cols =
        op == "gemm" && n.attrs().Int("trans_b", 0) ? n.input(1)->type().shape[0] : n.input(1)->type().shape[1];
    if (n.num_inputs() > 2 && (!ConstF32(n.input(2)) || n.input(2)->type().numel() != cols)) return {};
    return {0};
  }
  if (op == "add") {
    if (!f32(1) || n.input(0)->type().shape != n.input(1)->type().shape) return {};
    return {0, 1};
  }
  if (op == "mul") {  // same shapes, or a per-channel [N, C, 1, 1] factor of a rank-4 operand (SE blocks)
    if (!f32(1)) return {};
    const ir::Shape& a = n.input(0)->type().shape;
    const ir::Shape& b = n.input(1)->type().shape;
    if (a != b && !ir::IsPerChannelOf(b, a) && !ir::IsPerChannelOf(a, b)) return {};
    return {0, 1};
  }
  if (op == "concat") {
    std::vector<int> all;
    for (int i = 0; i < n.num_inputs(); ++i) {
      if (!f32(i)) return {};
      all.push_back(i);
    }
    return all;
  }
  if (op == "avg_pool") {
    const auto pads = n.attrs().Ints("pads", {0, 0, 0, 0});
    const bool padded = std::any_of(pads.begin(), pads.end(), [](int64_t v) { return v != 0; });
    if (n.attrs().Int("ceil_mode", 0) || (padded && !n.attrs().Int("count_include_pad", 0))) return {};
    return {0};
  }
  if (op == "global_avg_pool" && n.input(0)->type().rank() != 4) return {};
  if (op == "pad" && n.attrs().Str("mode", "constant") != "constant") return {0};
  if (op == "resize" && n.attrs().Str("mode", "nearest") != "nearest") return {};  // interpolation rounds
  if (KeepsScale(n) || op == "hard_sigmoid" || op == "hard_swish") return {0};
  return {};
}

float ScaleFor(float limit) { return limit > 0 && std::isfinite(limit) ? limit / 127.f : 1.f; }

// One scale for everything a channel concat joins, so its operands are
// written at the concat's scale and it needs no requantize (concat into
// channel slices, backend/channel_slices.h). The classes: a concat's result
// and, for each operand, the value whose scale it keeps (through
// scale-keeping ops such as max_pool); DenseNet's dense block, whose features
// are operands of every later concat of the block, becomes one class. Each
// member of a class gets the largest calibrated scale of the class.
std::unordered_map<const ir::Value*, float> ConcatScales(const ir::Graph& g, const Ranges& ranges) {
  std::unordered_map<const ir::Value*, const ir::Value*> parent;
  auto find = [&](const ir::Value* v) {
    while (parent.count(v) && parent.at(v) != v) v = parent.at(v);
    return v;
  };
  auto source = [](const ir::Value* v) {  // the value whose scale v keeps
    while (v->producer() && KeepsScale(*v->producer()) && !Int8Operands(*v->producer()).empty())
      v = v->producer()->input(0);
    return v;
  };
  for (const ir::Node* n : g.nodes()) {
    if (n->op() != "concat" || Int8Operands(*n).empty()) continue;
    const ir::Value* root = find(n->output());
    parent.emplace(root, root);
    for (const ir::Value* in : n->inputs()) {
      const ir::Value* r = find(source(in));
      parent[r] = root;
    }
  }
  std::unordered_map<const ir::Value*, float> class_scale;
  for (const auto& [v, p] : parent) {
    auto r = ranges.find(v->name());
    if (r == ranges.end()) continue;
    float& s = class_scale[find(v)];
    s = std::max(s, ScaleFor(r->second.abs_limit));
  }
  std::unordered_map<const ir::Value*, float> out;
  for (const auto& [v, p] : parent)
    if (auto c = class_scale.find(find(v)); c != class_scale.end()) out[v] = c->second;
  return out;
}

}  // namespace

ir::Tensor QuantizeWeights(const ir::Tensor& w, int axis, std::vector<float>* scales) {
  const ir::Shape& s = w.shape();
  int64_t inner = 1;
  for (int d = axis + 1; d < w.rank(); ++d) inner *= s[d];
  const int64_t ch = s[axis], outer = w.numel() / (ch * inner);
  scales->assign(ch, 0.f);
  const float* p = w.data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < ch; ++c)
      for (int64_t i = 0; i < inner; ++i) (*scales)[c] = std::max((*scales)[c], std::fabs(p[(o * ch + c) * inner + i]));
  for (float& sc : *scales) sc = sc > 0 ? sc / 127.f : 1.f;
  ir::Tensor q(ir::DType::kI8, s);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < ch; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * ch + c) * inner + i;
        q.data<int8_t>()[k] = static_cast<int8_t>(std::clamp(std::nearbyint(p[k] / (*scales)[c]), -127.f, 127.f));
      }
  return q;
}

std::string QuantizeReport::ToString() const {
  std::string s = fmt::format("quantize: {} int8 ops, {} float ops", int8_ops, float_ops.size());
  if (!float_ops.empty()) {
    s += " (";
    for (size_t i = 0; i < float_ops.size(); ++i) s += (i ? ", " : "") + float_ops[i];
    s += ")";
  }
  return s + "; fold-qdq: " + fold_summary;
}

StatusOr<QuantizeReport> QuantizeGraph(ir::Graph& g, const Ranges& ranges) {
  std::unordered_map<const ir::Value*, float> scale;    // chosen activation scales
  std::unordered_map<const ir::Value*, ir::Value*> dq;  // value -> its dequantize
  const std::vector<std::string> output_names = [&] {
    std::vector<std::string> v;
    for (const ir::Value* o : g.outputs()) v.push_back(o->name());
    return v;
  }();
  const std::unordered_map<const ir::Value*, float> shared = ConcatScales(g, ranges);
  auto scale_of = [&](const ir::Value* v) -> StatusOr<float> {
    auto it = scale.find(v);
    if (it != scale.end()) return it->second;
    if (auto c = shared.find(v); c != shared.end()) return scale[v] = c->second;
    auto r = ranges.find(v->name());
    if (r == ranges.end()) return InvalidArgumentError("no calibration range for '{}'", v->name());
    return scale[v] = ScaleFor(r->second.abs_limit);
  };
  // v -> quantize -> dequantize; all former uses of v read the dequantize.
  auto insert_qdq = [&](ir::Value* v, float s, bool take_outputs) -> ir::Value* {
    auto it = dq.find(v);
    if (it != dq.end()) return it->second;
    ir::Node* before = nullptr;
    if (v->producer()) {
      const auto nodes = g.nodes();
      const int i = g.IndexOf(v->producer());
      before = i + 1 < static_cast<int>(nodes.size()) ? nodes[i + 1] : nullptr;
    } else if (g.num_nodes()) {
      before = g.nodes()[0];
    }
    ir::Node* q = g.AddNode("quantize", {v}, {g.UniqueName(v->name() + ".q")}, {}, "", before);
    q->output()->set_type(ir::TensorType(ir::DType::kI8, v->type().shape, ir::QuantParams::PerTensor(s)));
    ir::Node* d = g.AddNode("dequantize", {q->output()}, {g.UniqueName(v->name() + ".dq")}, {}, "", before);
    d->output()->set_type(v->type());
    std::vector<ir::Node*> users = v->users();
    for (ir::Node* u : users)
      if (u != q)
        for (int k = 0; k < u->num_inputs(); ++k)
          if (u->input(k) == v) u->SetInput(k, d->output());
    if (take_outputs) {  // a graph output produced by an int8 op reads the dequantized value
      std::vector<ir::Value*> outs = g.outputs();
      for (ir::Value*& o : outs)
        if (o == v) o = d->output();
      g.SetOutputs(outs);
    }
    dq[v] = d->output();
    dq[d->output()] = d->output();  // later readers of the dequantized value need nothing more
    scale[d->output()] = s;
    return d->output();
  };

  for (ir::Node* n : g.nodes()) {
    const std::vector<int> acts = Int8Operands(*n);
    if (acts.empty()) continue;
    // Inputs first (their scales are known: inputs precede n).
    for (int i : acts) {
      ir::Value* v = n->input(i);
      if (dq.count(v)) continue;
      TSR_ASSIGN_OR_RETURN(float s, scale_of(v));
      insert_qdq(v, s, false);
    }
    // Weights: dequantize(int8 per-output-channel constant).
    if ((n->op() == "conv" || n->op() == "gemm" || n->op() == "matmul") && n->input(1)->is_constant()) {
      ir::Value* w = n->input(1);
      const int axis = n->op() == "conv" || (n->op() == "gemm" && n->attrs().Int("trans_b", 0)) ? 0 : 1;
      std::vector<float> ws;
      ir::Tensor q = QuantizeWeights(w->data(), axis, &ws);
      ir::Value* wq = g.AddConstant(g.UniqueName(w->name() + ".q"), std::move(q), ir::QuantParams::PerAxis(axis, ws));
      ir::Node* d = g.AddNode("dequantize", {wq}, {g.UniqueName(w->name() + ".dq")}, {}, "", n);
      d->output()->set_type(w->type());
      n->SetInput(1, d->output());
    }
    // The result: scale-keeping ops inherit the input scale, concat takes the
    // largest input scale, the rest use their calibrated range.
    ir::Value* out = n->output();
    float s;
    if (KeepsScale(*n)) {
      s = scale.at(n->input(0));
    } else if (n->op() == "concat") {
      s = 0;
      for (ir::Value* in : n->inputs()) s = std::max(s, scale.at(in));
    } else {
      TSR_ASSIGN_OR_RETURN(s, scale_of(out));
      // hard_sigmoid's range is [0, 1] whatever the calibration saw.
      if (n->op() == "hard_sigmoid") s = std::min(s, ScaleFor(1.f));
    }
    scale[out] = s;
    insert_qdq(out, s, true);
  }
  TSR_ASSIGN_OR_RETURN(auto reports, passes::RunPasses(g, {"fold-qdq", "channel-gather-to-conv", "fold-requantize",
                                                           "eliminate-identity", "dce"}));
  // Graph outputs keep their names.
  for (size_t i = 0; i < output_names.size(); ++i) {
    ir::Value* o = g.outputs()[i];
    if (o->name() != output_names[i] && !g.FindValue(output_names[i]) && o->producer()) g.Rename(o, output_names[i]);
  }
  TSR_RETURN_IF_ERROR(ir::Verify(g));
  QuantizeReport report;
  report.fold_summary = reports[0].stats.Summary();
  for (const ir::Node* n : g.nodes()) {
    bool integer = n->op() != "quantize" && n->op() != "dequantize";
    for (const ir::Value* in : n->inputs()) integer &= in->type().dtype != ir::DType::kF32;
    if (integer)
      ++report.int8_ops;
    else if (n->op() != "quantize" && n->op() != "dequantize")
      report.float_ops.push_back(fmt::format("{} '{}'", n->op(), n->name().empty() ? n->output()->name() : n->name()));
  }
  return report;
}

StatusOr<QuantizeReport> QuantizePostTraining(ir::Graph& g, const ir::Tensor& calibration,
                                              const CalibrationOptions& options) {
  TSR_ASSIGN_OR_RETURN(Ranges ranges, Calibrate(g, calibration, options));
  return QuantizeGraph(g, ranges);
}

}  // namespace tessera::quant
