#include "compiler/backend/session.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "compiler/backend/compile.h"
#include "compiler/backend/cost_model.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "driver/registry.h"
#include "sim/trace.h"

namespace tessera::backend {
namespace {

using Json = nlohmann::json;

// "fetch": {"busy": .., "wait_token": .., ...} for every unit (isa/regs.def).
void AddUnits(const HwConfig& cfg, const DeviceCounters& c, Json* j) {
  for (int u = 0; u < regs::kNumUnits; ++u) {
    Json m = Json::object();
    for (int k = 0; k < regs::kNumStalls; ++k)
      m[std::string(regs::kStallNames[k])] =
          CounterJson(cfg, regs::Counter::stalls, c.unit(static_cast<regs::Unit>(u)).at(k));
    (*j)[std::string(regs::kUnitNames[u])] = m;
  }
}

void Accumulate(const RunProfile& prof, RunStats* s) {
  if (s->layers.empty()) s->layers.resize(prof.layers.size());
  for (size_t i = 0; i < prof.layers.size() && i < s->layers.size(); ++i) {
    const LayerProfile& p = prof.layers[i];
    LayerStats& l = s->layers[i];
    if (l.runs == 0) l.node = p.node, l.op = p.op, l.accel = p.accel;
    l.counters.Add(p.counters);
    l.useful_macs += p.useful_macs;
    l.predicted_cycles += p.predicted_cycles;
    l.host_seconds += p.host_seconds;
    ++l.runs;
  }
  s->device.Add(prof.device);
  s->useful_macs += prof.useful_macs;
  s->host_seconds += prof.host_seconds;
  s->cpu_seconds += prof.cpu_seconds;
  s->transfer_seconds += prof.transfer_seconds;
}

}  // namespace

struct Session::Impl {
  std::unique_ptr<tsr::Model> model;
  std::string target;
  std::unique_ptr<ChromeTrace> timeline;  // targets with timing, SessionOptions::trace
  std::unique_ptr<ModelRunner> runner;
  bool trace = false;

  double peak() const { return static_cast<double>(runner->config().macs_per_cycle); }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Open(const std::string& tsr_path, const SessionOptions& opts) {
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> model, LoadModelFile(tsr_path));
  auto s = Open(std::move(model), opts);
  if (!s.ok()) return s.status().WithContext(tsr_path);  // every error names the file
  return s;
}

StatusOr<std::unique_ptr<Session>> Session::Open(std::unique_ptr<tsr::Model> model, const SessionOptions& opts) {
  auto impl = std::make_unique<Impl>();
  impl->model = std::move(model);
  impl->target = opts.target;
  impl->trace = opts.trace;
  RunnerOptions ro;
  ro.target = opts.target;
  ro.timeout_ms = opts.timeout_ms;
  ro.backend = opts.backend;
  ro.open_device = opts.open_device;
  if (opts.device_config) ro.device_config = &*opts.device_config;
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(opts.target));
  if (opts.trace && backend->has_timing) {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, ParseHwConfig(impl->model->config_json(), "compiled model config"));
    impl->timeline = std::make_unique<ChromeTrace>(opts.device_config ? opts.device_config->clock_mhz : cfg.clock_mhz);
    ro.trace = impl->timeline.get();
  }
  TSR_ASSIGN_OR_RETURN(impl->runner, ModelRunner::Create(*impl->model, ro));
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

