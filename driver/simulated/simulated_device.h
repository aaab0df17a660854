// Base of the in-process simulated backends (ref, sim): a sparse DRAM model of
// cfg.dram_size_bytes and an emulation of the control-register file of
// driver/regs.h. Writing CTRL.START runs the engine to completion in the
// calling thread, then raises DONE or ERROR with the error code, the faulting
// instruction and the counters latched, exactly as the register protocol says.
#pragma once

#include <array>
#include <string>

#include "driver/device.h"
#include "sim/dram.h"
#include "sim/stats.h"

namespace tessera {

class SimulatedDevice : public Device {
 public:
  Status Write(uint64_t phys, const void* src, uint64_t n) override;
  Status Read(uint64_t phys, void* dst, uint64_t n) const override;
  uint32_t ReadReg(uint32_t offset) override;
  void WriteReg(uint32_t offset, uint32_t value) override;
  // The DRAM model's allocated pages.
  std::vector<std::pair<uint64_t, uint64_t>> PopulatedRanges() const override;

 protected:
  SimulatedDevice(const HwConfig& cfg, std::string target, const DeviceOptions& opts);

  struct EngineRun {
    Status status;
    DeviceCounters counters;
  };
  // Runs `count` instructions at `insn_addr`; watchdog_cycles = 0: none.
  virtual EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) = 0;
  std::string ErrorDetail() const override { return detail_; }

  Dram dram_;

 private:
  void StartRun();

  uint64_t insn_addr_ = 0, watchdog_ = 0;
  uint32_t insn_count_ = 0, status_ = 0;
  regs::ErrorCode error_code_ = regs::ErrorCode::kNone;
  uint32_t error_insn_ = regs::kNoInsn;
  std::array<uint64_t, regs::kNumCounters> counters_{};
  std::string detail_;
};

// The functional counters of a run (instructions, MACs, iterations, DRAM traffic).
DeviceCounters FunctionalCounters(const ExecStats& s);

// The engine's Status mapped onto the ERROR_CODE register, and the
// instruction index its message names ("instruction N"), if any.
regs::ErrorCode ErrorCodeOfStatus(const Status& s);
uint32_t ErrorInsnOfStatus(const Status& s);

}  // namespace tessera
