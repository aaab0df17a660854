// `tessera inspect MODEL.onnx|FILE.tir [--passes LIST] [--calib X.npy] [--full]`:
// prints the graph IR after import, after the passes and, with --calib, after
// int8 quantization, with the pass statistics as // comments.
#include <cstdio>

#include "compiler/backend/compile.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/printer.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/compile_flags.h"

namespace tessera::cli {
namespace {

struct InspectOpts {
  std::string model, passes = "default";
  bool full = false;
  CompileFlags flags;
};

Status RunInspect(const InspectOpts& o) {
  if (o.model.size() > 4 && o.model.substr(o.model.size() - 4) == ".tsr") {
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> m, backend::LoadModelFile(o.model));
    std::printf("%s", backend::DescribeModel(*m).c_str());
    return OkStatus();
  }
  compiler::CompileOptions co;
  std::unique_ptr<ir::Tensor> calib;
  TSR_RETURN_IF_ERROR(ApplyCompileFlags(o.flags, &co, &calib));
  if (co.import.symbolic_dim_value <= 0) co.import.symbolic_dim_value = 1;
  if (o.passes != "default") {
    TSR_ASSIGN_OR_RETURN(co.passes, passes::ParsePassList(o.passes));
  }
  ir::PrintOptions po;
  po.elide_constants = !o.full;
  TSR_ASSIGN_OR_RETURN(auto imported, compiler::LoadModel(o.model, co.import));
  std::printf("// ---- %s: after import (%d nodes) ----\n%s", o.model.c_str(), imported->num_nodes(),
              ir::PrintGraph(*imported, po).c_str());
  co.quantize = false;
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult fp, compiler::Compile(o.model, co));
  std::printf("// ---- after passes (%d nodes) ----\n", fp.graph->num_nodes());
  for (const auto& r : fp.pass_reports) std::printf("// %s\n", r.ToString().c_str());
  std::printf("%s", ir::PrintGraph(*fp.graph, po).c_str());
  if (!calib) return OkStatus();
  co.quantize = true;
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult q, compiler::Compile(o.model, co));
  std::printf("// ---- after quantization (%d nodes) ----\n// %s\n%s", q.graph->num_nodes(),
              q.quant_report.ToString().c_str(), ir::PrintGraph(*q.graph, po).c_str());
  return OkStatus();
}

}  // namespace

void AddInspectCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<InspectOpts>();
  CLI::App* cmd = app.add_subcommand("inspect", "Print the graph IR after import, after passes and after quantization");
  cmd->add_option("model", o->model, "Model: .onnx, .tir or a compiled .tsr (prints its layer placement)")->required();
  cmd->add_option("--passes", o->passes, "Comma-separated passes to run (default: the float pipeline)");
  cmd->add_flag("--full", o->full, "Print all constant data (output parses back)");
  AddCompileFlags(cmd, &o->flags, true);
  OnRun(cmd, exit_code, [o] { return RunInspect(*o); });
}

}  // namespace tessera::cli
