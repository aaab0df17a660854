#include "tools/tessera/run_compiled.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/pipeline/npy_tensor.h"
#include "driver/registry.h"
#include "isa/base/file.h"
#include "sim/trace.h"

namespace tessera::cli {
namespace {

using Json = nlohmann::json;

Json ModuleJson(const DeviceCounters::Module& m) {
  return Json{
      {"busy", m.busy}, {"wait_token", m.wait_token}, {"wait_queue", m.wait_queue}, {"wait_memory", m.wait_memory}};
}

// Accumulated over batches, per step of the profile.
struct LayerTotals {
  backend::LayerProfile p;
  int runs = 0;
};

void Progress(int64_t done, int64_t total) {
  const int width = 40;
  const int filled = static_cast<int>(width * done / std::max<int64_t>(total, 1));
  std::fprintf(stderr, "\r[%.*s%*s] %lld/%lld", filled, "########################################", width - filled, "",
               static_cast<long long>(done), static_cast<long long>(total));
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

}  // namespace

Status RunCompiledModel(const RunCompiledOpts& o) {
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> model, backend::LoadModelFile(o.model));
  backend::RunnerOptions ro;
  ro.target = o.target;
  std::unique_ptr<ChromeTrace> trace;
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(o.target));
  ro.backend = o.backend;
  if (!o.trace.empty() && backend->has_timing) {
    auto cfg0 = ParseHwConfig(model->config_json(), o.model);
    if (!cfg0.ok()) return cfg0.status();
    trace = std::make_unique<ChromeTrace>(cfg0->clock_mhz);
    ro.trace = trace.get();
  }
  std::unique_ptr<HwConfig> device_cfg;
  if (!o.config.empty()) {
    TSR_ASSIGN_OR_RETURN(HwConfig c, LoadHwConfig(o.config));
    device_cfg = std::make_unique<HwConfig>(c);
    ro.device_config = device_cfg.get();
  }
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<backend::ModelRunner> runner, backend::ModelRunner::Create(*model, ro));
  const HwConfig& cfg = runner->config();
  const ir::Graph& g = runner->graph();
  if (g.inputs().size() != 1) return UnimplementedError("{}: run takes models with one input", o.model);
  const ir::TensorType& in_type = g.inputs()[0]->type();
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(o.input));
  const int64_t batch = in_type.shape.empty() ? 1 : in_type.shape[0];
  if (x.dtype() != in_type.dtype || x.rank() != in_type.rank() || x.rank() == 0 || batch <= 0 ||
      x.dim(0) % batch != 0 || !std::equal(x.shape().begin() + 1, x.shape().end(), in_type.shape.begin() + 1))
    return InvalidArgumentError("{}: the input must be {} with a leading dimension that is a multiple of {}, got {}{}",
                                o.input, ir::TypeToString(in_type), batch, std::string(ir::DTypeName(x.dtype())),
                                ir::ShapeToString(x.shape()));
  const int64_t runs = x.dim(0) / batch;
  const size_t in_bytes = x.nbytes() / runs;
  const bool bar = !o.quiet && runs > 1 && isatty(STDERR_FILENO);
  std::vector<std::vector<ir::Tensor>> outs;
  std::vector<LayerTotals> layers;
  backend::RunProfile total;
  for (int64_t r = 0; r < runs; ++r) {
    ir::Tensor piece(in_type.dtype, in_type.shape);
    std::memcpy(piece.raw(), x.raw() + r * in_bytes, in_bytes);
    backend::RunProfile prof;
    TSR_ASSIGN_OR_RETURN(std::vector<ir::Tensor> y, runner->Run({piece}, &prof));
    outs.push_back(std::move(y));
    if (layers.empty()) layers.resize(prof.layers.size());
    for (size_t i = 0; i < prof.layers.size() && i < layers.size(); ++i) {
      if (layers[i].runs == 0)
        layers[i].p = prof.layers[i];
      else {
        layers[i].p.counters.Add(prof.layers[i].counters);
        layers[i].p.host_seconds += prof.layers[i].host_seconds;
      }
      ++layers[i].runs;
    }
    total.device.Add(prof.device);
    total.useful_macs += prof.useful_macs;
    total.host_seconds += prof.host_seconds;
    total.cpu_seconds += prof.cpu_seconds;
    total.transfer_seconds += prof.transfer_seconds;
    if (bar) Progress(r + 1, runs);
  }
  // Concatenate each output along the leading dimension.
  for (size_t k = 0; k < outs[0].size(); ++k) {
    ir::Shape shape = outs[0][k].shape();
    if (shape.empty()) shape = {1};
    shape[0] *= runs;
    ir::Tensor cat(outs[0][k].dtype(), shape);
    const size_t bytes = outs[0][k].nbytes();
    for (int64_t r = 0; r < runs; ++r) std::memcpy(cat.raw() + r * bytes, outs[r][k].raw(), bytes);
    std::string path = o.output;
    if (k > 0) path = path.substr(0, path.rfind(".npy")) + "." + std::to_string(k) + ".npy";
    TSR_RETURN_IF_ERROR(compiler::SaveNpyTensor(path, cat));
  }

  const bool timing = runner->has_timing();
  const double peak = static_cast<double>(cfg.macs_per_cycle);
  if (!o.quiet && backend->is_device()) {
    std::printf("%-44s %-9s %11s %8s %11s %11s %-8s %9s %11s\n", "layer", "op", "cycles", "GEMM", "DRAM read",
                "DRAM write", "bound", "roofline", "predicted");
    for (const LayerTotals& l : layers) {
      const backend::LayerProfile& p = l.p;
      if (!p.accel) {
        std::printf("%-44s %-9s %11s %8s %11s %11s %-8s %9s %11s  (cpu, %.2f ms)\n", p.node.substr(0, 44).c_str(),
                    p.op.c_str(), "-", "-", "-", "-", "host", "-", "-", p.host_seconds / l.runs * 1e3);
        continue;
      }
      const DeviceCounters& c = p.counters;
      const backend::Roofline rl = backend::LayerRoofline(cfg, c);
      const int64_t cyc = c.cycles / l.runs;
      std::printf("%-44s %-9s %11lld %7.1f%% %11lld %11lld %-8s %8.1f%% %11lld\n", p.node.substr(0, 44).c_str(),
                  p.op.c_str(), static_cast<long long>(cyc),
                  timing && c.cycles ? 100.0 * p.useful_macs * l.runs / (peak * c.cycles) : 0.0,
                  static_cast<long long>(c.dram_read_bytes / l.runs),
                  static_cast<long long>(c.dram_write_bytes / l.runs), rl.limiter(),
                  timing && c.cycles ? 100.0 * rl.bound() / c.cycles : 0.0, static_cast<long long>(p.predicted_cycles));
    }
  }
  const int64_t cycles = total.device.cycles;
  std::printf("%s on %s: %lld batch(es) of %lld -> %s; ", o.model.c_str(), o.target.c_str(),
              static_cast<long long>(runs), static_cast<long long>(batch), o.output.c_str());
  if (timing)
    std::printf("%lld cycles per batch (%.3f ms at %g MHz), GEMM utilization %.1f%%; ",
                static_cast<long long>(cycles / runs), cycles / runs / cfg.clock_mhz / 1000.0, cfg.clock_mhz,
                cycles ? 100.0 * total.useful_macs / (peak * cycles) : 0.0);
  std::printf("host %.1f ms per batch (cpu steps %.1f ms)\n", total.host_seconds / runs * 1e3,
              total.cpu_seconds / runs * 1e3);

  if (!o.stats_json.empty()) {
    Json j = Json::object();
    j["model"] = model->name();
    j["target"] = o.target;
    j["config"] = cfg.name;
    j["batches"] = runs;
    j["cycles"] = cycles;
    j["gemm_utilization"] = cycles ? total.useful_macs / (peak * cycles) : 0.0;
    j["useful_macs"] = total.useful_macs;
    j["dram_read_bytes"] = total.device.dram_read_bytes;
    j["dram_write_bytes"] = total.device.dram_write_bytes;
    j["fetch"] = ModuleJson(total.device.fetch);
    j["load"] = ModuleJson(total.device.load);
    j["compute"] = ModuleJson(total.device.compute);
    j["store"] = ModuleJson(total.device.store);
    j["host_seconds"] = total.host_seconds;
    Json ls = Json::array();
    for (const LayerTotals& l : layers) {
      const backend::LayerProfile& p = l.p;
      Json e{
          {"node", p.node}, {"op", p.op}, {"where", p.accel ? "accelerator" : "cpu"}, {"host_seconds", p.host_seconds}};
      if (p.accel) {
        const DeviceCounters& c = p.counters;
        const backend::Roofline rl = backend::LayerRoofline(cfg, c);
        e["cycles"] = c.cycles;
        e["gemm_utilization"] = c.cycles ? p.useful_macs * l.runs / (peak * c.cycles) : 0.0;
        e["useful_macs"] = p.useful_macs * l.runs;
        e["dram_read_bytes"] = c.dram_read_bytes;
        e["dram_write_bytes"] = c.dram_write_bytes;
        e["bound"] = rl.limiter();
        e["roofline_cycles"] = rl.bound();
        e["predicted_cycles"] = p.predicted_cycles * l.runs;
        e["fetch"] = ModuleJson(c.fetch);
        e["load"] = ModuleJson(c.load);
        e["compute"] = ModuleJson(c.compute);
        e["store"] = ModuleJson(c.store);
      }
      ls.push_back(e);
    }
    j["layers"] = ls;
    TSR_RETURN_IF_ERROR(WriteFile(o.stats_json, j.dump(2) + "\n"));
  }
  if (trace) {
    TSR_RETURN_IF_ERROR(trace->Write(o.trace));
  } else if (!o.trace.empty()) {
    // Without timing (cpu, ref): one span per layer at host wall time.
    ChromeTrace trace(cfg.clock_mhz);
    int64_t t = 0;
    for (const LayerTotals& l : layers) {
      const backend::LayerProfile& p = l.p;
      const int64_t len =
          p.accel ? std::max<int64_t>(1, p.counters.cycles / l.runs)
                  : std::max<int64_t>(1, static_cast<int64_t>(p.host_seconds / l.runs * cfg.clock_mhz * 1e6));
      trace.Span(4, p.node + " (" + p.op + ")", t, t + len, 0);
      t += len;
    }
    TSR_RETURN_IF_ERROR(trace.Write(o.trace));
  }
  return OkStatus();
}

}  // namespace tessera::cli
