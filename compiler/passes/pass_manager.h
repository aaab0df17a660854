// Runs passes by name, verifying the graph after each one (so a broken pass
// is caught at the pass that broke it), and reports per-pass statistics.
#pragma once

#include <string>
#include <vector>

#include "compiler/passes/pass.h"

namespace tessera::passes {

struct PassReport {
  std::string pass;
  PassStats stats;
  double seconds = 0;
  std::string ToString() const;  // "fold-batchnorm: 20 folded"
};

// The float pipeline run after import.
std::vector<std::string> DefaultPipeline();

// Splits "a,b,c"; unknown names are an error listing the known passes.
StatusOr<std::vector<std::string>> ParsePassList(const std::string& list);

// Runs `names` in order. With verify_each, ir::Verify runs after every pass
// and its failure is reported as "after pass 'x': ...".
StatusOr<std::vector<PassReport>> RunPasses(ir::Graph& graph, const std::vector<std::string>& names,
                                            bool verify_each = true);

}  // namespace tessera::passes
