// Execution traces: a TraceSink receives one span per instruction (on the
// track of its module) and counter samples (queue occupancy); ChromeTrace
// writes them as Chrome Trace Event JSON, viewable in Perfetto
// (ui.perfetto.dev) or chrome://tracing. Times are converted from cycles to
// microseconds at the config's clock; cycles are kept in the event args.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

struct Instruction;

// The span name of an instruction ("LOAD inp", "GEMM reset", "ALU add", ...).
std::string InstructionSpanName(const Instruction& in);

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // track: 0 fetch, 1 load, 2 compute, 3 store, 4 layers (model runs).
  virtual void Span(int track, const std::string& name, int64_t start_cycle, int64_t end_cycle, int64_t index) = 0;
  virtual void Counter(const std::string& name, int64_t cycle, int64_t value) = 0;
};

// Forwards to `out` with cycles shifted by `offset` (a run on a device
// timeline that began `offset` cycles earlier).
class OffsetTrace final : public TraceSink {
 public:
  OffsetTrace(TraceSink* out, int64_t offset) : out_(out), offset_(offset) {}
  void Span(int track, const std::string& name, int64_t start, int64_t end, int64_t index) override {
    out_->Span(track, name, start + offset_, end + offset_, index);
  }
  void Counter(const std::string& name, int64_t cycle, int64_t value) override {
    out_->Counter(name, cycle + offset_, value);
  }

 private:
  TraceSink* out_;
  int64_t offset_;
};

class ChromeTrace : public TraceSink {
 public:
  explicit ChromeTrace(double clock_mhz) : clock_mhz_(clock_mhz) {}
  void Span(int track, const std::string& name, int64_t start_cycle, int64_t end_cycle, int64_t index) override;
  void Counter(const std::string& name, int64_t cycle, int64_t value) override;
  std::string ToJson() const;
  Status Write(const std::string& path) const;
  size_t events() const { return events_.size(); }

 private:
  double clock_mhz_;
  std::vector<std::string> events_;
  bool used_[5] = {true, true, true, true, false};  // module tracks always named; "layers" when used
};

}  // namespace tessera
