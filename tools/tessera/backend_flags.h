// Target selection for subcommands that run on a backend (exec, run): the
// --target help lists the registry's targets, and every option a registered
// backend declares becomes a flag whose value is passed through to it
// (OpenDevice checks that it belongs to the chosen target).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "driver/backend_options.h"

namespace tessera::cli {

// "ref (functional reference ...), sim (...)"; only devices when `devices_only`.
std::string TargetHelp(bool devices_only);

// Adds one flag per backend option of the built targets (an option declared by
// several targets is added once); the values given land in `values`.
void AddBackendFlags(CLI::App* cmd, BackendOptionValues* values);

}  // namespace tessera::cli
