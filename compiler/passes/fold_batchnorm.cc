// fold-batchnorm: folds an inference batch_norm into the conv or
// conv_transpose that feeds it (constant weights, the result used only by the
// batch_norm): the weights of output channel m (conv w[m, ...]; conv_transpose
// w[c, m % (M/group), ...] of group m / (M/group)) scale by a[m],
//   w'[m] = w[m] * a[m],  b'[m] = (b[m] - mean[m]) * a[m] + beta[m],
//   a[m] = gamma[m] / sqrt(var[m] + epsilon).
//   before: %c = conv(%x, %w)   %y = batch_norm(%c, %g, %b, %m, %v)
//   after:  %y = conv(%x, %w.bn, %b.bn)
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> FoldBatchNorm(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* bn : g.nodes()) {
    if (bn->op() != "batch_norm") continue;
    ir::Node* conv = bn->input(0)->producer();
    if (!conv || (conv->op() != "conv" && conv->op() != "conv_transpose") || !SingleNodeUse(g, conv->output()))
      continue;
    if (conv->attrs().Has("act_min") || conv->attrs().Has("act_max")) continue;
    bool consts = conv->input(1)->is_constant() && (conv->num_inputs() < 3 || conv->input(2)->is_constant());
    for (int i = 1; i < 5; ++i) consts &= bn->input(i)->is_constant();
    if (!consts) continue;
    const ir::Tensor& w = conv->input(1)->data();
    const bool transposed = conv->op() == "conv_transpose";
    const int64_t m = conv->output()->type().shape[1], kk = w.numel() / (w.dim(0) * w.dim(1));
    // Output channel of weight element e.
    const int64_t groups = conv->attrs().Int("group", 1), ocg = w.dim(1), icg = w.dim(0) / groups;
    auto channel = [&](int64_t e) {
      return transposed ? e / (ocg * kk) / icg * ocg + e / kk % ocg : e / (w.numel() / m);
    };
    const float *beta = bn->input(2)->data().data<float>(), *mean = bn->input(3)->data().data<float>();
    ir::Tensor nw(ir::DType::kF32, w.shape()), nb(ir::DType::kF32, {m});
    const std::vector<float> a = BatchNormScale(*bn);
    for (int64_t c = 0; c < m; ++c) {
      const float b = conv->num_inputs() > 2 ? conv->input(2)->data().data<float>()[c] : 0.f;
      nb.data<float>()[c] = (b - mean[c]) * a[c] + beta[c];
    }
    for (int64_t e = 0; e < w.numel(); ++e) nw.data<float>()[e] = w.data<float>()[e] * a[channel(e)];
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
