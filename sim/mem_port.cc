#include "sim/mem_port.h"

#include <algorithm>
#include <climits>

#include "isa/base/check.h"
#include "isa/config.h"

namespace tessera {

MemPort::MemPort(const HwConfig& cfg)
    : latency_(cfg.dram_latency_cycles),
      bytes_per_cycle_(cfg.dram_bytes_per_cycle),
      max_burst_(int64_t{256} * cfg.dram_bytes_per_cycle),
      max_outstanding_(cfg.dram_max_outstanding) {
  completions_.reserve(max_outstanding_);
}

uint64_t MemPort::BurstBytes(uint64_t addr, uint64_t remaining) const {
  const uint64_t to_boundary = 4096 - (addr % 4096);
  return std::min({remaining, to_boundary, static_cast<uint64_t>(max_burst_)});
}

int64_t MemPort::Beats(uint64_t addr, uint64_t bytes) const {
  const uint64_t b = static_cast<uint64_t>(bytes_per_cycle_);
  return static_cast<int64_t>(((addr % b) + bytes + b - 1) / b);
}

MemPort::Grant MemPort::Accept(uint64_t addr, uint64_t bytes, bool write, int64_t t) {
  TSR_CHECK(CanAccept(), "burst accepted with {} outstanding", completions_.size());
  const int64_t beats = Beats(addr, bytes);
  const int64_t d = std::max(write ? t : t + latency_, data_free_);
  data_free_ = d + beats;
  data_busy_ += beats;
  const int64_t c = write ? d + beats + latency_ : d + beats;
  completions_.push_back(c);
  return Grant{c, beats};
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
  completions_.clear();
}

}  // namespace tessera
