// The CPU reference executor: runs a verified graph node by node on the host,
// in fp32 and in int8. For int8 graphs it is the golden model of the
// accelerator (docs/quantization.md). Every intermediate result has its own
// buffer, allocated on the first run and reused by later ones (an executor
// holds all activations of one inference); outputs are returned by value.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "compiler/ir/tensor.h"
#include "isa/base/status.h"

namespace tessera::ir {
class Graph;
class Node;
}  // namespace tessera::ir

namespace tessera::exec {

// Called after each node with its results (calibration observers, tracing).
using NodeObserver = std::function<void(const ir::Node& node, const std::vector<const ir::Tensor*>& results)>;

struct NodeTiming {
  const ir::Node* node;
  double seconds;
};

class Executor {
 public:
  // Verifies the graph and prepares one kernel per node (constant weights are
  // converted once here). The graph must outlive the executor.
  static StatusOr<std::unique_ptr<Executor>> Create(const ir::Graph& graph);
  ~Executor();

  // Inputs in graph-input order; each must match its input's element type and
  // shape exactly. Returns the graph outputs in order.
  StatusOr<std::vector<ir::Tensor>> Run(const std::vector<ir::Tensor>& inputs, const NodeObserver& observer = nullptr);

  // Per-node wall time of the last Run when profiling is on.
  void set_profile(bool on) { profile_ = on; }
  const std::vector<NodeTiming>& profile() const { return timings_; }

 private:
  struct Impl;
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  bool profile_ = false;
  std::vector<NodeTiming> timings_;
};

}  // namespace tessera::exec
