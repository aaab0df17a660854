// The IR verifier: structure (every operand defined before use, outputs
// defined, constants consistent with their types), per-op operand counts and
// attribute kinds, and that every recorded result type equals what type
// inference derives. Passes must leave a graph that verifies.
#pragma once

#include "isa/base/status.h"

namespace tessera::ir {

class Graph;

Status Verify(const Graph& graph);

}  // namespace tessera::ir
