// `tessera isa doc|verilog -c CONFIG [-o FILE]`: outputs generated from the ISA table.
#include "hw/verilog_header.h"
#include "isa/config.h"
#include "isa/isa_doc.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"

namespace tessera::cli {

void AddIsaCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("isa", "Generate the ISA document or the Verilog field header from the ISA table");
  cmd->require_subcommand(1);
  struct Opts {
    std::string config, output;
  };
  auto o = std::make_shared<Opts>();
  // check: what the output's consumer needs of a valid config (nullptr: nothing).
  auto add = [&](const char* name, const char* help, std::string (*gen)(const HwConfig&),
                 Status (*check)(const HwConfig&, const std::string&)) {
    CLI::App* sub = cmd->add_subcommand(name, help);
    sub->add_option("-c,--config", o->config, "Hardware config JSON")->required();
    sub->add_option("-o,--output", o->output, "Output file (default: stdout)");
    OnRun(sub, exit_code, [o, gen, check]() -> Status {
      TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(o->config));
      if (check != nullptr) TSR_RETURN_IF_ERROR(check(cfg, o->config));
      return WriteOutput(o->output, gen(cfg));
    });
  };
  add("doc", "Write docs/isa.md (markdown) for a config", &GenerateIsaDoc, nullptr);
  add("regs", "Write docs/registers.md (the register map, error codes and counters) for a config", &GenerateRegsDoc,
      nullptr);
  add("verilog", "Write the Verilog localparam header (ISA, config, registers, counters) for a config",
      &GenerateVerilogHeader, &ValidateForRtl);
}

}  // namespace tessera::cli
