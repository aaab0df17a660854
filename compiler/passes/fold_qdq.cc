// fold-qdq: turns the quantize/dequantize ("QDQ") form of an int8 graph into
// integer ops. uint8 activations first become int8 (zero point - 128;
// fold_qdq_u8.cc), and QOperator qlinear_conv/qlinear_matmul become
// qconv/qmatmul where they can; then it looks at every quantize node
// q = quantize(p(dequantize(..))):
//   conv/gemm/matmul -> qconv/qmatmul, matmul of two activations ->
//   qbatch_matmul (fold_qdq_gemm.cc),
//   add -> qadd, mul -> qmul, avg_pool/global_avg_pool -> qavg_pool (with
//   zero points: a depthwise qconv of ones, unless the host quantized its
//   operand), relu/clip -> requantize, hard_sigmoid/hard_swish ->
//   qhard_sigmoid/qhard_swish (fold_qdq_arith.cc),
//   max_pool and data movement -> the same op on int8 (+ requantize if the
//   scale changes), concat -> requantize inputs (with zero points: 1x1
//   identity qconvs) + concat, quantize(dequantize(x)) -> x or requantize,
//   quantize(reshape-like(float v)) -> the same op after quantize(v)
//   (fold_qdq_movement.cc).
// Ops that do not match stay float between dequantize and quantize: they run
// on the CPU. Both ONNX QDQ models and the post-training quantizer use this.
//   before: %a = dequantize(%xq)  %w = dequantize(%wq)  %c = conv(%a, %w, %b) {act_min=0}  %y = quantize(%c)
//   after:  %y = qconv(%xq, %wq, %b.q) {act_min=0, multiplier=[...], shift=38, ...}
#include "compiler/passes/fold_qdq.h"

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
