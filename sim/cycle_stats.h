// Timing statistics of the cycle-accurate simulator (docs/microarch.md,
// "Statistics"): total cycles, per-module cycle categories that sum to the
// total, GEMM utilization, port usage, and the functional counters.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "isa/isa.h"
#include "sim/stats.h"

namespace tessera {

struct ModuleCycles {
  int64_t busy = 0, wait_token = 0, wait_queue = 0, wait_memory = 0, idle = 0;
  int64_t total() const { return busy + wait_token + wait_queue + wait_memory + idle; }
};

// Start and end cycle of one instruction (global stream index).
struct InsnTiming {
  int64_t index;
  Module module;
  int64_t start, end;
};

struct CycleStats {
  int64_t cycles = 0;
  ModuleCycles fetch, load, compute, store;
  double gemm_utilization = 0;           // MACs / (MACs per cycle x cycles)
  int64_t dram_busy_cycles = 0;          // cycles the data channel carried beats
  int64_t port_bursts = 0;               // bursts accepted (instruction fetch included)
  int64_t port_slot_cycles = 0;          // sum over bursts of the cycles each held an outstanding slot
  ExecStats exec;                        // functional counters (zero MACs in timing-only runs... see docs)
  int64_t gemm_macs = 0;                 // non-reset GEMM MACs (counted in timing-only runs too)
  std::vector<InsnTiming> instructions;  // filled when CycleOptions::record_instructions

  ModuleCycles& ForModule(Module m);
  // Adds cycles, gemm_utilization, dram_read_bytes, dram_write_bytes, per-module
  // {busy, wait_token, wait_queue, wait_memory, idle} and the functional counters.
  void AddToJson(nlohmann::json* j) const;
};

}  // namespace tessera
