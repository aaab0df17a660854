// Constant device buffers of a compiled model. Weights are stored once, in
// the artifact's graph: compile records how a layer's weights and channel
// parameters are packed (tsr.Packing) and the loader packs them with the same
// functions (layout.h) straight into a reused buffer. Small parameter rows of
// pools and adds are stored as bytes.
//
//   compile:  graph constant w ──(record WeightPacking)──> DeviceBuffer{bytes, packing}
//   load:     graph constant w ──PackConvWeightsInto──> scratch ──CopyIn──> device DRAM
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/backend/layout.h"
#include "compiler/ir/graph.h"
#include "isa/base/status.h"

namespace tessera::tsr {
class DeviceBuffer;
}

namespace tessera::backend {

// Whether the buffer holds a constant (stored bytes or a packing), not an activation arena.
bool IsConstantBuffer(const tsr::DeviceBuffer& b);

// Records that `b` holds node `n`'s weights packed as `p`, or its channel parameters (bias, multiplier).
void SetWeightPacking(const HwConfig& cfg, const ir::Node& n, const WeightPacking& p, tsr::DeviceBuffer* b);
void SetChannelParamPacking(const HwConfig& cfg, const ir::Node& n, int64_t oc, tsr::DeviceBuffer* b);

// The contents of constant buffer `b` of a model whose graph is `g`: its
// stored bytes, or the packing applied to the graph's constants, written to
// `scratch` (resized; reuse it across buffers). Errors (DataLoss) name the
// buffer and what in the artifact is inconsistent.
StatusOr<const uint8_t*> ConstantContents(const HwConfig& cfg, const ir::Graph& g, const tsr::DeviceBuffer& b,
                                          std::vector<uint8_t>* scratch);

}  // namespace tessera::backend
