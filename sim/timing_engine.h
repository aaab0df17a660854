// The timing contract (docs/microarch.md) as an engine: fetch, the three
// modules, the dependency-token queues and the memory port, cycle by cycle
// (visiting only the cycles in which something changes). What the
// instructions are and what they do is the InstructionSource's business:
// `sim` (sim/cycle_sim.h) decodes them from DRAM and applies their data
// effects; the compiler's cost model times a recorded program without data.
// Both therefore get the same cycles from the same rules (sim/timing.h).
#pragma once

#include <cstdint>

#include "isa/base/status.h"
#include "isa/isa.h"
#include "sim/cycle_stats.h"

namespace tessera {

struct HwConfig;
class TraceSink;

class InstructionSource {
 public:
  virtual ~InstructionSource() = default;
  // Instruction `index` of the stream: called once per instruction, in order,
  // when fetch dispatches it. An error stops the run.
  virtual Status Decode(int64_t index, Instruction* out) = 0;
  // Instruction `index` starts (phase 3): apply its effects. For an ALU,
  // return the sum of its iteration cycles (the operand rule, which depends on
  // the uops in the scratchpad); otherwise 0.
  virtual StatusOr<int64_t> Start(const Instruction& in, int64_t index) = 0;
  // Cycle `cycle` begins (every visited cycle, before its phases): a source
  // that lives in simulated time (SystemC) advances its clock here. An error
  // stops the run.
  virtual Status AtCycle(int64_t cycle) {
    (void)cycle;
    return OkStatus();
  }
  // The run reached FINISH; `stats` holds the timing statistics so far.
  virtual void Finished(CycleStats* stats) { (void)stats; }
};

struct EngineOptions {
  bool record_instructions = false;  // fill CycleStats::instructions
  int64_t max_cycles = 0;            // watchdog; 0 = 10^12 cycles
  TraceSink* trace = nullptr;
  // Visit every cycle instead of jumping between events. A slow oracle used
  // by tests to check that event skipping never misses a state change.
  bool visit_every_cycle = false;
};

// Runs the `count`-instruction stream at byte address `stream_addr` from cycle
// 0 and fills `stats` (also on error, as far as the run got).
Status RunTimingEngine(const HwConfig& cfg, InstructionSource& src, uint64_t stream_addr, int64_t count,
                       const EngineOptions& opts, CycleStats* stats);

}  // namespace tessera
