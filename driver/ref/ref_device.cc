// The `ref` backend: the functional reference simulator behind the register
// protocol. It has no clock, so the watchdog (device cycles) is converted
// back to milliseconds of host wall time (RefOptions::timeout_ms).
#include <cmath>

#include "driver/registry.h"
#include "driver/simulated/simulated_device.h"
#include "sim/ref.h"

namespace tessera {
namespace {

constexpr char kNoRaceCheck[] = "no-race-check";

class RefDevice final : public SimulatedDevice {
 public:
  RefDevice(const HwConfig& cfg, const DeviceOptions& opts) : SimulatedDevice(cfg, "ref", opts), ref_(cfg_, &dram_) {}
  bool has_timing() const override { return false; }

 protected:
  EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) override {
    RefOptions o;
    o.check_races = !opts_.backend.Flag(kNoRaceCheck);
    if (watchdog_cycles > 0)
      o.timeout_ms = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(static_cast<double>(watchdog_cycles) / (cfg_.clock_mhz * 1000.0))));
    ref_.core().stats() = DeviceCounters();  // ref's statistics accumulate across runs; the counters are per run
    EngineRun r;
    r.status = ref_.Run(insn_addr, count, o);
    r.counters = ref_.stats();
    return r;
  }

 private:
  RefSim ref_;
};

StatusOr<std::unique_ptr<Device>> OpenRef(const HwConfig& cfg, const DeviceOptions& opts) {
  return std::unique_ptr<Device>(std::make_unique<RefDevice>(cfg, opts));
}

}  // namespace

BackendInfo RefBackend() {
  BackendInfo b;
  b.name = "ref";
  b.description = "functional reference simulator (golden model; races, deadlocks, token errors)";
  b.has_timing = false;
  b.open = OpenRef;
  b.options = {{kNoRaceCheck, BackendOptionType::kFlag, "skip the dependency-token race detector"}};
  return b;
}

}  // namespace tessera
