// `tessera compile MODEL.onnx|FILE.tir -c CONFIG [--calib X.npy] -o MODEL.tsr`:
// the front half (import, passes, int8 quantization), then partitioning,
// tiling and code generation for the config, written as a .tsr artifact; the
// summary gives the accelerator's MAC share and the host round trips.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include "compiler/backend/compile.h"
#include "compiler/backend/offload.h"
#include "compiler/backend/tsr.pb.h"
#include "isa/config.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/compile_flags.h"

namespace tessera::cli {
namespace {

// True when the model arrived quantized (QDQ or QOperator form): some value
// carries quantization parameters before any --calib quantization.
bool AlreadyQuantized(const ir::Graph& g) {
  for (const ir::Node* n : g.nodes()) {
    for (const ir::Value* v : n->inputs())
      if (v->type().quant) return true;
    for (const ir::Value* v : n->outputs())
      if (v->type().quant) return true;
  }
  return false;
}

bool IsMatMulLayer(const std::string& op) {
  for (const char* o : {"conv", "conv_transpose", "gemm", "matmul", "qlinear_conv", "qlinear_matmul"})
    if (op == o) return true;
  return false;
}

struct CompileOpts {
  std::string model, config, output;
  int64_t im2col_channels = 8;
  bool cpu_fallback = false;
  std::string schedule = "cheapest";
  CompileFlags flags;
};

Status RunCompile(const CompileOpts& o) {
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(o.config));
  compiler::CompileOptions co;
  std::unique_ptr<ir::Tensor> calib;
  TSR_RETURN_IF_ERROR(ApplyCompileFlags(o.flags, &co, &calib));
  if (co.import.symbolic_dim_value <= 0) co.import.symbolic_dim_value = 1;
  co.quantize = calib != nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult front, compiler::Compile(o.model, co));
  const auto t1 = std::chrono::steady_clock::now();
  backend::BackendOptions bo;
  bo.partition.im2col_max_channels = o.im2col_channels;
  bo.partition.cpu_fallback = o.cpu_fallback;
  bo.conv_schedule = o.schedule == "overlap" ? backend::ConvSchedule::kOverlap
                     : o.schedule == "plain" ? backend::ConvSchedule::kPlain
                                             : backend::ConvSchedule::kCheapest;
  std::string name = o.model.substr(o.model.find_last_of('/') + 1);
  bo.model_name = name.substr(0, name.find('.'));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> m, backend::CompileGraph(*front.graph, cfg, bo));
  const auto t2 = std::chrono::steady_clock::now();
  TSR_RETURN_IF_ERROR(backend::SaveModel(*m, o.output));
  int accel = 0, cpu = 0, float_layers = 0;
  int64_t predicted = 0, macs = 0;
  for (const tsr::Step& st : m->steps()) {
    if (st.kind() == tsr::Step::ACCEL) ++accel, predicted += st.predicted_cycles(), macs += st.useful_macs();
    if (st.kind() != tsr::Step::CPU) continue;
    ++cpu;
    float_layers += IsMatMulLayer(st.op());
  }
  const double front_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double back_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::printf(
      "%s -> %s for config '%s': %d layers on the accelerator, %d on the CPU; predicted %lld cycles "
      "(%.3f ms at %g MHz), %lld MACs\n",
      o.model.c_str(), o.output.c_str(), cfg.name.c_str(), accel, cpu, static_cast<long long>(predicted),
      predicted / cfg.clock_mhz / 1000.0, cfg.clock_mhz, static_cast<long long>(macs));
  const backend::OffloadSummary off = backend::SummarizeOffload(*m, *front.graph);
  std::printf(
      "offload: %.1f%% of %lld MACs on the accelerator; %lld host round trips (%lld bytes), %.1f%% of the %lld "
      "activation bytes between layers\n",
      100.0 * off.mac_share(), static_cast<long long>(off.total_macs), static_cast<long long>(off.round_trips),
      static_cast<long long>(off.round_trip_bytes), 100.0 * off.round_trip_share(),
      static_cast<long long>(off.activation_bytes));
  if (off.round_trips_dominate()) {
    std::string ops;
    for (const auto& [op, count] : off.round_trip_ops)
      ops += fmt::format("{}{} x{}", ops.empty() ? "" : ", ", op, count);
    std::printf(
        "warning: host round trips dominate: they move %.1f%% of the activation bytes between layers (at least "
        "%.0f%%); host steps that read device results: %s\n",
        100.0 * off.round_trip_share(), 100.0 * backend::OffloadSummary::kRoundTripsDominate, ops.c_str());
  }
  std::printf("compile time: %.1f ms (front half %.1f ms, back half %.1f ms)\n", front_ms + back_ms, front_ms, back_ms);
  // Never blame a missing --calib for a model that is quantized already.
  if (!calib && float_layers > 0 && AlreadyQuantized(*front.graph)) {
    std::printf(
        "note: %d convolution/matmul layers of this quantized model stay on the CPU: their quantization "
        "(element types, zero points, scales) is not one the accelerator runs:\n",
        float_layers);
    for (const tsr::Step& st : m->steps())
      if (st.kind() == tsr::Step::CPU && IsMatMulLayer(st.op()))
        std::printf("  %s (%s): %s\n", st.node().c_str(), st.op().c_str(), st.reason().c_str());
  } else if (!calib && float_layers > 0) {
    std::printf(
        "note: %d float convolution/matmul layers stay on the CPU because no --calib was given; pass "
        "--calib X.npy to quantize them\n",
        float_layers);
  }
  return OkStatus();
}

}  // namespace

void AddCompileCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CompileOpts>();
  CLI::App* cmd = app.add_subcommand("compile", "Compile a model for the accelerator into a .tsr artifact");
  cmd->add_option("model", o->model, "Model: .onnx or .tir")->required();
  cmd->add_option("-c,--config", o->config, "Hardware config JSON")->required();
  cmd->add_option("-o,--output", o->output, "Compiled model to write (.tsr)")->required();
  cmd->add_option("--im2col-channels", o->im2col_channels,
                  "Gather patches on the host for first-layer convolutions with fewer input channels (0: never)")
      ->capture_default_str()
      ->check(AtLeast(0));
  cmd->add_flag("--cpu-fallback", o->cpu_fallback,
                "Run layers whose tiles do not fit the config on the CPU instead of failing");
  cmd->add_option("--conv-schedule", o->schedule,
                  "GEMM layers on a config with timing.compute_overlap: the faster of the overlap and plain schedules "
                  "by the cost model (cheapest), or always one of them")
      ->capture_default_str()
      ->check(CLI::IsMember({"cheapest", "overlap", "plain"}));
  AddCompileFlags(cmd, &o->flags, true);
  OnRun(cmd, exit_code, [o] { return RunCompile(*o); });
}

}  // namespace tessera::cli
