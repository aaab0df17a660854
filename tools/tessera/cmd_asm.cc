// `tessera asm PROG.s -c CONFIG -o PROG.bin` and `tessera disasm PROG.bin -c CONFIG`.
#include "isa/asm.h"
#include "isa/base/file.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"

namespace tessera::cli {

void AddAsmCommands(CLI::App& app, int& exit_code) {
  struct Opts {
    std::string input, config, output;
  };
  auto a = std::make_shared<Opts>();
  CLI::App* as = app.add_subcommand("asm", "Assemble a text program into a program object (.bin)");
  as->add_option("program", a->input, "Assembly source (.s)")->required();
  as->add_option("-c,--config", a->config, "Hardware config JSON")->required();
  as->add_option("-o,--output", a->output, "Program object to write")->required();
  OnRun(as, exit_code, [a]() -> Status {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(a->config));
    TSR_ASSIGN_OR_RETURN(Program prog, AssembleFile(cfg, a->input));
    TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, SerializeProgram(cfg, prog));
    return WriteFile(a->output, bytes);
  });

  auto d = std::make_shared<Opts>();
  CLI::App* ds = app.add_subcommand("disasm", "Print a program object (or source) as assembly text");
  ds->add_option("program", d->input, "Program object (.bin) or source (.s)")->required();
  ds->add_option("-c,--config", d->config, "Hardware config JSON")->required();
  ds->add_option("-o,--output", d->output, "Write to this file instead of stdout");
  OnRun(ds, exit_code, [d]() -> Status {
    TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(d->config));
    TSR_ASSIGN_OR_RETURN(Program prog, LoadProgramFile(cfg, d->input));
    return WriteOutput(d->output, Disassemble(cfg, prog));
  });
}

}  // namespace tessera::cli
