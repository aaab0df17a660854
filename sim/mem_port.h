// The single memory port of the timing contract (docs/microarch.md): bursts
// that never cross a 4 KiB boundary nor exceed 256 beats, a data channel of
// B bytes/cycle shared by reads and writes and served in acceptance order,
// latency L, at most N_out bursts outstanding. Completion cycles are known at
// acceptance, which is what lets the cycle simulator skip idle cycles.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

struct HwConfig;

class MemPort {
 public:
  explicit MemPort(const HwConfig& cfg);

  // Bytes of the burst starting at `addr` with at most `remaining` bytes left in the transfer.
  uint64_t BurstBytes(uint64_t addr, uint64_t remaining) const;
  int64_t Beats(uint64_t addr, uint64_t bytes) const;

  bool CanAccept() const { return static_cast<int>(completions_.size()) < max_outstanding_; }
  struct Grant {
    int64_t completion;  // cycle in which the burst completes (phase 1)
    int64_t beats;
  };
  // Accepts a burst in cycle t (phase 5). Requires CanAccept().
  Grant Accept(uint64_t addr, uint64_t bytes, bool write, int64_t t);
  // Retires bursts completing in cycle t (phase 1); returns how many.
  int Retire(int64_t t);
  // Earliest completion cycle > t, or INT64_MAX.
  int64_t NextCompletion() const;
  int outstanding() const { return static_cast<int>(completions_.size()); }
  int64_t data_busy_cycles() const { return data_busy_; }
  void Reset();

 private:
  int64_t latency_, bytes_per_cycle_, max_burst_;
  int max_outstanding_;
  int64_t data_free_ = 0;
  int64_t data_busy_ = 0;
  std::vector<int64_t> completions_;  // of outstanding bursts (at most N_out)
};

}  // namespace tessera
