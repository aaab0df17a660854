// fold-qdq's first step: uint8 activations become int8 with the zero point
// moved by -128, so that the patterns after it only see int8:
// quantize's saturate(round(x / s) + z) to [0, 255] minus 128 is
// saturate(round(x / s) + z - 128) to [-128, 127], dequantize's (q - z) is
// unchanged, and so are qlinear_conv/qlinear_matmul, which only see q - z
// and saturate their result to its type, and max pool and data movement,
// which keep the parameters; the graph computes the same numbers.
//   before: %q: u8[..]<s=0.02, zp=128> = quantize(%x)   %d = dequantize(%q)
//   after:  %q: i8[..]<s=0.02, zp=0>   = quantize(%x)   %d = dequantize(%q)
// A group of values linked by data movement changes together; a group that
// holds a graph input or output, or that another op reads, keeps u8.
#include <algorithm>

#include "compiler/passes/fold_qdq.h"

namespace tessera::passes::qdq {
namespace {

// The ops that read a u8 value through its zero point.
bool ZeroPointAware(const std::string& op) {
  return op == "dequantize" || op == "qlinear_conv" || op == "qlinear_matmul";
}

// Data movement that keeps its operand's quantization parameters.
bool KeepsQuant(const std::string& op) {
  return op == "reshape" || op == "flatten" || op == "squeeze" || op == "unsqueeze" || op == "transpose" ||
         op == "identity" || op == "max_pool" || op == "global_max_pool";
}

// The u8 values linked to v through KeepsQuant ops; false if one cannot change type.
bool U8Group(const ir::Graph& g, ir::Value* v, std::vector<ir::Value*>* group) {
  std::vector<ir::Value*> work = {v};
  group->assign(1, v);
  auto add = [&](ir::Value* a) {
    if (std::find(group->begin(), group->end(), a) != group->end()) return;
    group->push_back(a);
    work.push_back(a);
  };
  while (!work.empty()) {
    ir::Value* a = work.back();
    work.pop_back();
    const ir::TensorType& t = a->type();
    const ir::Node* p = a->producer();
    if (t.dtype != ir::DType::kU8 || !t.quant || t.quant->per_axis() || g.IsOutput(a) || !p) return false;
    if (KeepsQuant(p->op()))
      add(p->input(0));
    else if (p->op() != "quantize" && p->op() != "qlinear_conv" && p->op() != "qlinear_matmul")
      return false;
    for (ir::Node* u : a->users()) {
      if (KeepsQuant(u->op()) && u->input(0) == a)
        add(u->output());
      else if (!ZeroPointAware(u->op()))
        return false;
    }
  }
  return true;
}

}  // namespace

int RetypeU8(ir::Graph& g) {
  int n = 0;
  for (ir::Node* node : g.nodes()) {
    std::vector<ir::Value*> group;
    if (node->num_outputs() != 1 || node->output()->type().dtype != ir::DType::kU8 ||
        !U8Group(g, node->output(), &group))
      continue;
    for (ir::Value* v : group) {
      const ir::TensorType& t = v->type();
      ir::QuantParams qp = *t.quant;
      qp.zero_point.assign(1, static_cast<int32_t>(ZeroPoint(t) - 128));
      v->set_type(ir::TensorType(ir::DType::kI8, t.shape, qp));
      ++n;
    }
  }
  return n;
}

}  // namespace tessera::passes::qdq
