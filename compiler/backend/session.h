// Session: a compiled model (.tsr) opened on a target of the backend registry
// — the one C++ API behind `tessera run`, the Python binding and the
// examples. Run takes inputs whose leading dimension is a multiple of the
// model's batch, runs them as a sequence of batches, concatenates the outputs
// and sums the per-layer profile; the renderings (stats JSON, layer table,
// summary, Chrome trace) are exactly what the CLI prints and writes.
//
//   SessionOptions o;
//   o.target = "sim";
//   TSR_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Open("model.tsr", o));
//   TSR_ASSIGN_OR_RETURN(RunResult r, s->Run({x}));
//   std::string json = s->StatsJson(r.stats);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "driver/device.h"
#include "isa/config.h"

namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

struct SessionOptions {
  std::string target = "sim";             // a target of driver/registry.h (cpu, ref, sim, ...)
  std::optional<HwConfig> device_config;  // the device's config when not the model's own (same ISA)
  int64_t timeout_ms = -1;                // per device run; < 0: the runtime's default
  bool trace = false;                     // keep a timeline for TraceJson
  BackendOptionValues backend;            // the target's own options
  // Opens the device instead of the registry (a virtual platform's device
  // over its bus); `target` still names the registry row it behaves as.
  std::function<StatusOr<std::unique_ptr<Device>>(const HwConfig&, const DeviceOptions&)> open_device;
};

// One step of the model summed over the batches of a run.
struct LayerStats {
  std::string node, op;
  bool accel = false;
  int64_t runs = 0;
  DeviceCounters counters;  // accelerator layers
  int64_t useful_macs = 0, predicted_cycles = 0;
  double host_seconds = 0;
};

struct RunStats {
  int64_t batches = 0;
  DeviceCounters device;  // summed over accelerator layers and batches
  int64_t useful_macs = 0;
  double host_seconds = 0, cpu_seconds = 0, transfer_seconds = 0;
  std::vector<LayerStats> layers;
};

struct RunResult {
  std::vector<ir::Tensor> outputs;  // graph-output order, batches concatenated along dimension 0
  RunStats stats;
};

// Called after each batch: (batches done, batches in the run).
using ProgressFn = std::function<void(int64_t, int64_t)>;

class Session {
 public:
  static StatusOr<std::unique_ptr<Session>> Open(const std::string& tsr_path, const SessionOptions& opts = {});
  static StatusOr<std::unique_ptr<Session>> Open(std::unique_ptr<tsr::Model> model, const SessionOptions& opts = {});
  ~Session();

  // Inputs in graph-input order, each of the input's type except a leading
  // dimension that is a positive multiple of the model's (the same number of
  // batches for every input).
  StatusOr<RunResult> Run(const std::vector<ir::Tensor>& inputs, const ProgressFn& progress = nullptr);

  // The --stats-json object (cycles, utilization, DRAM traffic, per module
  // and per layer), as text with a trailing newline.
  std::string StatsJson(const RunStats& s) const;
  // The per-layer table (cycles, GEMM utilization, DRAM bytes, bound,
  // roofline, predicted cycles; CPU steps with their host time).
  std::string LayerTable(const RunStats& s) const;
  // "N cycles per batch (...), GEMM utilization U%; host T ms per batch (cpu steps C ms)".
  std::string Summary(const RunStats& s) const;
  // Chrome Trace Event JSON: with timing, every device run so far (instruction
  // spans and one span per layer); without, the layers of `s` at host time.
  // Needs SessionOptions::trace.
  StatusOr<std::string> TraceJson(const RunStats& s) const;

  const std::string& model_name() const;
  const std::string& target() const;
  bool has_timing() const;
  const HwConfig& config() const;
  const ir::Graph& graph() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::backend
