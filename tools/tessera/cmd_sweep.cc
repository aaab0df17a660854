// `tessera sweep SPEC [--scheduler ADDR] [--workers N] [-o DIR] [--plots] ...`:
// architecture sweeps live in the Python package (python/tessera/sweep.py,
// on Dask); this subcommand runs `python3 -m tessera sweep` with the
// arguments unchanged, the build tree's package first on PYTHONPATH.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/tessera/cli.h"

namespace tessera::cli {

void AddSweepCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("sweep", "Run an architecture sweep on Dask (docs/exploration.md)");
  cmd->allow_extras();
  cmd->prefix_command();  // everything after `sweep` goes to the Python tool, --help included
  cmd->set_help_flag();
  cmd->callback([cmd, &exit_code] {
    std::string path = TESSERA_PYTHON_PACKAGE_DIR;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
    setenv("PYTHONPATH", path.c_str(), 1);
    std::vector<std::string> args = {TESSERA_PYTHON, "-m", "tessera", "sweep"};
    for (const std::string& a : cmd->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    exit_code = Fail(InternalError("cannot run {}: {}", TESSERA_PYTHON, std::strerror(errno)));
  });
}

}  // namespace tessera::cli
