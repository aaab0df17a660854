// Binary serialization of the graph IR into the artifact's Graph message, with
// constant data stored as raw bytes (the IR's text form is for people and
// tests; ResNet-18's weights as text would be tens of megabytes).
#pragma once

#include <memory>

#include "compiler/ir/graph.h"
#include "isa/base/status.h"

namespace tessera::tsr {
class Graph;
}

namespace tessera::backend {

void GraphToProto(const ir::Graph& g, tsr::Graph* out);
// Rebuilds and verifies the graph; errors name the artifact's bad entry.
StatusOr<std::unique_ptr<ir::Graph>> GraphFromProto(const tsr::Graph& p);

}  // namespace tessera::backend
