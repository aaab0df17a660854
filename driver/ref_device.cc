// The `ref` backend: the functional reference simulator behind the register
// protocol. It has no clock, so the watchdog (device cycles) is converted
// back to milliseconds of host wall time (RefOptions::timeout_ms).
#include <cmath>

#include "driver/backends.h"
#include "driver/sim_device.h"
#include "sim/ref.h"

namespace tessera {
namespace {

class RefDevice final : public SimulatedDevice {
 public:
  RefDevice(const HwConfig& cfg, const DeviceOptions& opts) : SimulatedDevice(cfg, "ref", opts), ref_(cfg_, &dram_) {}
  bool has_timing() const override { return false; }

 protected:
  EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) override {
    RefOptions o;
    o.check_races = opts_.check_races;
    if (watchdog_cycles > 0)
      o.timeout_ms = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(static_cast<double>(watchdog_cycles) / (cfg_.clock_mhz * 1000.0))));
    const ExecStats before = ref_.stats();  // ref's counters accumulate across runs
    EngineRun r;
    r.status = ref_.Run(insn_addr, count, o);
    const ExecStats& after = ref_.stats();
    r.counters.insns = after.total_insns() - before.total_insns();
    r.counters.macs = after.macs - before.macs;
    r.counters.gemm_iterations = after.gemm_iterations - before.gemm_iterations;
    r.counters.alu_iterations = after.alu_iterations - before.alu_iterations;
    r.counters.dram_read_bytes = after.total_dram_read_bytes() - before.total_dram_read_bytes();
    r.counters.dram_write_bytes = after.dram_write_bytes - before.dram_write_bytes;
    return r;
  }

 private:
  RefSim ref_;
};

}  // namespace

std::unique_ptr<Device> NewRefDevice(const HwConfig& cfg, const DeviceOptions& opts) {
  return std::make_unique<RefDevice>(cfg, opts);
}

}  // namespace tessera
