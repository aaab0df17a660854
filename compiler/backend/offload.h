// Offload summary of a compiled model: the share of the model's MACs that run
// on the accelerator and the host round trips (device values brought back to
// the host in the middle of the network, and host values sent back). The model
// zoo test asserts these do not regress; docs/model-zoo.md tabulates them.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

struct OffloadSummary {
  int64_t accel_macs = 0;        // useful MACs of the accelerator layers
  int64_t total_macs = 0;        // accelerator MACs plus those of the CPU steps
  int64_t round_trips = 0;       // DOWNLOAD steps of values that are not graph outputs
  int64_t round_trip_bytes = 0;  // bytes of those downloads and of uploads of values that are not graph inputs
  double mac_share() const { return total_macs ? double(accel_macs) / double(total_macs) : 0.0; }
};

// Multiply-accumulates of one node (convolutions, matrix products, recurrent
// layers, in float or integer form); 0 for other ops.
int64_t NodeMacs(const ir::Node& n);

// `graph` is the model's int8 graph (the CPU steps name its nodes).
OffloadSummary SummarizeOffload(const tsr::Model& m, const ir::Graph& graph);

}  // namespace tessera::backend
