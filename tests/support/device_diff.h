// One program on two devices through the register protocol, and what must
// agree between them: the run's status and structured fault, every counter
// register (cycles, the per-module stall categories, traffic, bursts), DRAM
// (every populated range of either device) and every instruction's span
// (start and End cycle, from each device's trace). The systemc-vs-sim and
// rtl-vs-sim differential tests use it; both devices are reused across
// programs, so scratchpads and DRAM carry over identically. A failure names
// every differing counter, the first instruction whose start or end differs
// (from both sides) and the replay command.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "isa/program.h"
#include "sim/trace.h"

namespace tessera::testing {

// One instruction's span in a run, as the device's trace gives it (cycles
// of the run: 0 is its first cycle).
struct InsnSpan {
  int track = 0;  // 1 + Module (load, compute, store)
  int64_t index = 0, start = 0, end = 0;
  std::string name;
};

// A TraceSink that keeps the spans (queue counters are not compared).
class SpanLog final : public TraceSink {
 public:
  void Span(int track, const std::string& name, int64_t start, int64_t end, int64_t index) override {
    spans.push_back({track, index, start, end, name});
  }
  void Counter(const std::string&, int64_t, int64_t) override {}
  std::vector<InsnSpan> spans;
};

struct DeviceOutcome {
  Status status;
  DeviceCounters counters;
  DeviceStatus device_status;
  std::vector<uint8_t> dram;                          // the bytes of `ranges`, in order
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [address, bytes) read from both devices
  std::vector<InsnSpan> spans;                        // by stream index
};

class DevicePair {
 public:
  // Opens `ref` and `dut` on `cfg` (gtest failure when one cannot be opened: check ok()).
  DevicePair(const HwConfig& cfg, const std::string& ref, const std::string& dut);
  bool ok() const { return ref_ && dut_; }
  // Places `p` on both, runs it and fills the outcomes. With `timeout_ms`
  // both get that watchdog; without, `ref` none and `dut` kWatchdogTimes
  // times ref's cycles plus kWatchdogSlack (a hung dut fails promptly).
  void Run(const Program& p, DeviceOutcome* ref, DeviceOutcome* dut, int64_t timeout_ms = 0);
  static constexpr uint64_t kWatchdogTimes = 2, kWatchdogSlack = 1000;
  Device& ref() { return *ref_; }
  Device& dut() { return *dut_; }

 private:
  const HwConfig& cfg_;
  SpanLog ref_log_, dut_log_;
  int64_t ref_elapsed_ = 0, dut_elapsed_ = 0;  // each device's trace timeline: cycles of its earlier runs
  std::unique_ptr<Device> ref_, dut_;
};

// Writes `p` (disassembled) to TEST_OUTPUT_DIR/<stem>.s and returns the replay line.
std::string WriteReplay(const std::string& dir, const std::string& stem, const HwConfig& cfg, const Program& p,
                        const std::string& config_path, const std::string& targets);

// The first instruction (earliest start on either side) whose span differs
// between `a` and `b`, printed from both sides; empty when they agree.
std::string FirstDifferingInstruction(const std::vector<InsnSpan>& a, const std::vector<InsnSpan>& b,
                                      const std::string& a_name, const std::string& b_name);

// gtest expectations: `dut` reports what `ref` reports. `replay` ends every message.
void ExpectSameOutcome(const DeviceOutcome& ref, const DeviceOutcome& dut, const std::string& ref_name,
                       const std::string& dut_name, const std::string& replay);

}  // namespace tessera::testing
