// Entry point of the `tessera` command line tool.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tools/tessera/cli.h"

namespace tessera::cli {

int Fail(const Status& status) {
  std::fprintf(stderr, "tessera: error: %s\n", status.message().c_str());
  return 1;
}

CLI::Validator AtLeast(int64_t lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        int64_t v = 0;
        if (CLI::detail::lexical_cast(text, v) && v >= lo) return {};
        return "must be an integer >= " + std::to_string(lo) + ", got " + text;
      },
      "INT>=" + std::to_string(lo));
}

}  // namespace tessera::cli

int main(int argc, char** argv) {
  CLI::App app{"tessera: hardware/software co-design stack for a VTA-like tensor accelerator"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every subcommand");
  int exit_code = 0;
  tessera::cli::AddConfigCommand(app, exit_code);
  tessera::cli::AddIsaCommand(app, exit_code);
  tessera::cli::AddAsmCommands(app, exit_code);
  tessera::cli::AddExecCommand(app, exit_code);
  tessera::cli::AddCompileCommand(app, exit_code);
  tessera::cli::AddInspectCommand(app, exit_code);
  tessera::cli::AddRunCommand(app, exit_code);
  tessera::cli::AddOptCommand(app, exit_code);
  tessera::cli::AddSweepCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
    // A usage error: the same prefix and exit code as every other error.
    std::fprintf(stderr, "tessera: error: %s\nRun with --help for more information.\n", e.what());
    return 1;
  }
  // Output that never reached stdout (a full disk, a closed pipe) is an error, never exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "tessera: error: writing to standard output failed: %s\n", std::strerror(errno));
    return exit_code != 0 ? exit_code : 1;
  }
  return exit_code;
}
