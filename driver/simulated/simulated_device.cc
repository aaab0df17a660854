#include "driver/simulated/simulated_device.h"

namespace tessera {

SimulatedDevice::SimulatedDevice(const HwConfig& cfg, std::string target, const DeviceOptions& opts)
    : Device(cfg, std::move(target), 0, cfg.dram_size_bytes, opts), dram_(cfg.dram_size_bytes) {
  for (const regs::RegInfo& r : regs::kRegs) Reg(r.offset) = regs::ResetValue(r, cfg.isa_fingerprint);
}

Status SimulatedDevice::Write(uint64_t phys, const void* src, uint64_t n) {
  Status s = dram_.Write(phys, src, n);
  return s.ok() ? s : s.WithContext(fmt::format("device '{}' write", target()));
}

Status SimulatedDevice::Read(uint64_t phys, void* dst, uint64_t n) const {
  Status s = dram_.Read(phys, dst, n);
  return s.ok() ? s : s.WithContext(fmt::format("device '{}' read", target()));
}

std::vector<std::pair<uint64_t, uint64_t>> SimulatedDevice::PopulatedRanges() const { return dram_.AllocatedRanges(); }

uint32_t SimulatedDevice::ReadReg(uint32_t off) {
  if (off % 4 != 0 || off >= regs::kRegisterWindowBytes) return 0;  // unmapped: reads as zero
  if (off >= regs::kCounterBase) return Reg(off);
  const regs::RegInfo* r = regs::FindReg(off);
  return r == nullptr || r->access == regs::Access::kW ? 0 : Reg(off);
}

void SimulatedDevice::WriteReg(uint32_t off, uint32_t v) {
  const regs::RegInfo* r = off % 4 == 0 ? regs::FindReg(off) : nullptr;
  if (r == nullptr || r->access == regs::Access::kR) return;  // read-only or unmapped: ignored
  if (off != regs::kCtrl) {
    Reg(off) = v;
    return;
  }
  if (v & regs::kCtrlClear) {
    Reg(regs::kStatus) = 0;
    Reg(regs::kErrorCode) = static_cast<uint32_t>(regs::ErrorCode::kNone);
    Reg(regs::kErrorInsn) = regs::kNoInsn;
    detail_.clear();
  }
  // Runs complete inside START, so ABORT finds nothing to stop.
  if (v & regs::kCtrlStart) StartRun();
}

void SimulatedDevice::Fail(regs::ErrorCode code, uint32_t insn, std::string detail) {
  Reg(regs::kStatus) = regs::kStatusError;
  Reg(regs::kErrorCode) = static_cast<uint32_t>(code);
  Reg(regs::kErrorInsn) = insn;
  detail_ = std::move(detail);
}

void SimulatedDevice::StartRun() {
  for (uint32_t i = 0; i < regs::kNumCounters; ++i) Reg(regs::CounterOffset(i)) = Reg(regs::CounterOffset(i) + 4) = 0;
  Reg(regs::kErrorCode) = static_cast<uint32_t>(regs::ErrorCode::kNone);
  Reg(regs::kErrorInsn) = regs::kNoInsn;
  detail_.clear();
  const uint64_t addr = Reg64(regs::kInsnAddrLo);
  const uint32_t count = Reg(regs::kInsnCount);
  if (count == 0 || addr % kInsnBytes != 0 || !dram_.InBounds(addr, uint64_t{count} * kInsnBytes)) {
    Fail(regs::ErrorCode::kBadLaunch, regs::kNoInsn,
         fmt::format("INSN_ADDR 0x{:x} / INSN_COUNT {} do not describe an aligned stream inside DRAM", addr, count));
    return;
  }
  Reg(regs::kStatus) = regs::kStatusBusy;
  EngineRun r = Execute(addr, count, Reg64(regs::kWatchdogLo));
  // The registers hold each count modulo 2^counters.bits (isa/config.def).
  r.counters.InRegisters(config()).ForEachRegister([&](uint32_t i, const int64_t& v) {
    Reg(regs::CounterOffset(i)) = static_cast<uint32_t>(v);
    Reg(regs::CounterOffset(i) + 4) = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  });
  if (r.status.ok()) {
    Reg(regs::kStatus) = regs::kStatusDone;
    return;
  }
  const Fault f = r.status.fault().value_or(Fault{static_cast<uint32_t>(regs::ErrorCode::kInternal), regs::kNoInsn});
  Fail(static_cast<regs::ErrorCode>(f.code), f.insn, r.status.message());
}

}  // namespace tessera
