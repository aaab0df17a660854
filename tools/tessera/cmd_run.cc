// `tessera run MODEL.onnx|FILE.tir --target cpu --input X.npy --output Y.npy
//  [--calib C.npy] [--profile]`: compiles (fp32, or int8 with --calib) and runs
// on the CPU reference executor. The input's shape binds the model's input.
// Output 0 goes to Y.npy, output i > 0 to Y.i.npy.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/pipeline/npy_tensor.h"
#include "driver/registry.h"
#include "tools/tessera/backend_flags.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/compile_flags.h"
#include "tools/tessera/run_compiled.h"

namespace tessera::cli {
namespace {

struct RunOpts {
  std::string model, target = "cpu", input, output, stats_json, trace, config;
  bool profile = false;
  int repeat = 1;
  CompileFlags flags;
  BackendOptionValues backend;
};

std::string OutputPath(const std::string& base, size_t i) {
  if (i == 0) return base;
  const size_t dot = base.rfind(".npy");
  return (dot == std::string::npos ? base : base.substr(0, dot)) + "." + std::to_string(i) + ".npy";
}

Status RunModel(const RunOpts& o) {
  if (o.model.size() > 4 && o.model.substr(o.model.size() - 4) == ".tsr") {
    RunCompiledOpts c;
    c.model = o.model, c.target = o.target, c.input = o.input, c.output = o.output;
    c.stats_json = o.stats_json, c.trace = o.trace, c.config = o.config;
    c.backend = o.backend;
    return RunCompiledModel(c);
  }
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(o.target));
  if (backend->is_device())
    return InvalidArgumentError(
        "{}: target '{}' runs compiled models: compile it first (tessera compile ... -o MODEL.tsr); an .onnx or .tir "
        "model runs on cpu",
        o.model, o.target);
  TSR_RETURN_IF_ERROR(CheckBackendOptions(*backend, o.backend));
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(o.input));
  compiler::CompileOptions co;
  std::unique_ptr<ir::Tensor> calib;
  TSR_RETURN_IF_ERROR(ApplyCompileFlags(o.flags, &co, &calib));
  // The input array binds the model's (single) input shape.
  {
    TSR_ASSIGN_OR_RETURN(auto probe, compiler::LoadModel(o.model, [&] {
                           frontend::ImportOptions io = co.import;
                           if (io.symbolic_dim_value <= 0) io.symbolic_dim_value = 1;
                           return io;
                         }()));
    if (probe->inputs().size() != 1)
      return UnimplementedError("{}: run takes models with one input, this one has {}", o.model,
                                probe->inputs().size());
    if (o.model.size() > 5 && o.model.substr(o.model.size() - 5) == ".onnx" &&
        !co.import.input_shapes.count(probe->inputs()[0]->name()))
      co.import.input_shapes[probe->inputs()[0]->name()] = x.shape();
  }
  const auto t0 = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult r, compiler::Compile(o.model, co));
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  TSR_ASSIGN_OR_RETURN(auto ex, exec::Executor::Create(*r.graph));
  ex->set_profile(o.profile);
  std::vector<ir::Tensor> outs;
  double best = 1e30;
  for (int i = 0; i < std::max(1, o.repeat); ++i) {
    const auto t1 = std::chrono::steady_clock::now();
    TSR_ASSIGN_OR_RETURN(outs, ex->Run({x}));
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
  }
  if (o.profile) {
    std::printf("%-40s %-16s %10s\n", "node", "op", "ms");
    for (const auto& t : ex->profile())
      std::printf("%-40s %-16s %10.3f\n", (t.node->name().empty() ? t.node->output()->name() : t.node->name()).c_str(),
                  t.node->op().c_str(), t.seconds * 1e3);
  }
  for (size_t i = 0; i < outs.size(); ++i)
    TSR_RETURN_IF_ERROR(compiler::SaveNpyTensor(OutputPath(o.output, i), outs[i]));
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
      "Run a compiled model (.tsr) on cpu|ref|sim, or compile and run a model on the CPU (fp32, int8 with --calib)");
  cmd->add_option("model", o->model, "Model: .tsr (compiled), .onnx or .tir")->required();
  cmd->add_option("--target", o->target, "Where to run (devices: .tsr only): " + TargetHelp(false))
      ->capture_default_str();
  cmd->add_option("--stats-json", o->stats_json, ".tsr: write cycles, utilization, DRAM traffic and per-layer stats");
  cmd->add_option("--trace", o->trace, ".tsr: write a Chrome Trace Event file of the layers");
  cmd->add_option("-c,--config", o->config, ".tsr: the device's hardware config (default: the model's own)");
  cmd->add_option("--input", o->input, "Input tensor (.npy)")->required();
  cmd->add_option("--output", o->output, "Output tensor (.npy); output i > 0 goes to <name>.i.npy")->required();
  cmd->add_flag("--profile", o->profile, "Print the time of every node");
  cmd->add_option("--repeat", o->repeat, "Run this many times and report the best time");
  AddCompileFlags(cmd, &o->flags, false);
  AddBackendFlags(cmd, &o->backend);
  OnRun(cmd, exit_code, [o] { return RunModel(*o); });
}

}  // namespace tessera::cli
