// The state of the single memory port of the timing contract: outstanding
// bursts and the data channel. Its rules (burst splitting, beats, when data
// moves and a burst completes) are those of sim/timing.h. Completion cycles
// are known at acceptance, which is what lets the cycle simulator skip idle
// cycles.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing.h"

namespace tessera {

class MemPort {
 public:
  explicit MemPort(const HwConfig& cfg);

  // Bytes of the burst starting at `addr` with at most `remaining` bytes left in the transfer.
  uint64_t BurstBytes(uint64_t addr, uint64_t remaining) const { return timing::BurstBytes(port_, addr, remaining); }

  bool CanAccept() const { return static_cast<int64_t>(completions_.size()) < port_.max_outstanding; }
  struct Grant {
    int64_t completion;  // cycle in which the burst completes (phase 1)
    int64_t beats;
    int64_t data;  // first cycle of its data on the channel
  };
  // Accepts a burst in cycle t (phase 5). Requires CanAccept().
  Grant Accept(uint64_t addr, uint64_t bytes, bool write, int64_t t);
  // Retires bursts completing in cycle t (phase 1); returns how many.
  int Retire(int64_t t);
  // Earliest completion cycle > t, or INT64_MAX.
  int64_t NextCompletion() const;
  int outstanding() const { return static_cast<int>(completions_.size()); }
  int64_t data_busy_cycles() const { return data_busy_; }
  // The first cycle the data channel is free after the accepted bursts.
  int64_t data_free() const { return data_free_; }
  int64_t bursts() const { return bursts_; }
  // Sum over accepted bursts of the cycles each held an outstanding slot.
  int64_t slot_cycles() const { return slot_cycles_; }
  void Reset();

 private:
  timing::Port port_;
  int64_t data_free_ = 0;
  int64_t data_busy_ = 0, bursts_ = 0, slot_cycles_ = 0;
  std::vector<int64_t> completions_;  // of outstanding bursts (at most N_out)
};

}  // namespace tessera
