// Text form of the IR (grammar in docs/compiler.md). Printing is canonical:
// parse(print(g)) prints identically, which every pass test relies on.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::ir {

class Graph;

struct PrintOptions {
  // Constants with at most this many elements print as a list, larger ones
  // as little-endian hex bytes.
  int64_t list_limit = 16;
  // Replace the data of constants above list_limit by "<elided>" (for
  // reading; the parser rejects it).
  bool elide_constants = false;
};

std::string PrintGraph(const Graph& graph, const PrintOptions& options = {});
// "%name" or "%\"odd name\"".
std::string ValueRef(const std::string& name);

}  // namespace tessera::ir
