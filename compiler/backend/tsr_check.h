// A compiled model (.tsr) is untrusted input (docs/reliability.md). Two
// checks stand between a file and the code that uses it:
//  - the seal: SaveModel appends the SHA-256 of everything before it as the
//    last field (Model.content_sha256), and loading refuses a file whose
//    digest is missing or wrong, so damage anywhere (weights, recordings,
//    steps) is refused before anything is parsed;
//  - CheckModel: every field that sizes, indexes or orders something is
//    checked against the config, the graph and the device's DRAM, and the
//    steps are replayed as dataflow over the graph, so a file crafted with a
//    valid digest still cannot overflow a buffer, allocate without bound or
//    compute a value from one that does not exist yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "isa/base/status.h"
#include "isa/config.h"

namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

// Bytes of the seal appended to a serialized model: a one-byte tag, a
// one-byte length and the 32-byte digest.
inline constexpr size_t kTsrSealBytes = 34;

// `serialized` (a Model without content_sha256) with its seal appended.
std::string SealModelBytes(std::string serialized);

// Checks the seal of a whole file; returns the length of the sealed part.
StatusOr<size_t> CheckModelSeal(const uint8_t* file, size_t size, const std::string& path);

// The artifact's fields against `cfg` (the config it runs with) and `graph`
// (its parsed, verified graph). Errors name the step, buffer or value.
Status CheckModel(const tsr::Model& m, const HwConfig& cfg, const ir::Graph& graph);

}  // namespace tessera::backend
