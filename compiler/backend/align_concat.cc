#include "compiler/backend/align_concat.h"

#include <vector>

#include "compiler/backend/channel_slices.h"
#include "compiler/ir/tensor_index.h"
#include "compiler/passes/rewrite.h"

namespace tessera::backend {
namespace {

int64_t Group(const ir::Node* n) { return n->attrs().Int("group", 1); }

bool Depthwise(const ir::Node* n) {
  const ir::Shape& w = n->input(1)->type().shape;
  return Group(n) == Channels(n->input(0)) && w[0] == Group(n) && w[1] == 1;
}

// Every reader of v is a qconv that can take a padded channel layout: group 1
// (zero weight columns), or depthwise with readers that can in turn.
bool ReadersTakePadding(const ir::Graph& g, const ir::Value* v) {
  if (g.IsOutput(v) || v->users().empty()) return false;
  for (const ir::Node* r : v->users()) {
    if (r->op() != "qconv" || r->input(0) != v || !r->input(1)->is_constant() ||
        (r->num_inputs() > 2 && !r->input(2)->is_constant()))
      return false;
    if (Group(r) != 1 && !(Depthwise(r) && ReadersTakePadding(g, r->output()))) return false;
  }
  return true;
}

// Index c of dimension `axis` of a constant moves to map[c] of n; the rest is
// zero. Per-axis scales along `axis` move with it (1 for the padding).
ir::Value* Spread(ir::Graph& g, const ir::Value* v, int axis, const std::vector<int64_t>& map, int64_t n) {
  ir::Tensor r = ir::ScatterAxis(v->data(), axis, map, n);
  const int64_t old = static_cast<int64_t>(map.size());
  std::optional<ir::QuantParams> q = v->type().quant;
  if (q && q->axis == axis) {
    std::vector<float> sc(static_cast<size_t>(n), 1.f);
    for (int64_t c = 0; c < old; ++c) sc[map[c]] = q->scale[c];
    q = ir::QuantParams::PerAxis(axis, sc);
  }
  return g.AddConstant(g.UniqueName(v->name() + ".aligned"), std::move(r), q);
}

// v's channels moved to map[c] of n: its readers follow (ReadersTakePadding).
void Widen(ir::Graph& g, ir::Value* v, const std::vector<int64_t>& map, int64_t n) {
  const std::vector<ir::Node*> readers = v->users();
  for (ir::Node* r : readers) {
    if (Group(r) == 1) {
      r->SetInput(1, Spread(g, r->input(1), 1, map, n));
      continue;
    }
    SpreadOutputs(g, r, map, n);
    r->attrs().Set("group", n);
    Widen(g, r->output(), map, n);
  }
}

}  // namespace

void SpreadOutputs(ir::Graph& g, ir::Node* conv, const std::vector<int64_t>& map, int64_t n) {
  conv->SetInput(1, Spread(g, conv->input(1), 0, map, n));
  if (conv->num_inputs() > 2) conv->SetInput(2, Spread(g, conv->input(2), 0, map, n));
  std::vector<int64_t> m = conv->attrs().Ints("multiplier");
  if (m.size() > 1) {
    std::vector<int64_t> nm(static_cast<size_t>(n), m[0]);
    for (size_t c = 0; c < map.size(); ++c) nm[map[c]] = m[c];
    conv->attrs().Set("multiplier", nm);
  }
  ir::TensorType t = conv->output()->type();
  t.shape[1] = n;
  conv->output()->set_type(t);
}

int AlignChannelConcats(ir::Graph& g, int64_t block) {
  int count = 0;
  for (ir::Node* c : g.nodes()) {
    // Padded only where channel_slices.h would then accept the concat: its
    // graph-level conditions hold, every operand is a qconv's result (written
    // through a strided view once on the accelerator), the padded ones group-1
    // convs only the concat reads, and every reader takes the padding (qconvs:
    // the result has a device reader).
    if (!InPlaceConcatCandidate(*c) || OperandsFillBlocks(*c, block)) continue;
    bool ok = true;
    for (int i = 0; i < c->num_inputs() && ok; ++i) {
      const ir::Value* x = c->input(i);
      const ir::Node* p = x->producer();
      ok = p && p->op() == "qconv" && p->input(1)->is_constant() && (p->num_inputs() < 3 || p->input(2)->is_constant());
      if (ok && i + 1 < c->num_inputs() && Channels(x) % block != 0) ok = Group(p) == 1 && passes::SingleNodeUse(g, x);
    }
    if (!ok || !ReadersTakePadding(g, c->output())) continue;
    std::vector<int64_t> map;
    int64_t offset = 0;
    for (int i = 0; i < c->num_inputs(); ++i) {
      ir::Value* x = c->input(i);
      const int64_t ch = Channels(x), padded = i + 1 < c->num_inputs() ? (ch + block - 1) / block * block : ch;
      for (int64_t k = 0; k < ch; ++k) map.push_back(offset + k);
      offset += padded;
      if (padded == ch) continue;
      std::vector<int64_t> same(static_cast<size_t>(ch));
      for (int64_t k = 0; k < ch; ++k) same[k] = k;
      SpreadOutputs(g, x->producer(), same, padded);
    }
    ir::TensorType t = c->output()->type();
    t.shape[1] = offset;
    c->output()->set_type(t);
    Widen(g, c->output(), map, offset);
    ++count;
  }
  return count;
}

}  // namespace tessera::backend
