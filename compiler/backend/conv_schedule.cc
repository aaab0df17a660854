#include "compiler/backend/conv_schedule.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/cost_model.h"
#include "isa/base/check.h"
#include "isa/config.h"

namespace tessera::backend {
namespace {

// One schedule's stream (the caller's stream with the layer appended).
struct Candidate {
  Stream stream;
  bool overlap = false;
  ConvTiling tiling;
  int64_t cycles = 0;
};

// Appends the layer to a copy of `s`; with `time`, predicts the copy's cycles.
StatusOr<Candidate> Build(const Stream& s, const HwConfig& ecfg, const ConvTiling& tiling, const EmitLayerFn& emit,
                          bool time) {
  Candidate c{s, ConvOverlaps(ecfg, tiling), tiling};
  TSR_RETURN_IF_ERROR(emit(c.stream, ecfg, tiling));
  if (time) {
    Stream finished = c.stream;  // Finish empties it; the kept copy is finished by the caller
    TSR_ASSIGN_OR_RETURN(Recording rec, finished.Finish());
    TSR_ASSIGN_OR_RETURN(DeviceCounters p, PredictRecording(s.config(), rec));
    c.cycles = p.cycles;
  }
  return c;
}

}  // namespace

std::string ScheduleChoice::Describe(const HwConfig& cfg) const {
  if (cfg.compute_overlap == 0) return "";
  std::string s = overlap ? "overlap schedule" : "plain schedule";
  if (other_cycles >= 0) s += fmt::format(" ({} {} cycles)", overlap ? "plain" : "overlap", other_cycles);
  return s;
}

StatusOr<ScheduleChoice> EmitScheduled(Stream& s, const HwConfig& cfg, ConvSchedule want, const ConvGeometry& g,
                                       const ConvEpilogue& e, const WeightTileMask& nonzero, const ConvTiling& tiling,
                                       const EmitLayerFn& emit) {
  ScheduleChoice choice;
  choice.tiling = tiling;
  if (cfg.compute_overlap == 0 || want == ConvSchedule::kOverlap) {
    choice.overlap = ConvOverlaps(cfg, tiling);
    TSR_RETURN_IF_ERROR(emit(s, cfg, tiling));
    return choice;
  }
  HwConfig plain = cfg;
  plain.compute_overlap = 0;
  // An invariant, not an input error: the plain split has every scratchpad
  // of the banked one and larger accumulator halves, so the tile extents
  // that fit on `cfg` (PlanConv's `tiling`) give a plain tiling too.
  StatusOr<ConvTiling> plain_tiling = PlanConv(plain, g, e, nonzero);
  TSR_CHECK(plain_tiling.ok(), "{}: no plain tiling where {} fits: {}", g.ToString(), tiling.ToString(),
            plain_tiling.status().ToString());
  const bool time = want == ConvSchedule::kCheapest;
  std::vector<Candidate> c;
  TSR_ASSIGN_OR_RETURN(Candidate p, Build(s, plain, *plain_tiling, emit, time));
  c.push_back(std::move(p));
  if (time) {
    TSR_ASSIGN_OR_RETURN(Candidate o, Build(s, cfg, tiling, emit, true));
    c.push_back(std::move(o));
  }
  // The plain one unless another is strictly faster.
  size_t best = 0;
  for (size_t i = 1; i < c.size(); ++i)
    if (c[i].cycles < c[best].cycles) best = i;
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i].overlap != c[best].overlap) choice.other_cycles = c[i].cycles;
  choice.overlap = c[best].overlap;
  choice.tiling = c[best].tiling;
  if (time) choice.cycles = c[best].cycles;
  s = std::move(c[best].stream);
  return choice;
}

}  // namespace tessera::backend
