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
  std::vector<std::vector<int>> release;           // slots whose last use is node i
  int num_slots = 0;
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
  // Last use of every slot; graph outputs are never released.
  std::vector<int> last(impl->num_slots, -1);
  for (size_t i = 0; i < impl->nodes.size(); ++i) {
    std::vector<int> ops;
    for (const ir::Value* v : impl->nodes[i]->inputs()) {
      const int s = v->is_constant() ? -1 : impl->slot.at(v);
      ops.push_back(s);
      if (s >= 0) last[s] = static_cast<int>(i);
    }
    impl->operand_slots.push_back(ops);
  }
  for (const ir::Value* out : graph.outputs())
    if (!out->is_constant()) last[impl->slot.at(out)] = static_cast<int>(impl->nodes.size());
  impl->release.resize(impl->nodes.size());
  for (int s = 0; s < impl->num_slots; ++s)
    if (last[s] >= 0 && last[s] < static_cast<int>(impl->nodes.size())) impl->release[last[s]].push_back(s);
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

StatusOr<std::vector<ir::Tensor>> Executor::Run(const std::vector<ir::Tensor>& inputs, const NodeObserver& observer) {
  const ir::Graph& g = *impl_->graph;
  if (inputs.size() != g.inputs().size())
    return InvalidArgumentError("graph '{}' takes {} inputs, got {}", g.name(), g.inputs().size(), inputs.size());
  std::vector<ir::Tensor> slots(impl_->num_slots);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value* in = g.inputs()[i];
    if (inputs[i].dtype() != in->type().dtype || inputs[i].shape() != in->type().shape)
      return InvalidArgumentError("input '{}' must be {}{}, got {}{}", in->name(), ir::DTypeName(in->type().dtype),
                                  ir::ShapeToString(in->type().shape), ir::DTypeName(inputs[i].dtype()),
                                  ir::ShapeToString(inputs[i].shape()));
    slots[impl_->slot.at(in)] = inputs[i];
  }
  timings_.clear();
  Operands operands;
  std::vector<ir::Tensor> results;
  for (size_t i = 0; i < impl_->nodes.size(); ++i) {
    const ir::Node* n = impl_->nodes[i];
    operands.clear();
    for (int k = 0; k < n->num_inputs(); ++k) {
      const int s = impl_->operand_slots[i][k];
      operands.push_back(s < 0 ? &n->input(k)->data() : &slots[s]);
    }
    results.clear();
    for (const ir::Value* out : n->outputs()) results.emplace_back(out->type().dtype, out->type().shape);
    const auto t0 = std::chrono::steady_clock::now();
    Status st = impl_->kernels[i](operands, results);
    if (!st.ok()) return Status(st.code(), n->Describe() + ": " + st.message());
    if (profile_)
      timings_.push_back({n, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    if (observer) observer(*n, results);
    for (int k = 0; k < n->num_outputs(); ++k) slots[impl_->slot.at(n->output(k))] = std::move(results[k]);
    for (int s : impl_->release[i]) slots[s] = ir::Tensor();
  }
  std::vector<ir::Tensor> outs;
  for (const ir::Value* out : g.outputs())
    outs.push_back(out->is_constant() ? out->data() : slots[impl_->slot.at(out)]);
  return outs;
}

}  // namespace tessera::exec
