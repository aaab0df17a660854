// channel-gather-to-conv: an int8 gather on the channels of a rank-4 value
// (what fold-channel-shuffle leaves where no conv absorbs it: ShuffleNet's
// pass-through half, an operand of the block's concat) becomes a 1x1 qconv
// with 0/1 weights and unit requantization. Each output is exactly one input
// value (acc = x - z_x, times 1, plus z_y = z_x), so the GEMM core moves the
// int8 values bit for bit, and the result can be stored into a concat's
// channel slice on the device instead of taking a host round trip.
//   before: %y: i8[N,K,H,W]<s> = gather(%x: i8[N,C,H,W]<s>, %idx) {axis=1}
//   after:  %y: i8[N,K,H,W]<s> = qconv(%x, %y.select: i8[K,C,1,1]<s=1>) {multiplier=[1 in fixed point], ...}
//           with select[k, idx[k]] = 1
// The quantizer runs it after fold-qdq.
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {

StatusOr<PassStats> ChannelGatherToConv(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    const std::optional<std::vector<int64_t>> idx = ChannelIndices(*n, ir::DType::kI8);
    if (!idx || idx->empty()) continue;
    ir::Value* x = n->input(0);
    const ir::TensorType& t = x->type();
    if (!t.quant || t.quant->per_axis() || n->output()->type().quant != t.quant) continue;
    ir::Node* conv = AddSelectionConv(g, x, *idx, *t.quant, n->output()->name(), n->name(), n);
    TSR_CHECK(conv != nullptr, "no fixed-point form of 1");
    Forward(g, n, n->output(), conv->output());
    stats.Count("rewritten");
  }
  return stats;
}

}  // namespace tessera::passes
