// fold-batchnorm: folds an inference batch_norm into the conv that feeds it
// (constant weights, the conv result used only by the batch_norm):
//   w'[m] = w[m] * a[m],  b'[m] = (b[m] - mean[m]) * a[m] + beta[m],
//   a[m] = gamma[m] / sqrt(var[m] + epsilon).
//   before: %c = conv(%x, %w)   %y = batch_norm(%c, %g, %b, %m, %v)
//   after:  %y = conv(%x, %w.bn, %b.bn)
#include <cmath>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> FoldBatchNorm(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* bn : g.nodes()) {
    if (bn->op() != "batch_norm") continue;
    ir::Node* conv = bn->input(0)->producer();
    if (!conv || conv->op() != "conv" || !SingleNodeUse(g, conv->output())) continue;
    if (conv->attrs().Has("act_min") || conv->attrs().Has("act_max")) continue;
    bool consts = conv->input(1)->is_constant() && (conv->num_inputs() < 3 || conv->input(2)->is_constant());
    for (int i = 1; i < 5; ++i) consts &= bn->input(i)->is_constant();
    if (!consts) continue;
    const ir::Tensor& w = conv->input(1)->data();
    const int64_t m = w.dim(0), per = w.numel() / m;
    const float eps = bn->attrs().Float("epsilon", 1e-5f);
    const float *gamma = bn->input(1)->data().data<float>(), *beta = bn->input(2)->data().data<float>(),
                *mean = bn->input(3)->data().data<float>(), *var = bn->input(4)->data().data<float>();
    ir::Tensor nw(ir::DType::kF32, w.shape()), nb(ir::DType::kF32, {m});
    for (int64_t c = 0; c < m; ++c) {
      const float a = gamma[c] / std::sqrt(var[c] + eps);
      for (int64_t i = 0; i < per; ++i) nw.data<float>()[c * per + i] = w.data<float>()[c * per + i] * a;
      const float b = conv->num_inputs() > 2 ? conv->input(2)->data().data<float>()[c] : 0.f;
      nb.data<float>()[c] = (b - mean[c]) * a + beta[c];
    }
    const std::string wname = conv->input(1)->name();
    conv->SetInput(1, g.AddConstant(g.UniqueName(wname + ".bn"), std::move(nw)));
    ir::Value* bias = g.AddConstant(g.UniqueName(wname + ".bn_bias"), std::move(nb));
    if (conv->num_inputs() > 2)
      conv->SetInput(2, bias);
    else
      conv->AddInput(bias);
    Forward(g, bn, bn->output(), conv->output());
    stats.Count("folded");
  }
  return stats;
}

}  // namespace tessera::passes
