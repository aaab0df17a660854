// `tessera run MODEL.tsr`: runs a compiled model on cpu|ref|sim over an input
// batch (a leading dimension that is a multiple of the model's batch runs as a
// sequence of batches), prints the per-layer table and writes outputs, stats
// and a trace.
#pragma once

#include <string>

#include "driver/backend_options.h"
#include "isa/base/status.h"

namespace tessera::cli {

struct RunCompiledOpts {
  std::string model, target = "sim", input, output, stats_json, trace, config;
  bool quiet = false;
  BackendOptionValues backend;
};

Status RunCompiledModel(const RunCompiledOpts& o);

}  // namespace tessera::cli
