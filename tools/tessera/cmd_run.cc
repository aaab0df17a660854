// `tessera run MODEL.tsr --target T --input X.npy --output Y.npy [--stats-json F]
//  [--trace F] [--repeat N]`: runs a compiled model through the model session
// (compiler/backend/session.h) on any target of the registry, batching over
// the input's leading dimension. `tessera run MODEL.onnx|FILE.tir --target cpu
// [--calib C.npy]` compiles (fp32, or int8 with --calib) and runs on the CPU
// executor; the input's shape binds the model's input. Output 0 goes to
// Y.npy, output i > 0 to Y.i.npy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "compiler/backend/session.h"
#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/pipeline/npy_tensor.h"
#include "driver/registry.h"
#include "isa/base/file.h"
#include "tools/tessera/backend_flags.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/compile_flags.h"

namespace tessera::cli {
namespace {

struct RunOpts {
  std::string model, target = "cpu", input, output, stats_json, trace, config;
  bool profile = false;
  int repeat = 1;
  CompileFlags flags;
  BackendOptionValues backend;
};

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string OutputPath(const std::string& base, size_t i) {
  if (i == 0) return base;
  const size_t dot = base.rfind(".npy");
  return (dot == std::string::npos ? base : base.substr(0, dot)) + "." + std::to_string(i) + ".npy";
}

Status SaveOutputs(const std::string& base, const std::vector<ir::Tensor>& outs) {
  for (size_t i = 0; i < outs.size(); ++i) TSR_RETURN_IF_ERROR(compiler::SaveNpyTensor(OutputPath(base, i), outs[i]));
  return OkStatus();
}

void Progress(int64_t done, int64_t total) {
  const int width = 40;
  const int filled = static_cast<int>(width * done / std::max<int64_t>(total, 1));
  std::fprintf(stderr, "\r[%.*s%*s] %lld/%lld", filled, "########################################", width - filled, "",
               static_cast<long long>(done), static_cast<long long>(total));
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A compiled model on any target, through the session.
Status RunCompiled(const RunOpts& o) {
  if (o.profile || !o.flags.calib.empty() || !o.flags.input_shapes.empty())
    return InvalidArgumentError(
        "{}: --profile, --calib and --input-shape apply to .onnx/.tir models, not to a compiled one", o.model);
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(o.target));
  backend::SessionOptions so;
  so.target = o.target;
  so.trace = !o.trace.empty();
  so.backend = o.backend;
  if (!o.config.empty()) {
    TSR_ASSIGN_OR_RETURN(HwConfig c, LoadHwConfig(o.config));
    so.device_config = c;
  }
  const auto t_open = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<backend::Session> session, backend::Session::Open(o.model, so));
  const double open_s = Seconds(t_open);
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(o.input));
  const bool bar = isatty(STDERR_FILENO);
  backend::RunResult result;
  std::vector<double> host;
  for (int i = 0; i < o.repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = session->Run({x}, [bar](int64_t done, int64_t total) {
      if (bar && total > 1) Progress(done, total);
    });
    if (!r.ok()) return r.status().WithContext(o.input);
    host.push_back(Seconds(t0));
    result = std::move(r).value();
  }
  TSR_RETURN_IF_ERROR(SaveOutputs(o.output, result.outputs));
  const backend::RunStats& s = result.stats;
  if (backend->is_device()) std::fputs(session->LayerTable(s).c_str(), stdout);
  std::printf("%s on %s: %lld batch(es) of %lld -> %s; %s; model opened in %.1f ms\n", o.model.c_str(),
              o.target.c_str(), static_cast<long long>(s.batches),
              static_cast<long long>(x.dim(0) / std::max<int64_t>(s.batches, 1)), o.output.c_str(),
              session->Summary(s).c_str(), open_s * 1e3);
  if (o.repeat > 1) {
    double sum = 0;
    std::string runs;
    for (double h : host) sum += h, runs += fmt::format("{}{:.1f}", runs.empty() ? "" : ", ", h * 1e3);
    std::printf("host time of %d runs: %s ms; mean %.1f ms\n", o.repeat, runs.c_str(), sum / o.repeat * 1e3);
  }
  if (!o.stats_json.empty()) TSR_RETURN_IF_ERROR(WriteFile(o.stats_json, session->StatsJson(s)));
  if (!o.trace.empty()) {
    TSR_ASSIGN_OR_RETURN(std::string json, session->TraceJson(s));
    TSR_RETURN_IF_ERROR(WriteFile(o.trace, json));
  }
  return OkStatus();
}

