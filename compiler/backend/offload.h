// Offload summary of a compiled model: the share of the model's MACs that run
// on the accelerator and the host round trips (device values brought back to
// the host in the middle of the network, and host values sent back). The model
// zoo test asserts these do not regress; docs/model-zoo.md tabulates them.
//
// Round trips *dominate* when the bytes they move are at least half of the
// activation bytes passed between layers (every node result another node
// reads, counted once): then more data crosses the host boundary than stays
// where it was produced. `tessera compile` warns in that case.
#pragma once

#include <cstdint>
#include <map>
#include <string>

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
  int64_t activation_bytes = 0;  // bytes of every node result that another node reads
  std::map<std::string, int64_t> round_trip_ops;  // op of each CPU step reading a downloaded value -> steps
  double mac_share() const { return total_macs ? double(accel_macs) / double(total_macs) : 0.0; }
  double round_trip_share() const {
    return activation_bytes ? double(round_trip_bytes) / double(activation_bytes) : 0.0;
  }
  bool round_trips_dominate() const { return round_trips > 0 && round_trip_share() >= kRoundTripsDominate; }
  static constexpr double kRoundTripsDominate = 0.5;
};

// Multiply-accumulates of one node (convolutions, matrix products, recurrent
// layers, in float or integer form); 0 for other ops.
int64_t NodeMacs(const ir::Node& n);

// `graph` is the model's int8 graph (the CPU steps name its nodes).
OffloadSummary SummarizeOffload(const tsr::Model& m, const ir::Graph& graph);

}  // namespace tessera::backend
