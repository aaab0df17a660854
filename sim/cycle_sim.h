// `sim`: the cycle-accurate simulator. The timing contract of
// docs/microarch.md is run by the timing engine (sim/timing_engine.h): each
// visited cycle runs the contract's five phases, and the engine then jumps to
// the next cycle in which anything can change (a burst or instruction
// completion, a DMA burst becoming ready), so idle and long-running cycles
// cost nothing. Data is computed by the same instruction semantics as `ref`
// (sim/core.h) at each instruction's start, so for race-free programs DRAM
// ends bit-identical.
#pragma once

#include <cstdint>
#include <memory>

#include "isa/base/status.h"
#include "sim/core.h"
#include "sim/cycle_stats.h"

namespace tessera {

struct HwConfig;
class Dram;
class TraceSink;

struct CycleOptions {
  bool compute_data = true;          // false: timing only (skips data, keeps uop loads for ALU timing)
  bool record_instructions = false;  // fill CycleStats::instructions
  int64_t max_cycles = 0;            // watchdog; 0 = 10^12 cycles
  TraceSink* trace = nullptr;
  // Visit every cycle instead of jumping between events. A slow oracle used
  // by tests to check that event skipping never misses a state change.
  bool visit_every_cycle = false;
};

// Instruction `index` of a `count`-instruction stream decoded from its
// 16-byte word (read from DRAM address `addr`) with the stream rules every
// engine applies at dispatch: an illegal word or a misplaced FINISH faults.
StatusOr<Instruction> DecodeStreamWord(const HwConfig& cfg, const uint8_t* word, int64_t index, uint64_t addr,
                                       int64_t count);
// The iteration cycles of an ALU instruction: the operand rule of
// sim/timing.h over its loop nest, which reads the uops in the scratchpad.
StatusOr<int64_t> AluIterationCyclesOf(const Core& core, const Instruction& in, int64_t index);

class CycleSim {
 public:
  CycleSim(const HwConfig& cfg, Dram* dram);
  ~CycleSim();

  // Runs `count` instructions at DRAM byte address `insn_addr` from cycle 0.
  // Scratchpads persist across runs; stats() describes the last run.
  Status Run(uint64_t insn_addr, int64_t count, const CycleOptions& opts = {});

  const CycleStats& stats() const { return stats_; }
  Core& core() { return core_; }

 private:
  const HwConfig& cfg_;
  Dram* dram_;
  Core core_;
  CycleStats stats_;
};

}  // namespace tessera