Status RunModel(const RunOpts& o) {
  if (EndsWith(o.model, ".tsr")) return RunCompiled(o);
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(o.target));
  if (backend->is_device())
    return InvalidArgumentError(
        "{}: target '{}' runs compiled models: compile it first (tessera compile ... -o MODEL.tsr); an .onnx or .tir "
        "model runs on cpu",
        o.model, o.target);
  TSR_RETURN_IF_ERROR(CheckBackendOptions(*backend, o.backend));
  if (!o.stats_json.empty() || !o.trace.empty() || !o.config.empty())
    return InvalidArgumentError("--stats-json, --trace and -c apply to compiled models (.tsr)");
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(o.input));
  compiler::CompileOptions co;
  std::unique_ptr<ir::Tensor> calib;
  TSR_RETURN_IF_ERROR(ApplyCompileFlags(o.flags, &co, &calib));
  // The input array binds the model's (single) input shape, in the one import.
  if (EndsWith(o.model, ".onnx") && co.import.input_shapes.empty()) co.import.sole_input_shape = x.shape();
  const auto t0 = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult r, compiler::Compile(o.model, co));
  const double compile_s = Seconds(t0);
  if (r.graph->inputs().size() != 1)
    return UnimplementedError("{}: run takes models with one input, this one has {}", o.model,
                              r.graph->inputs().size());
  TSR_ASSIGN_OR_RETURN(auto ex, exec::Executor::Create(*r.graph));
  ex->set_profile(o.profile);
  std::vector<ir::Tensor> outs;
  double best = 1e30;
  for (int i = 0; i < o.repeat; ++i) {
    const auto t1 = std::chrono::steady_clock::now();
    TSR_ASSIGN_OR_RETURN(outs, ex->Run({x}));
    best = std::min(best, Seconds(t1));
  }
  if (o.profile) {
    std::printf("%-40s %-16s %10s\n", "node", "op", "ms");
    for (const auto& t : ex->profile())
      std::printf("%-40s %-16s %10.3f\n", (t.node->name().empty() ? t.node->output()->name() : t.node->name()).c_str(),
                  t.node->op().c_str(), t.seconds * 1e3);
  }
  TSR_RETURN_IF_ERROR(SaveOutputs(o.output, outs));
  std::printf("%s: %s on cpu: %zu output(s) -> %s; compile %.1f ms, run %.2f ms%s\n", o.model.c_str(),
              calib ? "int8" : "fp32", outs.size(), o.output.c_str(), compile_s * 1e3, best * 1e3,
              o.repeat > 1 ? " (best of repeats)" : "");
  if (calib) std::printf("%s\n", r.quant_report.ToString().c_str());
  return OkStatus();
}

}  // namespace

void AddRunCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOpts>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Run a compiled model (.tsr) on any target, or compile and run a model on the CPU (fp32, int8 with --calib)");
  cmd->add_option("model", o->model, "Model: .tsr (compiled), .onnx or .tir")->required();
  cmd->add_option("--target", o->target, "Where to run (devices: .tsr only): " + TargetHelp(false))
      ->capture_default_str();
  cmd->add_option("--stats-json", o->stats_json, ".tsr: write cycles, utilization, DRAM traffic and per-layer stats");
  cmd->add_option("--trace", o->trace, ".tsr: write a Chrome Trace Event file of the layers");
  cmd->add_option("-c,--config", o->config, ".tsr: the device's hardware config (default: the model's own)");
  cmd->add_option("--input", o->input, "Input tensor (.npy)")->required();
  cmd->add_option("--output", o->output, "Output tensor (.npy); output i > 0 goes to <name>.i.npy")->required();
  cmd->add_flag("--profile", o->profile, ".onnx/.tir: print the time of every node");
  cmd->add_option("--repeat", o->repeat,
                  "Run this many times: .tsr reports each run's and the mean host time, .onnx/.tir the best")
      ->check(AtLeast(1));
  AddCompileFlags(cmd, &o->flags, false);
  AddBackendFlags(cmd, &o->backend);
  OnRun(cmd, exit_code, [o] { return RunModel(*o); });
}

}  // namespace tessera::cli
