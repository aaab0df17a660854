// A bounded FIFO channel with sc_fifo's evaluate-update semantics — a write
// becomes visible to the reader, and a read frees its slot for the writer,
// in the next delta cycle — plus a look at the head without taking it (a
// module reads its head instruction's token pops before it starts it). The
// accelerator's command queues (depth D_cmd) and dependency-token channels
// (depth D_tok) are Fifos with one writer and one reader each; since the
// phases of a cycle run in successive delta cycles (docs/systemc.md), a
// write in one phase is what later phases of the same cycle see.
#pragma once

#include <cstdint>
#include <deque>
#include <systemc>
#include <vector>

#include "isa/base/check.h"

namespace tessera::systemc {

template <typename T>
class Fifo : public sc_core::sc_prim_channel {
 public:
  Fifo(const char* name, int64_t depth) : sc_core::sc_prim_channel(name), depth_(depth) {}

  int64_t depth() const { return depth_; }
  // Reader side: entries written before this delta cycle, not yet read.
  int64_t num_available() const { return static_cast<int64_t>(items_.size()); }
  const T& peek() const { return items_.front(); }
  void pop() {
    TSR_CHECK(!items_.empty(), "{}: read from an empty fifo", name());
    items_.pop_front();
    ++read_;
    request_update();
  }
  // Writer side: slots free as of the start of this delta cycle, minus this cycle's writes.
  int64_t num_free() const {
    return depth_ - static_cast<int64_t>(items_.size() + written_.size()) - static_cast<int64_t>(read_);
  }
  void write(const T& v) {
    TSR_CHECK(num_free() > 0, "{}: write to a full fifo", name());
    written_.push_back(v);
    request_update();
  }
  // Occupancy including this delta cycle's writes (traces, end-of-run checks).
  int64_t size() const { return static_cast<int64_t>(items_.size() + written_.size()); }
  void clear() {
    items_.clear();
    written_.clear();
    read_ = 0;
  }

 private:
  void update() override {
    for (T& v : written_) items_.push_back(std::move(v));
    written_.clear();
    read_ = 0;
  }

  int64_t depth_;
  std::deque<T> items_;
  std::vector<T> written_;
  size_t read_ = 0;
};

}  // namespace tessera::systemc
