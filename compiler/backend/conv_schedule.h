// The schedule of a GEMM layer on a config with timing.compute_overlap: the
// overlap schedule (conv_codegen.h ConvOverlaps: accumulator banks with a
// parameter copy each, epilogues beside the next tile's GEMM) or the plain one
// (the layer tiled and emitted as on the config without compute_overlap),
// whichever the cost model (cost_model.h, exact) times faster. Layers of few or
// short tiles lose with overlap: the parameter copy and the smaller
// accumulator halves cost more than the hidden epilogues save.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compiler/backend/conv_plan.h"
#include "runtime/stream.h"

namespace tessera::backend {

enum class ConvSchedule {
  kCheapest,  // both, keep the faster (a tie keeps the plain one)
  kOverlap,   // the config's own: overlap wherever ConvOverlaps allows
  kPlain,     // as on the config with compute_overlap 0
};

struct ScheduleChoice {
  bool overlap = false;  // the emitted stream has the overlap schedule
  ConvTiling tiling;     // the tiling it was emitted with
  // With kCheapest: the predicted cycles of the kept stream and of the best
  // one of the other kind (-1: none, e.g. neither overlaps).
  int64_t cycles = -1, other_cycles = -1;
  // For the layer's summary line: "overlap schedule (plain 123 cycles)";
  // empty on a config without compute_overlap.
  std::string Describe(const HwConfig& cfg) const;
};

// Appends the layer with `tiling` on `cfg` (codegen for that config).
using EmitLayerFn = std::function<Status(Stream& s, const HwConfig& cfg, const ConvTiling& tiling)>;

// Appends the layer to `s` with the schedule `want` names. `tiling` is its
// plan on `cfg`; the plain schedule's is planned again on the plain config
// from the geometry `g`, epilogue `e` and mask `nonzero` (its accumulator
// halves are larger; that it fits is asserted). Without compute_overlap:
// `emit` once, as it was.
StatusOr<ScheduleChoice> EmitScheduled(Stream& s, const HwConfig& cfg, ConvSchedule want, const ConvGeometry& g,
                                       const ConvEpilogue& e, const WeightTileMask& nonzero, const ConvTiling& tiling,
                                       const EmitLayerFn& emit);

}  // namespace tessera::backend
