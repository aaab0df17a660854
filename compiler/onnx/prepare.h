// The ONNX model made self-contained and concrete before conversion:
// external data read into the tensors (inside the model's folder, within the
// size budget), inputs given as constants frozen to initializers, and the
// input shapes bound (overrides, then symbolic dimensions).
#pragma once

#include <cstdint>
#include <string>

#include "compiler/onnx/importer.h"
#include "onnx/onnx_pb.h"

namespace tessera::frontend {

// Prepares model graph `g` of `name`; `budget` is how many bytes of external
// data may still be read. Returns whether input shapes changed (the declared
// output shapes are then stale).
StatusOr<bool> PrepareGraph(onnx::GraphProto* g, const std::string& name, const std::string& base_dir, uint64_t budget,
                            const ImportOptions& options);

}  // namespace tessera::frontend
