// fuse-bias: folds an add (or sub) of a constant that broadcasts per output
// channel into the bias of the conv / conv_transpose / gemm / matmul feeding
// it (the producer's result used only by the add, no fused activation yet).
//   before: %c = conv(%x, %w)   %y = add(%c, %k)      (%k: f32[1,M,1,1])
//   after:  %y = conv(%x, %w, %k.bias)                 (%k.bias: f32[M])
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {
namespace {

// Channel count of the producer's result that the bias runs along, or -1.
int64_t BiasChannels(const ir::Node& p) {
  const ir::Shape& s = p.output()->type().shape;
  if (p.op() == "conv" || p.op() == "conv_transpose") return s[1];
  if (p.op() == "gemm" || p.op() == "matmul") return s.empty() ? -1 : s.back();
  return -1;
}

// Values of constant k as a per-channel vector of `channels`, if k
// broadcasts that way over a result of `rank` whose channel axis is `axis`.
bool PerChannel(const ir::Tensor& k, int rank, int axis, int64_t channels, std::vector<float>* out) {
  if (k.dtype() != ir::DType::kF32 || k.rank() > rank) return false;
  for (int d = 0; d < k.rank(); ++d) {
    const int rd = d + rank - k.rank();
    if (k.dim(d) != 1 && !(rd == axis && k.dim(d) == channels)) return false;
  }
  out->assign(channels, 0.f);
  for (int64_t c = 0; c < channels; ++c) (*out)[c] = k.data<float>()[k.numel() == 1 ? 0 : c];
  return true;
}

}  // namespace

StatusOr<PassStats> FuseBias(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* add : g.nodes()) {
    if ((add->op() != "add" && add->op() != "sub") || add->attrs().Has("act_min") || add->attrs().Has("act_max"))
      continue;
    for (int side = 0; side < 2; ++side) {
      if (add->op() == "sub" && side == 1) break;  // only x - k
      ir::Node* p = add->input(side)->producer();
      ir::Value* k = add->input(1 - side);
      if (!p || !k->is_constant() || !SingleNodeUse(g, p->output())) continue;
      const int64_t ch = BiasChannels(*p);
      if (ch < 0 || p->attrs().Has("act_min") || p->attrs().Has("act_max")) continue;
      if (p->op() == "gemm" && (p->attrs().Int("trans_a", 0) || p->attrs().Float("beta", 1.f) != 1.f)) continue;
      if (add->output()->type() != p->output()->type()) continue;  // the add must not broadcast the result
      const int rank = p->output()->type().rank();
      std::vector<float> bias;
      if (!PerChannel(k->data(), rank, p->op() == "conv" || p->op() == "conv_transpose" ? 1 : rank - 1, ch, &bias))
        continue;
      const int bias_index = 2;
      std::vector<float> merged(ch, 0.f);
      if (p->num_inputs() > bias_index) {
        const ir::Value* old = p->input(bias_index);
        if (!old->is_constant() || old->type().shape != ir::Shape{ch}) continue;
        std::copy(old->data().data<float>(), old->data().data<float>() + ch, merged.begin());
      }
      for (int64_t c = 0; c < ch; ++c) merged[c] += add->op() == "sub" ? -bias[c] : bias[c];
      bias = merged;
      ir::Tensor t(ir::DType::kF32, {ch});
      std::copy(bias.begin(), bias.end(), t.data<float>());
      ir::Value* bv = g.AddConstant(g.UniqueName(k->name() + ".bias"), std::move(t));
      if (p->num_inputs() > bias_index)
        p->SetInput(bias_index, bv);
      else
        p->AddInput(bv);
      Forward(g, add, add->output(), p->output());
      stats.Count("fused");
      break;
    }
  }
  return stats;
}

}  // namespace tessera::passes
