// The tiler's fast estimate of a tiling's cycles, used only to rank
// candidates (the prediction a compiled layer reports is its recorded stream
// on the timing engine, cost_model.h). Every instruction is priced with the
// closed forms of sim/timing.h — DMAs with their bursts and the
// outstanding-burst limit (timing::DmaAlone), GEMM/ALU iterations plus
// pipeline, uop-kernel loads on first use, the first fetch — and the tiles
// go through the load/compute/store recurrence of the emitted pipeline:
//
//   load_end[t]    = max(load_end[t-1], gemm_end[t-2]) + load(t)
//   compute_end[t] = max(compute_end[t-1], load_end[t], store_end[o-2] if t opens tile o) + compute(t)
//   store_end[o]   = max(store_end[o-1], compute_end[last tile of o]) + store(o)
//
// It leaves out port contention between modules. On a serial core
// (queues.serial) the estimate is instead the sum of every instruction's
// cycles: one runs at a time, in stream order.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {
struct HwConfig;
}

namespace tessera::backend {

struct ConvGeometry;
struct ConvBlocking;
struct ConvTiling;
struct ConvEpilogue;

// Estimated cycles of the layer and its GEMM iterations (the ideal), the
// weight tiles `nonzero` marks zero skipped (weight_tiles.h; empty: none).
struct ConvEstimate {
  int64_t cycles = 0, gemm_cycles = 0;
};
ConvEstimate EstimateConv(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b, const ConvTiling& t,
                          const ConvEpilogue& e, const std::vector<uint8_t>& nonzero = {});

}  // namespace tessera::backend
