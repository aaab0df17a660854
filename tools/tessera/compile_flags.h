// Flags shared by the compiler subcommands (inspect, run, opt): calibration
// data and observer, input shapes.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "compiler/pipeline/pipeline.h"

namespace tessera::cli {

struct CompileFlags {
  std::string calib;  // calibration .npy (enables int8)
  std::string observer = "minmax";
  double percentile = 99.99;
  int64_t batch = 0;                      // value for symbolic dimensions
  std::vector<std::string> input_shapes;  // NAME=1x3x224x224
};

void AddCompileFlags(CLI::App* cmd, CompileFlags* f, bool with_batch);
// Fills import and calibration options; loads the calibration tensor into *calib.
Status ApplyCompileFlags(const CompileFlags& f, compiler::CompileOptions* o, std::unique_ptr<ir::Tensor>* calib);

}  // namespace tessera::cli
