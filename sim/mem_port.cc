#include "sim/mem_port.h"

#include <algorithm>
#include <climits>

#include "isa/base/check.h"

namespace tessera {

MemPort::MemPort(const HwConfig& cfg) : port_(timing::Port::Of(cfg)) {
  completions_.reserve(static_cast<size_t>(port_.max_outstanding));
}

MemPort::Grant MemPort::Accept(uint64_t addr, uint64_t bytes, bool write, int64_t t) {
  TSR_CHECK(CanAccept(), "burst accepted with {} outstanding", completions_.size());
  const int64_t beats = timing::Beats(port_, addr, bytes);
  const timing::BurstTiming b = timing::TimeBurst(port_, write, t, data_free_, beats);
  data_free_ = b.data + beats;
  data_busy_ += beats;
  ++bursts_;
  slot_cycles_ += b.completion - t;
  completions_.push_back(b.completion);
  return Grant{b.completion, beats, b.data};
}

int MemPort::Retire(int64_t t) {
  const size_t before = completions_.size();
  completions_.erase(std::remove(completions_.begin(), completions_.end(), t), completions_.end());
  return static_cast<int>(before - completions_.size());
}

int64_t MemPort::NextCompletion() const {
  int64_t best = INT64_MAX;
  for (int64_t c : completions_) best = std::min(best, c);
  return best;
}

void MemPort::Reset() {
  data_free_ = 0;
  data_busy_ = 0;
  bursts_ = 0;
  slot_cycles_ = 0;
  completions_.clear();
}

}  // namespace tessera