StatusOr<RunResult> Session::Run(const std::vector<ir::Tensor>& inputs, const ProgressFn& progress) {
  const ir::Graph& g = impl_->runner->graph();
  if (inputs.size() != g.inputs().size())
    return InvalidArgumentError("model '{}' takes {} input(s), {} given", model_name(), g.inputs().size(),
                                inputs.size());
  // Every input: the graph input's type with a leading dimension of k batches, the same k for all.
  int64_t runs = -1;
  std::vector<size_t> piece_bytes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::TensorType& t = g.inputs()[i]->type();
    const ir::Tensor& x = inputs[i];
    const int64_t batch = t.shape.empty() ? 1 : t.shape[0];
    const bool fits = x.dtype() == t.dtype && x.rank() == t.rank() && x.rank() > 0 && batch > 0 &&
                      x.dim(0) % batch == 0 && std::equal(x.shape().begin() + 1, x.shape().end(), t.shape.begin() + 1);
    if (!fits || x.dim(0) == 0)
      return InvalidArgumentError(
          "input '{}' must be {} with a leading dimension that is a positive multiple of {}, got {}{}",
          g.inputs()[i]->name(), ir::TypeToString(t), batch, std::string(ir::DTypeName(x.dtype())),
          ir::ShapeToString(x.shape()));
    const int64_t k = x.dim(0) / batch;
    if (runs >= 0 && k != runs)
      return InvalidArgumentError("input '{}' holds {} batch(es), input '{}' {}: they must agree",
                                  g.inputs()[i]->name(), k, g.inputs()[0]->name(), runs);
    runs = k;
    piece_bytes.push_back(x.nbytes() / static_cast<size_t>(k));
  }
  if (runs < 0) runs = 1;  // a model without inputs runs once
  RunResult result;
  result.stats.batches = runs;
  std::vector<std::vector<ir::Tensor>> outs;
  std::vector<ir::Tensor> pieces;
  for (int64_t r = 0; r < runs; ++r) {
    pieces.clear();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::TensorType& t = g.inputs()[i]->type();
      ir::Tensor piece = ir::Tensor::Uninitialized(t.dtype, t.shape);
      std::memcpy(piece.raw(), inputs[i].raw() + r * piece_bytes[i], piece_bytes[i]);
      pieces.push_back(std::move(piece));
    }
    RunProfile prof;
    TSR_ASSIGN_OR_RETURN(std::vector<ir::Tensor> y, impl_->runner->Run(pieces, &prof));
    Accumulate(prof, &result.stats);
    outs.push_back(std::move(y));
    if (progress) progress(r + 1, runs);
  }
  // Concatenate each output along the leading dimension.
  for (size_t k = 0; k < outs[0].size(); ++k) {
    ir::Shape shape = outs[0][k].shape();
    if (shape.empty()) shape = {1};
    shape[0] *= runs;
    ir::Tensor cat = ir::Tensor::Uninitialized(outs[0][k].dtype(), shape);
    const size_t bytes = outs[0][k].nbytes();
    for (int64_t r = 0; r < runs; ++r) std::memcpy(cat.raw() + r * bytes, outs[r][k].raw(), bytes);
    result.outputs.push_back(std::move(cat));
  }
  return result;
}

std::string Session::StatsJson(const RunStats& s) const {
  const HwConfig& cfg = config();
  const double peak = impl_->peak();
  const int64_t cycles = s.device.cycles;
  Json j = Json::object();
  j["model"] = model_name();
  j["target"] = target();
  j["config"] = cfg.name;
  j["batches"] = s.batches;
  j["cycles"] = cycles;
  j["gemm_utilization"] = cycles ? s.useful_macs / (peak * cycles) : 0.0;
  j["useful_macs"] = s.useful_macs;
  j["dram_read_bytes"] = CounterJson(cfg, regs::Counter::load_bytes_by_mem, s.device.dram_read_bytes());
  j["dram_write_bytes"] = CounterJson(cfg, regs::Counter::dram_write_bytes, s.device.dram_write_bytes);
  AddUnits(cfg, s.device, &j);
  j["host_seconds"] = s.host_seconds;
  Json ls = Json::array();
  for (const LayerStats& l : s.layers) {
    Json e{
        {"node", l.node}, {"op", l.op}, {"where", l.accel ? "accelerator" : "cpu"}, {"host_seconds", l.host_seconds}};
    if (l.accel) {
      const DeviceCounters& c = l.counters;
      const Roofline rl = LayerRoofline(cfg, c);
      e["cycles"] = c.cycles;
      e["gemm_utilization"] = c.cycles ? l.useful_macs / (peak * c.cycles) : 0.0;
      e["useful_macs"] = l.useful_macs;
      e["dram_read_bytes"] = CounterJson(cfg, regs::Counter::load_bytes_by_mem, c.dram_read_bytes());
      e["dram_write_bytes"] = CounterJson(cfg, regs::Counter::dram_write_bytes, c.dram_write_bytes);
      e["bound"] = BoundName(rl.bound);
      e["roofline_cycles"] = rl.bound_cycles;
      e["roofline"] = Json{{"compute", rl.compute},   {"load", rl.load},     {"store", rl.store},
                           {"dram_bw", rl.bandwidth}, {"bursts", rl.bursts}, {"fetch", rl.fetch}};
      e["port_bursts"] = c.port_bursts;
      e["dram_busy_cycles"] = c.dram_busy_cycles;
      e["predicted_cycles"] = l.predicted_cycles;
      AddUnits(cfg, c, &e);
    }
    ls.push_back(e);
  }
  j["layers"] = ls;
  return j.dump(2) + "\n";
}

