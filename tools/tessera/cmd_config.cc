// `tessera config validate|show CONFIG.json`, `tessera config doc -c CONFIG [-o FILE]`
#include <cstdio>

#include "isa/config.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"

namespace tessera::cli {

void AddConfigCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("config", "Check a hardware config or print its derived sizes");
  cmd->require_subcommand(1);
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);

  CLI::App* validate = cmd->add_subcommand("validate", "Validate CONFIG.json; exit 1 with the culprit key if invalid");
  validate->add_option("config", *path, "Hardware config JSON")->required();
  OnRun(validate, exit_code, [path]() -> Status {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(*path));
    std::printf("%s: valid (config '%s', isa fingerprint 0x%016llx)\n", path->c_str(), cfg.name.c_str(),
                static_cast<unsigned long long>(cfg.isa_fingerprint));
    return OkStatus();
  });

  CLI::App* show = cmd->add_subcommand("show", "Print parameters, derived sizes and ISA field layout");
  show->add_option("config", *path, "Hardware config JSON")->required();
  show->add_flag("--json", *json, "Print the canonical JSON instead");
  OnRun(show, exit_code, [path, json]() -> Status {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(*path));
    std::fputs((*json ? HwConfigToJson(cfg) : DescribeHwConfig(cfg)).c_str(), stdout);
    return OkStatus();
  });

  auto output = std::make_shared<std::string>();
  CLI::App* doc = cmd->add_subcommand("doc", "Write docs/config.md (the parameter table) with a config's values");
  doc->add_option("-c,--config", *path, "Hardware config JSON")->required();
  doc->add_option("-o,--output", *output, "Output file (default: stdout)");
  OnRun(doc, exit_code, [path, output]() -> Status {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(*path));
    return WriteOutput(*output, GenerateConfigDoc(cfg));
  });
}

}  // namespace tessera::cli
