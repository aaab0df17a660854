// Timing statistics of the cycle-accurate simulator (docs/microarch.md,
// "Statistics"): the device counters (cycles, per-unit cycle categories that
// sum with idle to the total, the functional counts), memory-port usage and,
// on request, every instruction's start and end cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/counters.h"
#include "isa/isa.h"

namespace tessera {

// Start and end cycle of one instruction (global stream index).
struct InsnTiming {
  int64_t index;
  Module module;
  int64_t start, end;
};

struct CycleStats {
  DeviceCounters counters;               // what the register window reports
  int64_t port_slot_cycles = 0;          // sum over bursts of the cycles each held an outstanding slot
  std::vector<InsnTiming> instructions;  // filled when CycleOptions::record_instructions

  int64_t cycles() const { return counters.cycles; }
  StallCycles& unit(Module m) { return counters.unit(regs::UnitOf(m)); }
  const StallCycles& unit(regs::Unit u) const { return counters.unit(u); }
};

}  // namespace tessera
