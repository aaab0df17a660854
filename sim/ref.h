// `ref`: the functional reference simulator, the golden model every other
// engine is checked against. It fetches the instruction stream from DRAM into
// three bounded, in-order command queues (load, compute, store) that advance
// only through dependency tokens, so a missing token is caught as a race
// (a cross-module scratchpad access not ordered by tokens, found with vector
// clocks), a deadlock (reported with each queue's next instruction and the
// token counts), an instruction not ordered before FINISH (sim/tokens.h
// FinishRule, shared with every engine) or a token left unconsumed at
// FINISH. No timing.
#pragma once

#include <cstdint>
#include <memory>

#include "isa/base/status.h"
#include "sim/core.h"

namespace tessera {

struct HwConfig;
class Dram;
class RaceChecker;

struct RefOptions {
  bool check_races = true;
  // Host wall-clock budget in milliseconds (0 = none), checked between
  // instructions and inside GEMM/ALU loops. Exceeding it returns
  // kDeadlineExceeded naming the instruction reached: the device timeout.
  int64_t timeout_ms = kDefaultRefTimeoutMs;
  static constexpr int64_t kDefaultRefTimeoutMs = 60000;
};

class RefSim {
 public:
  RefSim(const HwConfig& cfg, Dram* dram);
  ~RefSim();

  // Runs `count` instructions stored at DRAM byte address `insn_addr`. The
  // last instruction must be FINISH and the only one. Scratchpads persist
  // across runs (like the hardware); stats accumulate.
  Status Run(uint64_t insn_addr, int64_t count, const RefOptions& opts = {});

  const DeviceCounters& stats() const { return core_.stats(); }
  Core& core() { return core_; }

 private:
  const HwConfig& cfg_;
  Dram* dram_;
  Core core_;
};

}  // namespace tessera
