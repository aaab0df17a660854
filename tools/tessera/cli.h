// The `tessera` command line: one binary, one file per subcommand. Each
// Add*Command registers a CLI11 subcommand whose callback stores its exit code
// in `exit_code`. Errors print "tessera: error: <message>" and exit 1.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "isa/base/status.h"

namespace tessera::cli {

// Prints the error to stderr and returns the exit code to use (1).
int Fail(const Status& status);

// Accepts an integer >= lo; otherwise CLI11 reports
// "--NAME: must be an integer >= LO, got VALUE".
CLI::Validator AtLeast(int64_t lo);

// Makes `run` (returning Status) the callback of `cmd`; a failure is printed
// and sets exit_code.
template <typename F>
void OnRun(CLI::App* cmd, int& exit_code, F run) {
  cmd->callback([run, &exit_code] {
    if (Status s = run(); !s.ok()) exit_code = Fail(s);
  });
}

void AddConfigCommand(CLI::App& app, int& exit_code);
void AddIsaCommand(CLI::App& app, int& exit_code);
void AddAsmCommands(CLI::App& app, int& exit_code);
void AddExecCommand(CLI::App& app, int& exit_code);
void AddCompileCommand(CLI::App& app, int& exit_code);
void AddInspectCommand(CLI::App& app, int& exit_code);
void AddRunCommand(CLI::App& app, int& exit_code);
void AddOptCommand(CLI::App& app, int& exit_code);
void AddSweepCommand(CLI::App& app, int& exit_code);

}  // namespace tessera::cli
