// The `sim` backend: the cycle-accurate simulator behind the register
// protocol. The watchdog is in device cycles, CycleOptions::max_cycles; the
// counters are the simulator's per-run statistics.
#include "driver/backends.h"
#include "driver/sim_device.h"
#include "sim/cycle_sim.h"

namespace tessera {
namespace {

DeviceCounters::Module ToModule(const ModuleCycles& m) {
  return DeviceCounters::Module{m.busy, m.wait_token, m.wait_queue, m.wait_memory};
}

class CycleDevice final : public SimulatedDevice {
 public:
  CycleDevice(const HwConfig& cfg, const DeviceOptions& opts) : SimulatedDevice(cfg, "sim", opts), sim_(cfg_, &dram_) {}
  bool has_timing() const override { return true; }

 protected:
  EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) override {
    CycleOptions o;
    o.max_cycles = static_cast<int64_t>(watchdog_cycles);
    EngineRun r;
    r.status = sim_.Run(insn_addr, count, o);
    const CycleStats& s = sim_.stats();
    r.counters.cycles = s.cycles;
    r.counters.insns = s.exec.total_insns();
    r.counters.macs = s.gemm_macs;
    r.counters.gemm_iterations = s.exec.gemm_iterations;
    r.counters.alu_iterations = s.exec.alu_iterations;
    r.counters.dram_read_bytes = s.exec.total_dram_read_bytes();
    r.counters.dram_write_bytes = s.exec.dram_write_bytes;
    r.counters.fetch = ToModule(s.fetch);
    r.counters.load = ToModule(s.load);
    r.counters.compute = ToModule(s.compute);
    r.counters.store = ToModule(s.store);
    return r;
  }

 private:
  CycleSim sim_;
};

}  // namespace

std::unique_ptr<Device> NewCycleDevice(const HwConfig& cfg, const DeviceOptions& opts) {
  return std::make_unique<CycleDevice>(cfg, opts);
}

}  // namespace tessera
