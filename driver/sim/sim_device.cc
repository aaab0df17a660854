// The `sim` backend: the cycle-accurate simulator behind the register
// protocol. The watchdog is in device cycles, CycleOptions::max_cycles; the
// counters are the simulator's per-run statistics.
#include "driver/registry.h"
#include "driver/simulated/simulated_device.h"
#include "sim/cycle_sim.h"
#include "sim/trace.h"

namespace tessera {
namespace {

constexpr char kTimingOnly[] = "timing-only";

class CycleDevice final : public SimulatedDevice {
 public:
  CycleDevice(const HwConfig& cfg, const DeviceOptions& opts)
      : SimulatedDevice(cfg, "sim", opts),
        sim_(cfg_, &dram_),
        trace_(opts.trace),
        timing_only_(opts.backend.Flag(kTimingOnly)) {}
  bool has_timing() const override { return true; }
  bool computes_data() const override { return !timing_only_; }

 protected:
  EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) override {
    CycleOptions o;
    o.max_cycles = static_cast<int64_t>(watchdog_cycles);
    o.compute_data = !timing_only_;
    OffsetTrace shifted(trace_, elapsed_);
    if (trace_) o.trace = &shifted;
    EngineRun r;
    r.status = sim_.Run(insn_addr, count, o);
    r.counters = sim_.stats().counters;
    elapsed_ += r.counters.cycles;
    return r;
  }

 private:
  CycleSim sim_;
  TraceSink* trace_;
  bool timing_only_;
  int64_t elapsed_ = 0;  // device cycles of all earlier runs (the trace's timeline)
};

StatusOr<std::unique_ptr<Device>> OpenSim(const HwConfig& cfg, const DeviceOptions& opts) {
  return std::unique_ptr<Device>(std::make_unique<CycleDevice>(cfg, opts));
}

}  // namespace

BackendInfo SimBackend() {
  BackendInfo b;
  b.name = "sim";
  b.description = "cycle-accurate simulator of the timing contract (docs/microarch.md)";
  b.has_timing = true;
  b.open = OpenSim;
  b.options = {{kTimingOnly, BackendOptionType::kFlag,
                "skip data (faster): cycles only, DRAM results and expectations are not produced"}};
  return b;
}

}  // namespace tessera
