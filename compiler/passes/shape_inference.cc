// shape-inference: recomputes every result type in order from the graph
// inputs and constants (declared parts, such as a quantize target scale, are
// kept). Used after editing input shapes, e.g. changing the batch size:
//   before: %x: f32[8,4]   %y: f32[1,4] = relu(%x)
//   after:  %x: f32[8,4]   %y: f32[8,4] = relu(%x)
#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"
#include "compiler/passes/pass.h"

namespace tessera::passes {

StatusOr<PassStats> InferShapes(ir::Graph& g) {
  PassStats stats;
  std::vector<ir::TensorType> types;
  for (ir::Node* n : g.nodes()) {
    TSR_RETURN_IF_ERROR(ir::InferNodeTypes(*n, &types));
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (n->output(i)->type() == types[i]) continue;
      n->output(i)->set_type(types[i]);
      stats.Count("updated");
    }
  }
  return stats;
}

}  // namespace tessera::passes
