// fold-channel-shuffle: channel permutations and channel slices of rank-4
// activations become one `gather` on axis 1 with constant indices, and the
// convs that read a gather absorb it. Recognised: ShuffleNet's channel
// shuffle (reshape [N, a, b, H, W] -> transpose [0, 2, 1, 3, 4] -> reshape
// [N, C, H, W], any a) and a slice on axis 1 only (chunk/Split); a gather of
// a gather composes. Absorbed by
// * a group-1 conv: its weights' input channels are re-indexed,
//   w'[:, idx[k]] += w[:, k] (zero columns for channels it does not select);
// * a depthwise conv under a full permutation: its per-channel weights and
//   bias are re-indexed and the gather moves past it to its readers.
// A gather no conv absorbs (a concat operand, a graph output) stays: data
// movement that keeps its scale; quantized, channel-gather-to-conv runs it on
// the GEMM core. Everything is exact: values are only moved or multiplied by
// the same weights.
// The same on int8/uint8 values of an already-quantized model (after fold-qdq,
// every op of the pattern keeps its operand's type) absorbed by qconvs: the
// int8 weight columns are re-indexed (the gather's channels must be distinct:
// no sums), per-channel weight scales, bias and multipliers follow a moved
// depthwise conv's channels, and Σ w'·(x − z_x) = Σ w·(gather(x) − z_x)
// because unselected channels meet zero weights.
//   before: %r = reshape(%x) {shape=[N,2,C/2,H,W]}  %t = transpose(%r) {perm=[0,2,1,3,4]}
//           %s = reshape(%t) {shape=[N,C,H,W]}      %a = slice(%s) {axis 1: C/2..C}   %y = conv(%a, %w)
//   after:  %y = conv(%x, %w')   with w'[:, idx[k]] = w[:, k], idx = shuffle[C/2..C]
// Runs after fold-batchnorm and fuse-activation (the convs' final weights),
// and again after fold-qdq (the int8 form of an already-quantized model).
#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor_index.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {
namespace {

// A rank-4 value whose channels may be moved: f32, or int8/uint8 quantized
// per tensor (or not at all).
bool Movable(const ir::Value* v) {
  const ir::TensorType& t = v->type();
  if (t.rank() != 4) return false;
  if (t.dtype == ir::DType::kF32) return !t.quant;
  return (t.dtype == ir::DType::kI8 || t.dtype == ir::DType::kU8) && (!t.quant || !t.quant->per_axis());
}

// Same element type and quantization: the op moves values and keeps their meaning.
bool SameMeaning(const ir::Value* a, const ir::Value* b) {
  return a->type().dtype == b->type().dtype && a->type().quant == b->type().quant;
}

// The channels gather n takes from a movable value of its own type.
std::optional<std::vector<int64_t>> Gathered(const ir::Node& n) {
  if (n.op() != "gather" || !Movable(n.input(0)) || !SameMeaning(n.input(0), n.output())) return std::nullopt;
  return ChannelIndices(n, n.input(0)->type().dtype);
}

// The input and channel indices of a channel shuffle ending at reshape n.
std::optional<std::pair<ir::Value*, std::vector<int64_t>>> MatchShuffle(ir::Node* n) {
  if (n->op() != "reshape" || !Movable(n->output())) return std::nullopt;
  ir::Node* t = n->input(0)->producer();
  if (!t || t->op() != "transpose" || t->attrs().Ints("perm") != std::vector<int64_t>{0, 2, 1, 3, 4})
    return std::nullopt;
  ir::Node* r = t->input(0)->producer();
  if (!r || r->op() != "reshape" || !Movable(r->input(0))) return std::nullopt;
  for (const ir::Value* v : {r->output(), t->output(), n->output()})
    if (!SameMeaning(r->input(0), v)) return std::nullopt;
  const ir::Shape& x = r->input(0)->type().shape;
  const ir::Shape& s = r->output()->type().shape;
  if (x != n->output()->type().shape || s.size() != 5 || s[0] != x[0] || s[1] * s[2] != x[1] || s[3] != x[2] ||
      s[4] != x[3])
    return std::nullopt;
  const int64_t a = s[1], b = s[2];
  std::vector<int64_t> idx(static_cast<size_t>(x[1]));
  for (int64_t j = 0; j < b; ++j)
    for (int64_t i = 0; i < a; ++i) idx[j * a + i] = i * b + j;
  return std::make_pair(r->input(0), std::move(idx));
}

// The input and channel indices of a slice that only cuts axis 1.
std::optional<std::pair<ir::Value*, std::vector<int64_t>>> MatchSlice(const ir::Node* n) {
  if (n->op() != "slice" || !Movable(n->input(0)) || !SameMeaning(n->input(0), n->output())) return std::nullopt;
  const ir::Shape& x = n->input(0)->type().shape;
  const auto starts = n->attrs().Ints("starts"), ends = n->attrs().Ints("ends"), steps = n->attrs().Ints("steps");
  for (int d : {0, 2, 3})
    if (starts[d] != 0 || ends[d] != x[d] || steps[d] != 1) return std::nullopt;
  std::vector<int64_t> idx(static_cast<size_t>(n->output()->type().shape[1]));
  if (idx.empty()) return std::nullopt;
  for (size_t k = 0; k < idx.size(); ++k) idx[k] = starts[1] + static_cast<int64_t>(k) * steps[1];
  return std::make_pair(n->input(0), std::move(idx));
}

// Replaces n's result with gather(x, idx) {axis = 1}, which takes its name.
ir::Node* ReplaceWithGather(ir::Graph& g, ir::Node* n, ir::Value* x, const std::vector<int64_t>& idx) {
  const std::string name = n->output()->name();
  ir::Tensor t(ir::DType::kI64, {static_cast<int64_t>(idx.size())});
  std::copy(idx.begin(), idx.end(), t.data<int64_t>());
  ir::Value* iv = g.AddConstant(g.UniqueName(name + ".channels"), std::move(t));
  ir::Attrs a;
  a.Set("axis", int64_t{1});
  ir::Node* gn = g.AddNode("gather", {x, iv}, {g.UniqueName(name + ".gather")}, std::move(a), n->name(), n);
  gn->output()->set_type(n->output()->type());
  Forward(g, n, n->output(), gn->output());
  if (!g.FindValue(name)) g.Rename(gn->output(), name);
  return gn;
}

bool ConstF32(const ir::Value* v) { return v->is_constant() && v->type().dtype == ir::DType::kF32; }

// u reads v as its data operand and can absorb a gather: a conv with f32
// constant weights and bias on f32, a qconv with constant ones on int8.
bool Absorbs(const ir::Node* u, const ir::Value* v) {
  if (u->input(0) != v) return false;
  if (v->type().dtype == ir::DType::kF32)
    return u->op() == "conv" && ConstF32(u->input(1)) && (u->num_inputs() <= 2 || ConstF32(u->input(2)));
  return u->op() == "qconv" && u->input(1)->is_constant() && (u->num_inputs() <= 2 || u->input(2)->is_constant());
}

// v's entries re-indexed: v'[idx[k]] = v[k] (per-channel scales, zero points, multipliers).
template <typename T>
std::vector<T> Scatter(const std::vector<T>& v, const std::vector<int64_t>& idx) {
  std::vector<T> r(v.size());
  for (size_t k = 0; k < idx.size(); ++k) r[static_cast<size_t>(idx[k])] = v[k];
  return r;
}

// conv(gather(x, idx), w) = conv(x, w') for a group-1 conv.
void FoldIntoConv(ir::Graph& g, ir::Node* conv, ir::Value* x, const std::vector<int64_t>& idx) {
  ir::Tensor w = ir::ScatterAxis(conv->input(1)->data(), 1, idx, x->type().shape[1]);
  conv->SetInput(
      1, g.AddConstant(g.UniqueName(conv->input(1)->name() + ".perm"), std::move(w), conv->input(1)->type().quant));
  conv->SetInput(0, x);
}

// dwconv(gather(x, idx)) = gather(dwconv'(x), idx) for a full permutation idx.
void MovePastDepthwise(ir::Graph& g, ir::Node* conv, ir::Value* x, const std::vector<int64_t>& idx) {
  std::vector<ir::Value*> in = {x};
  for (int i = 1; i < conv->num_inputs(); ++i) {
    ir::Tensor p = ir::ScatterAxis(conv->input(i)->data(), 0, idx, static_cast<int64_t>(idx.size()));
    std::optional<ir::QuantParams> q = conv->input(i)->type().quant;
    if (q && q->per_axis()) {  // axis 0: the channels
      q->scale = Scatter(q->scale, idx);
      q->zero_point = Scatter(q->zero_point, idx);
    }
    in.push_back(g.AddConstant(g.UniqueName(conv->input(i)->name() + ".perm"), std::move(p), q));
  }
  ir::Attrs a = conv->attrs();
  if (a.Has("multiplier") && a.Ints("multiplier").size() == idx.size())
    a.Set("multiplier", Scatter(a.Ints("multiplier"), idx));
  ir::Node* dw =
      g.AddNode(conv->op(), in, {g.UniqueName(conv->output()->name() + ".perm")}, std::move(a), conv->name(), conv);
  dw->output()->set_type(conv->output()->type());
  ReplaceWithGather(g, conv, dw->output(), idx);
}

// No channel taken twice (values in [0, n)).
bool Distinct(const std::vector<int64_t>& idx, int64_t n) {
  std::vector<bool> seen(static_cast<size_t>(n));
  for (int64_t v : idx) {
    if (seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

bool IsPermutation(const std::vector<int64_t>& idx, int64_t n) {
  return static_cast<int64_t>(idx.size()) == n && Distinct(idx, n);
}

}  // namespace

StatusOr<PassStats> FoldChannelShuffle(ir::Graph& g) {
  PassStats stats;
  for (bool changed = true; changed;) {
    changed = false;
    for (ir::Node* n : g.nodes()) {  // one rewrite per scan: it may remove nodes of the snapshot
      // Canonical form: one gather on axis 1, composed with the gather it reads.
      auto m = MatchShuffle(n);
      const char* matched = "shuffles";
      if (!m) {
        m = MatchSlice(n);
        matched = "slices";
      }
      if (m) {
        ir::Value* was = n->input(0);
        ReplaceWithGather(g, n, m->first, m->second);
        while (was->producer() && was != m->first && g.NumUses(was) == 0) {  // the shuffle's transpose and reshape
          ir::Node* p = was->producer();
          was = p->input(0);
          g.RemoveNode(p);
        }
        stats.Count(matched);
        changed = true;
        break;
      }
      auto idx = Gathered(*n);
      if (!idx) continue;
      ir::Value* x = n->input(0);
      if (IsPermutation(*idx, x->type().shape[1]) && std::is_sorted(idx->begin(), idx->end())) {  // identity
        Forward(g, n, n->output(), x);
        stats.Count("removed");
        changed = true;
        break;
      }
      if (ir::Node* p = x->producer(); p && Gathered(*p)) {
        const auto inner = *Gathered(*p);
        for (int64_t& v : *idx) v = inner[v];
        ReplaceWithGather(g, n, p->input(0), *idx);
        if (g.NumUses(p->output()) == 0) g.RemoveNode(p);
        stats.Count("composed");
        changed = true;
        break;
      }
      const std::vector<ir::Node*> users = n->output()->users();
      for (ir::Node* u : users) {
        if (!Absorbs(u, n->output())) continue;
        const int64_t group = u->attrs().Int("group", 1), c = n->output()->type().shape[1];
        const bool integer = u->op() == "qconv";  // int8 weight columns cannot hold sums
        if (group == 1 && (!integer || Distinct(*idx, x->type().shape[1]))) {
          FoldIntoConv(g, u, x, *idx);
          stats.Count("folded into convs");
          changed = true;
        } else if (group == c && u->input(1)->type().shape[0] == c && IsPermutation(*idx, x->type().shape[1])) {
          MovePastDepthwise(g, u, x, *idx);
          stats.Count("moved past depthwise convs");
          changed = true;
        }
      }
      if (changed) {
        if (g.NumUses(n->output()) == 0) g.RemoveNode(n);
        break;
      }
    }
  }
  return stats;
}

}  // namespace tessera::passes
