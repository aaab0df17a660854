// Base of the in-process simulated backends (ref, sim): a sparse DRAM model of
// cfg.dram_size_bytes and an emulation of the register file of isa/regs.def
// (every register with its access rule and reset value from the table).
// Writing CTRL.START runs the engine to completion in the calling thread,
// then raises DONE or ERROR with the engine's fault (code and instruction, as
// data on its Status) and the counters latched, as the register protocol says.
#pragma once

#include <array>
#include <string>

#include "driver/device.h"
#include "isa/regs.h"
#include "sim/dram.h"

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
    Status status;  // an error carries its Fault (isa/regs.h); one without is reported as internal
    DeviceCounters counters;
  };
  // Runs `count` instructions at `insn_addr`; watchdog_cycles = 0: none.
  virtual EngineRun Execute(uint64_t insn_addr, int64_t count, uint64_t watchdog_cycles) = 0;
  std::string ErrorDetail() const override { return detail_; }

  Dram dram_;

 private:
  void StartRun();
  uint32_t& Reg(uint32_t offset) { return file_[offset / 4]; }
  uint64_t Reg64(uint32_t lo_offset) { return Reg(lo_offset) | uint64_t{Reg(lo_offset + 4)} << 32; }
  void Fail(regs::ErrorCode code, uint32_t insn, std::string detail);

  std::array<uint32_t, regs::kRegisterWindowBytes / 4> file_{};
  std::string detail_;
};

}  // namespace tessera
