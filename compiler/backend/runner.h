// Runs a compiled model (.tsr) on an accelerator engine (`ref`, `sim`) with
// its CPU steps on the host, or entirely on the int8 CPU reference executor
// (`cpu`) from the same artifact. Creating a runner allocates the device
// buffers, uploads the packed constants and loads and binds every layer's
// recording once; each Run then only moves activations and launches layers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "driver/device.h"
#include "isa/config.h"

namespace tessera {
class TraceSink;
}
namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

struct LayerProfile {
  std::string node, op;
  bool accel = false;
  DeviceCounters counters;  // accelerator layers
  int64_t useful_macs = 0, predicted_cycles = 0;
  double host_seconds = 0;
};

struct RunProfile {
  std::vector<LayerProfile> layers;
  DeviceCounters device;  // sum over accelerator layers
  double host_seconds = 0, cpu_seconds = 0, transfer_seconds = 0;
  int64_t useful_macs = 0;
};

struct RunnerOptions {
  std::string target = "sim";               // a target of the backend registry (driver/registry.h)
  const HwConfig* device_config = nullptr;  // the device's config, if not the artifact's own
  int64_t timeout_ms = -1;                  // per device run; < 0: the runtime's default
  TraceSink* trace = nullptr;   // targets with timing: instruction spans, plus one span per layer on track 4
  BackendOptionValues backend;  // the target's own options
  // Opens the device instead of the registry (SessionOptions::open_device).
  std::function<StatusOr<std::unique_ptr<Device>>(const HwConfig&, const DeviceOptions&)> open_device;
};

class ModelRunner {
 public:
  static StatusOr<std::unique_ptr<ModelRunner>> Create(const tsr::Model& model, const RunnerOptions& opts);
  ~ModelRunner();

  // Inputs in graph-input order (types must match); outputs in graph-output order.
  StatusOr<std::vector<ir::Tensor>> Run(const std::vector<ir::Tensor>& inputs, RunProfile* profile = nullptr);

  const HwConfig& config() const;
  const ir::Graph& graph() const;
  // Whether the target counts cycles (its registry row).
  bool has_timing() const;

 private:
  struct Impl;
  explicit ModelRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::backend
