// One program on two devices through the register protocol, and what must
// agree between them: the run's status and structured fault, every counter
// register (cycles, the per-module stall categories, traffic, bursts) and
// DRAM (every populated range of either device). The systemc-vs-sim and
// rtl-vs-sim differential tests use it; both devices are reused across
// programs, so scratchpads and DRAM carry over identically. A failure names
// every differing counter and the replay command.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "isa/program.h"

namespace tessera::testing {

struct DeviceOutcome {
  Status status;
  DeviceCounters counters;
  DeviceStatus device_status;
  std::vector<uint8_t> dram;                          // the bytes of `ranges`, in order
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [address, bytes) read from both devices
};

class DevicePair {
 public:
  // Opens `ref` and `dut` on `cfg` (gtest failure when one cannot be opened: check ok()).
  DevicePair(const HwConfig& cfg, const std::string& ref, const std::string& dut);
  bool ok() const { return ref_ && dut_; }
  // Places `p` on both, runs it (no watchdog unless given) and fills the outcomes.
  void Run(const Program& p, DeviceOutcome* ref, DeviceOutcome* dut, int64_t timeout_ms = 0);
  Device& ref() { return *ref_; }
  Device& dut() { return *dut_; }

 private:
  const HwConfig& cfg_;
  std::unique_ptr<Device> ref_, dut_;
};

// Writes `p` (disassembled) to TEST_OUTPUT_DIR/<stem>.s and returns the replay line.
std::string WriteReplay(const std::string& dir, const std::string& stem, const HwConfig& cfg, const Program& p,
                        const std::string& config_path, const std::string& targets);

// gtest expectations: `dut` reports what `ref` reports. `replay` ends every message.
void ExpectSameOutcome(const DeviceOutcome& ref, const DeviceOutcome& dut, const std::string& ref_name,
                       const std::string& dut_name, const std::string& replay);

}  // namespace tessera::testing
