// batchnorm-to-conv: an inference batch_norm on a rank-4 value that
// fold-batchnorm could not fold (DenseNet's pre-activation norm1 reads a
// concat; its ReLU sits before conv1) becomes a depthwise 1x1 conv with the
// per-channel affine y = a[c] x + b[c] as its weight and bias:
//   a[c] = gamma[c] / sqrt(var[c] + epsilon),  b[c] = beta[c] - mean[c] a[c].
// Quantized, a depthwise qconv holds one weight per channel (per-channel
// int8 scale |a[c]| / 127, so the weight is exactly +-127 or 0), its bias,
// per-channel requantize and a fused ReLU are the conv epilogue, and it runs
// on the accelerator block-diagonally instead of as fp32 on the host.
//   before: %y = batch_norm(%x, %g, %b, %m, %v)          %x: f32[N, C, H, W]
//   after:  %y = conv(%x, %w.bn: [C, 1, 1, 1], %b.bn: [C]) {group = C}
// Runs after fold-batchnorm, before fuse-activation (which then fuses the ReLU).
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> BatchNormToConv(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* bn : g.nodes()) {
    if (bn->op() != "batch_norm" || bn->input(0)->type().rank() != 4 || bn->input(0)->type().dtype != ir::DType::kF32)
      continue;
    bool consts = true;
    for (int i = 1; i < 5; ++i) consts &= bn->input(i)->is_constant() && bn->input(i)->type().dtype == ir::DType::kF32;
    if (!consts) continue;
    const int64_t c = bn->input(0)->type().shape[1];
    const float *beta = bn->input(2)->data().data<float>(), *mean = bn->input(3)->data().data<float>();
    const std::vector<float> scale = BatchNormScale(*bn);
    ir::Tensor w(ir::DType::kF32, {c, 1, 1, 1}), b(ir::DType::kF32, {c});
    for (int64_t k = 0; k < c; ++k) {
      w.data<float>()[k] = scale[k];
      b.data<float>()[k] = beta[k] - mean[k] * scale[k];
    }
    const std::string base = bn->input(1)->name();
    ir::Value* wv = g.AddConstant(g.UniqueName(base + ".bn_w"), std::move(w));
    ir::Value* bv = g.AddConstant(g.UniqueName(base + ".bn_b"), std::move(b));
    ir::Node* conv = g.AddNode("conv", {bn->input(0), wv, bv}, {g.UniqueName(bn->output()->name() + ".dw")},
                               UnitConvAttrs(c), bn->name(), bn);
    conv->output()->set_type(bn->output()->type());
    Forward(g, bn, bn->output(), conv->output());
    stats.Count("rewritten");
  }
  return stats;
}

}  // namespace tessera::passes
