// The `sim` backend: the cycle-accurate simulator behind the register
// protocol. The watchdog is in device cycles, CycleOptions::max_cycles; the
// counters are the simulator's per-run statistics.
#include "driver/backends.h"
#include "driver/sim_device.h"
#include "sim/cycle_sim.h"
#include "sim/trace.h"

namespace tessera {
namespace {

DeviceCounters::Module ToModule(const ModuleCycles& m) {
  return DeviceCounters::Module{m.busy, m.wait_token, m.wait_queue, m.wait_memory};
}

// Shifts a run's cycles by the device time before it.
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

class CycleDevice final : public SimulatedDevice {
 public:
  CycleDevice(const HwConfig& cfg, const DeviceOptions& opts)
      : SimulatedDevice(cfg, "sim", opts), sim_(cfg_, &dram_), trace_(opts.trace) {}
  bool has_timing() const override { return true; }

 protected:
  EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) override {
    CycleOptions o;
    o.max_cycles = static_cast<int64_t>(watchdog_cycles);
    OffsetTrace shifted(trace_, elapsed_);
    if (trace_) o.trace = &shifted;
    EngineRun r;
    r.status = sim_.Run(insn_addr, count, o);
    const CycleStats& s = sim_.stats();
    elapsed_ += s.cycles;
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
  TraceSink* trace_;
  int64_t elapsed_ = 0;  // device cycles of all earlier runs (the trace's timeline)
};

}  // namespace

std::unique_ptr<Device> NewCycleDevice(const HwConfig& cfg, const DeviceOptions& opts) {
  return std::make_unique<CycleDevice>(cfg, opts);
}

}  // namespace tessera
