#include "compiler/exec/executor.h"

#include <chrono>
#include <unordered_map>

#include "compiler/exec/kernel.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/verifier.h"

namespace tessera::exec {

struct Executor::Impl {
  const ir::Graph* graph = nullptr;
  std::vector<ir::Node*> nodes;
  std::vector<KernelFn> kernels;
  std::unordered_map<const ir::Value*, int> slot;  // non-constant values
  std::vector<std::vector<int>> operand_slots;     // per node, -1 for constants
  int num_slots = 0;
  std::vector<ir::Tensor> buffers;  // per slot, reused across runs
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>> Executor::Create(const ir::Graph& graph) {
  TSR_RETURN_IF_ERROR(ir::Verify(graph));
  auto impl = std::make_unique<Impl>();
  impl->graph = &graph;
  impl->nodes = graph.nodes();
  for (const ir::Value* in : graph.inputs()) impl->slot[in] = impl->num_slots++;
  for (const ir::Node* n : impl->nodes) {
    TSR_ASSIGN_OR_RETURN(KernelFn k, MakeKernel(*n));
    impl->kernels.push_back(std::move(k));
    for (const ir::Value* out : n->outputs()) impl->slot[out] = impl->num_slots++;
  }
  for (size_t i = 0; i < impl->nodes.size(); ++i) {
    std::vector<int> ops;
    for (const ir::Value* v : impl->nodes[i]->inputs()) ops.push_back(v->is_constant() ? -1 : impl->slot.at(v));
    impl->operand_slots.push_back(ops);
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

StatusOr<std::vector<ir::Tensor>> Executor::Run(const std::vector<ir::Tensor>& inputs, const NodeObserver& observer) {
  const ir::Graph& g = *impl_->graph;
  if (inputs.size() != g.inputs().size())
    return InvalidArgumentError("graph '{}' takes {} inputs, got {}", g.name(), g.inputs().size(), inputs.size());
  // Intermediate results live in buffers kept across runs (allocated on first
  // use, overwritten by their kernel); graph inputs are read in place.
  std::vector<ir::Tensor>& buffers = impl_->buffers;
  buffers.resize(impl_->num_slots);
  std::vector<const ir::Tensor*> value(impl_->num_slots, nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value* in = g.inputs()[i];
    if (inputs[i].dtype() != in->type().dtype || inputs[i].shape() != in->type().shape)
      return InvalidArgumentError("input '{}' must be {}{}, got {}{}", in->name(), ir::DTypeName(in->type().dtype),
                                  ir::ShapeToString(in->type().shape), ir::DTypeName(inputs[i].dtype()),
                                  ir::ShapeToString(inputs[i].shape()));
    value[impl_->slot.at(in)] = &inputs[i];
  }
  timings_.clear();
  Operands operands;
  std::vector<ir::Tensor> results;
  std::vector<ir::Tensor> outputs(g.outputs().size());
  for (size_t i = 0; i < impl_->nodes.size(); ++i) {
    const ir::Node* n = impl_->nodes[i];
    operands.clear();
    for (int k = 0; k < n->num_inputs(); ++k) {
      const int s = impl_->operand_slots[i][k];
      operands.push_back(s < 0 ? &n->input(k)->data() : value[s]);
    }
    results.clear();
    for (const ir::Value* out : n->outputs()) {
      ir::Tensor& b = buffers[impl_->slot.at(out)];
      if (b.raw() == nullptr) b = ir::Tensor::Uninitialized(out->type().dtype, out->type().shape);
      results.push_back(std::move(b));
    }
    const auto t0 = std::chrono::steady_clock::now();
    Status st = impl_->kernels[i](operands, results);
    for (int k = 0; k < n->num_outputs(); ++k) buffers[impl_->slot.at(n->output(k))] = std::move(results[k]);
    if (!st.ok()) return Status(st.code(), n->Describe() + ": " + st.message());
    if (profile_) timings_.push_back({n, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    for (int k = 0; k < n->num_outputs(); ++k) {
      const int s = impl_->slot.at(n->output(k));
      value[s] = &buffers[s];
    }
    if (observer) {
      std::vector<const ir::Tensor*> seen;
      for (int k = 0; k < n->num_outputs(); ++k) seen.push_back(value[impl_->slot.at(n->output(k))]);
      observer(*n, seen);
    }
  }
  for (size_t o = 0; o < g.outputs().size(); ++o) {
    const ir::Value* out = g.outputs()[o];
    outputs[o] = out->is_constant() ? out->data() : *value[impl_->slot.at(out)];
  }
  return outputs;
}

}  // namespace tessera::exec
