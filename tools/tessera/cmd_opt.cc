// `tessera opt FILE.tir --passes a,b,c [--calib X.npy] [--stats]`: text IR in,
// passes with the verifier between them, text IR out (all constants, so the
// output parses back). The lit pass tests are built on it.
#include <cstdio>

#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "isa/base/file.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"
#include "tools/tessera/compile_flags.h"

namespace tessera::cli {
namespace {

struct OptOpts {
  std::string file, passes, output;
  bool stats = false, no_verify_input = false, elide = false;
  CompileFlags flags;
};

Status RunOpt(const OptOpts& o) {
  TSR_ASSIGN_OR_RETURN(std::string text, ReadTextFile(o.file));
  TSR_ASSIGN_OR_RETURN(auto g, ir::ParseGraph(text, o.file));
  if (!o.no_verify_input) TSR_RETURN_IF_ERROR(ir::Verify(*g).WithContext(o.file));
  TSR_ASSIGN_OR_RETURN(std::vector<std::string> names, passes::ParsePassList(o.passes));
  TSR_ASSIGN_OR_RETURN(auto reports, passes::RunPasses(*g, names));
  if (o.stats)
    for (const auto& r : reports) std::fprintf(stderr, "%s\n", r.ToString().c_str());
  compiler::CompileOptions co;
  std::unique_ptr<ir::Tensor> calib;
  TSR_RETURN_IF_ERROR(ApplyCompileFlags(o.flags, &co, &calib));
  if (calib) {
    TSR_ASSIGN_OR_RETURN(quant::QuantizeReport qr, quant::QuantizePostTraining(*g, *calib, co.calib));
    if (o.stats) std::fprintf(stderr, "%s\n", qr.ToString().c_str());
  }
  ir::PrintOptions po;
  po.elide_constants = o.elide;
  return WriteOutput(o.output, ir::PrintGraph(*g, po));
}

}  // namespace

void AddOptCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<OptOpts>();
  CLI::App* cmd = app.add_subcommand("opt", "Run passes on a text IR file and print the result");
  cmd->add_option("file", o->file, "Text IR (.tir)")->required();
  cmd->add_option("--passes", o->passes, "Comma-separated passes, in order");
  cmd->add_option("-o,--output", o->output, "Write the IR here instead of stdout");
  cmd->add_flag("--stats", o->stats, "Print what each pass did to stderr");
  cmd->add_flag("--no-verify-input", o->no_verify_input, "Do not verify the input (e.g. to re-infer stale shapes)");
  cmd->add_flag("--elide", o->elide, "Elide large constants in the output");
  AddCompileFlags(cmd, &o->flags, false);
  OnRun(cmd, exit_code, [o] { return RunOpt(*o); });
}

}  // namespace tessera::cli
