// `tessera isa doc|verilog -c CONFIG [-o FILE]`: outputs generated from the ISA table.
#include <cstdio>

#include "isa/base/file.h"
#include "isa/config.h"
#include "isa/isa_doc.h"
#include "tools/tessera/cli.h"

namespace tessera::cli {

void AddIsaCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("isa", "Generate the ISA document or the Verilog field header from the ISA table");
  cmd->require_subcommand(1);
  struct Opts {
    std::string config, output;
  };
  auto o = std::make_shared<Opts>();
  auto add = [&](const char* name, const char* help, std::string (*gen)(const HwConfig&)) {
    CLI::App* sub = cmd->add_subcommand(name, help);
    sub->add_option("-c,--config", o->config, "Hardware config JSON")->required();
    sub->add_option("-o,--output", o->output, "Output file (default: stdout)");
    sub->callback([o, gen, &exit_code] {
      auto cfg = LoadHwConfig(o->config);
      if (!cfg.ok()) {
        exit_code = Fail(cfg.status());
        return;
      }
      std::string text = gen(*cfg);
      if (o->output.empty()) {
        std::fputs(text.c_str(), stdout);
      } else if (Status s = WriteFile(o->output, text); !s.ok()) {
        exit_code = Fail(s);
      }
    });
  };
  add("doc", "Write docs/isa.md (markdown) for a config", &GenerateIsaDoc);
  add("verilog", "Write the Verilog localparam header for a config", &GenerateVerilogHeader);
}

}  // namespace tessera::cli