std::string Session::LayerTable(const RunStats& s) const {
  const HwConfig& cfg = config();
  const bool timing = has_timing();
  const double peak = impl_->peak();
  std::string t = fmt::format("{:<44} {:<9} {:>11} {:>8} {:>11} {:>11} {:<8} {:>9} {:>11}\n", "layer", "op", "cycles",
                              "GEMM", "DRAM read", "DRAM write", "bound", "roofline", "predicted");
  for (const LayerStats& l : s.layers) {
    const std::string node = l.node.substr(0, 44);
    const int64_t runs = std::max<int64_t>(l.runs, 1);
    if (!l.accel) {
      t += fmt::format("{:<44} {:<9} {:>11} {:>8} {:>11} {:>11} {:<8} {:>9} {:>11}  (cpu, {:.2f} ms)\n", node, l.op,
                       "-", "-", "-", "-", "host", "-", "-", l.host_seconds / runs * 1e3);
      continue;
    }
    const DeviceCounters& c = l.counters;
    const Roofline rl = LayerRoofline(cfg, c);
    // "-": the device does not build the DRAM byte counters (counters.volumes 0).
    const bool bytes = CounterBuilt(cfg, regs::Counter::load_bytes_by_mem);
    t += fmt::format("{:<44} {:<9} {:>11} {:>7.1f}% {:>11} {:>11} {:<8} {:>8.1f}% {:>11}\n", node, l.op,
                     c.cycles / runs, timing && c.cycles ? 100.0 * l.useful_macs / (peak * c.cycles) : 0.0,
                     bytes ? fmt::format("{}", c.dram_read_bytes() / runs) : "-",
                     bytes ? fmt::format("{}", c.dram_write_bytes / runs) : "-", timing ? BoundName(rl.bound) : "-",
                     timing ? 100.0 * rl.attained() : 0.0, l.predicted_cycles / runs);
  }
  return t;
}

std::string Session::Summary(const RunStats& s) const {
  const HwConfig& cfg = config();
  const int64_t runs = std::max<int64_t>(s.batches, 1), cycles = s.device.cycles;
  std::string t;
  if (has_timing())
    t += fmt::format("{} cycles per batch ({:.3f} ms at {:g} MHz), GEMM utilization {:.1f}%; ", cycles / runs,
                     static_cast<double>(cycles) / runs / cfg.clock_mhz / 1000.0, cfg.clock_mhz,
                     cycles ? 100.0 * s.useful_macs / (impl_->peak() * cycles) : 0.0);
  t += fmt::format("host {:.1f} ms per batch (cpu steps {:.1f} ms)", s.host_seconds / runs * 1e3,
                   s.cpu_seconds / runs * 1e3);
  return t;
}

StatusOr<std::string> Session::TraceJson(const RunStats& s) const {
  if (!impl_->trace) return FailedPreconditionError("the session was opened without SessionOptions::trace");
  if (impl_->timeline) return impl_->timeline->ToJson();
  // Without timing: one span per layer at host wall time (cycles of the layer's device time when it has any).
  const HwConfig& cfg = config();
  ChromeTrace trace(cfg.clock_mhz);
  int64_t t = 0;
  for (const LayerStats& l : s.layers) {
    const int64_t runs = std::max<int64_t>(l.runs, 1);
    const int64_t len = l.accel
                            ? std::max<int64_t>(1, l.counters.cycles / runs)
                            : std::max<int64_t>(1, static_cast<int64_t>(l.host_seconds / runs * cfg.clock_mhz * 1e6));
    trace.Span(4, l.node + " (" + l.op + ")", t, t + len, 0);
    t += len;
  }
  return trace.ToJson();
}

const std::string& Session::model_name() const { return impl_->model->name(); }
const std::string& Session::target() const { return impl_->target; }
bool Session::has_timing() const { return impl_->runner->has_timing(); }
const HwConfig& Session::config() const { return impl_->runner->config(); }
const ir::Graph& Session::graph() const { return impl_->runner->graph(); }

}  // namespace tessera::backend
