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

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // track: 0 fetch, 1 load, 2 compute, 3 store, 4 layers (model runs).
  virtual void Span(int track, const std::string& name, int64_t start_cycle, int64_t end_cycle, int64_t index) = 0;
  virtual void Counter(const std::string& name, int64_t cycle, int64_t value) = 0;
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
