#include "driver/device.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace tessera {
namespace {

constexpr uint64_t kGuardBytes = 4096;  // the first page of DRAM is never allocated
// A fetch block (8 instructions): a stream placed at a multiple never has a
// block straddle a 4 KiB page, so its timing does not depend on where it is.
constexpr uint64_t kCodeAlignment = 128;

uint64_t NextPow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

uint64_t DataAlignment(const HwConfig& cfg) {
  uint64_t a = 4096;
  for (const MemInfo& m : kMemTypes) a = std::max<uint64_t>(a, NextPow2(cfg.ElementBytes(m.mem)));
  return a;
}

uint64_t CodeBytes(const HwConfig& cfg, const DeviceOptions& opts) {
  uint64_t c = opts.code_region_bytes;
  // A small board DRAM (an iCE40's 128 KiB of SPRAM) gets a quarter of it.
  if (c == 0)
    c = std::clamp<uint64_t>(cfg.dram_size_bytes / 16, std::min<uint64_t>(256 << 10, cfg.dram_size_bytes / 4),
                             64 << 20);
  c = (c + 4095) & ~uint64_t{4095};
  TSR_CHECK(c + 2 * kGuardBytes < cfg.dram_size_bytes, "code region of {} bytes does not fit DRAM of {} bytes", c,
            cfg.dram_size_bytes);
  return c;
}

uint64_t DataBase(uint64_t phys_base, uint64_t code_bytes, uint64_t align) {
  uint64_t b = phys_base + kGuardBytes + code_bytes;
  return (b + align - 1) & ~(align - 1);
}

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
uint64_t AlignDown(uint64_t v, uint64_t a) { return v & ~(a - 1); }

}  // namespace

const char* MemPoolName(MemPool p) { return p == MemPool::kCode ? "code" : "data"; }

DeviceMemoryLayout MemoryLayoutOf(const HwConfig& cfg) {
  return DeviceMemoryLayout{cfg.dram_size_bytes, kGuardBytes, kCodeAlignment, DataAlignment(cfg)};
}

uint64_t DeviceMemoryLayout::Rounded(uint64_t bytes, MemPool pool) const {
  return AlignUp(bytes, pool == MemPool::kCode ? code_alignment : data_alignment);
}

uint64_t DeviceMemoryLayout::MaxCodeRegion(uint64_t data_bytes) const {
  // The data region starts at AlignUp(guard + code, data_alignment) and must hold data_bytes.
  if (data_bytes > dram_bytes) return 0;
  const uint64_t data_base = AlignDown(dram_bytes - data_bytes, data_alignment);
  if (data_base < guard_bytes) return 0;
  uint64_t code = AlignDown(data_base - guard_bytes, 4096);
  // CodeBytes' invariant: the code region and two guard pages fit inside DRAM.
  while (code > 0 && code + 2 * guard_bytes >= dram_bytes) code -= 4096;
  return code;
}

Device::Device(const HwConfig& cfg, std::string target, uint64_t phys_base, uint64_t dram_bytes,
               const DeviceOptions& opts)
    : cfg_(cfg),
      opts_(opts),
      target_(std::move(target)),
      phys_base_(phys_base),
      dram_bytes_(dram_bytes),
      code_("code", phys_base + kGuardBytes, CodeBytes(cfg, opts), kCodeAlignment),
      data_("data", DataBase(phys_base, CodeBytes(cfg, opts), DataAlignment(cfg)),
            (phys_base + dram_bytes - DataBase(phys_base, CodeBytes(cfg, opts), DataAlignment(cfg))) &
                ~(DataAlignment(cfg) - 1),
            DataAlignment(cfg)) {}

StatusOr<DeviceAllocation> Device::Alloc(uint64_t bytes, MemPool pool, const std::string& tag) {
  RangeAllocator& a = pool == MemPool::kCode ? code_ : data_;
  auto addr = a.Alloc(bytes, tag);
  if (!addr.ok()) return addr.status().WithContext(fmt::format("device '{}'", target_));
  return DeviceAllocation{*addr, a.Find(*addr)->bytes};
}

Status Device::Free(uint64_t phys) {
  if (code_.Contains(phys)) return code_.Free(phys);
  if (data_.Contains(phys)) return data_.Free(phys);
  return InvalidArgumentError("free of unknown device address 0x{:x}: outside the code and data regions of device '{}'",
                              phys, target_);
}

uint64_t Device::ReadReg64(uint32_t lo_offset) {
  const uint64_t lo = ReadReg(lo_offset), hi = ReadReg(lo_offset + 4);
  return lo | (hi << 32);
}

std::vector<std::pair<uint64_t, uint64_t>> Device::PopulatedRanges() const { return {{phys_base_, dram_bytes_}}; }

Status Device::Start(uint64_t insn_phys, int64_t count, int64_t timeout_ms) {
  if (timeout_ms < 0) return InvalidArgumentError("device '{}': negative timeout {} ms", target_, timeout_ms);
  return StartWithWatchdog(insn_phys, count,
                           static_cast<uint64_t>(static_cast<double>(timeout_ms) * cfg_.clock_mhz * 1000.0));
}

Status Device::StartWithWatchdog(uint64_t insn_phys, int64_t count, uint64_t watchdog) {
  if (count <= 0 || count > int64_t{0xFFFFFFFF})
    return InvalidArgumentError("device '{}': cannot start a run of {} instructions", target_, count);
  if (insn_phys % kInsnBytes != 0)
    return InvalidArgumentError("device '{}': instruction address 0x{:x} is not {}-byte aligned", target_, insn_phys,
                                kInsnBytes);
  const uint64_t bytes = static_cast<uint64_t>(count) * kInsnBytes;
  if (insn_phys < phys_base_ || insn_phys - phys_base_ > dram_bytes_ || bytes > dram_bytes_ - (insn_phys - phys_base_))
    return OutOfRangeError("device '{}': instruction stream [0x{:x}, 0x{:x}) is outside device DRAM", target_,
                           insn_phys, insn_phys + bytes);
  if (ReadReg(regs::kStatus) & regs::kStatusBusy)
    return FailedPreconditionError("device '{}' is busy: wait for the previous run before starting another", target_);
  WriteReg(regs::kCtrl, regs::kCtrlClear);
  WriteReg(regs::kInsnAddrLo, static_cast<uint32_t>(insn_phys));
  WriteReg(regs::kInsnAddrHi, static_cast<uint32_t>(insn_phys >> 32));
  WriteReg(regs::kInsnCount, static_cast<uint32_t>(count));
  WriteReg(regs::kWatchdogLo, static_cast<uint32_t>(watchdog));
  WriteReg(regs::kWatchdogHi, static_cast<uint32_t>(watchdog >> 32));
  launch_addr_ = insn_phys;
  launch_count_ = count;
  launch_watchdog_ = watchdog;
  WriteReg(regs::kCtrl, regs::kCtrlStart);
  return OkStatus();
}

DeviceStatus Device::ReadStatus() {
  DeviceStatus s;
  const uint32_t v = ReadReg(regs::kStatus);
  s.done = v & regs::kStatusDone;
  s.busy = v & regs::kStatusBusy;
  s.error = v & regs::kStatusError;
  s.error_code = static_cast<regs::ErrorCode>(ReadReg(regs::kErrorCode));
  s.error_insn = ReadReg(regs::kErrorInsn);
  return s;
}

Status Device::Wait() {
  using Clock = std::chrono::steady_clock;
  // The device's watchdog in host time, doubled, plus a second (plus the
  // watchdog at a simulator's slowest speed).
  const bool bounded = launch_watchdog_ > 0;
  const int64_t timeout_ms =
      static_cast<int64_t>(std::ceil(static_cast<double>(launch_watchdog_) / (cfg_.clock_mhz * 1000.0)));
  const double slow = MinCyclesPerHostSecond();
  const int64_t sim_ms = slow > 0 ? static_cast<int64_t>(std::ceil(launch_watchdog_ * 1000.0 / slow)) : 0;
  const auto deadline = Clock::now() + std::chrono::milliseconds(2 * timeout_ms + sim_ms + 1000);
  for (;;) {
    const uint32_t st = ReadReg(regs::kStatus);
    TSR_RETURN_IF_ERROR(BackendError());
    if (st & regs::kStatusError) {
      DeviceStatus s = ReadStatus();
      std::string where = s.error_insn == regs::kNoInsn ? "" : fmt::format(" at instruction {}", s.error_insn);
      std::string detail = ErrorDetail();
      return Status(regs::StatusCodeOf(s.error_code),
                    fmt::format("device '{}': run of {} instructions at 0x{:x} failed: {}{}{}{}", target_,
                                launch_count_, launch_addr_, regs::ErrorCodeName(s.error_code), where,
                                detail.empty() ? "" : ": ", detail))
          .WithFault(Fault{static_cast<uint32_t>(s.error_code), s.error_insn});
    }
    if (st & regs::kStatusDone) return OkStatus();
    if (!(st & regs::kStatusBusy)) return FailedPreconditionError("device '{}': wait without a started run", target_);
    if (bounded && Clock::now() > deadline) {
      WriteReg(regs::kCtrl, regs::kCtrlAbort);
      const Status late = DeadlineExceededError(
          "device '{}': run of {} instructions at 0x{:x} did not finish within its watchdog of {} cycles ({} ms; "
          "host deadline passed; the run was aborted)",
          target_, launch_count_, launch_addr_, launch_watchdog_, timeout_ms);
      return late.WithFault(regs::MakeFault(regs::ErrorCode::kAbortedByHost));
    }
    WhileWaiting();
  }
}

Status Device::Run(uint64_t insn_phys, int64_t count, int64_t timeout_ms) {
  TSR_RETURN_IF_ERROR(Start(insn_phys, count, timeout_ms));
  return Wait();
}

DeviceCounters Device::ReadCounters() {
  DeviceCounters c;
  c.ForEachRegister([&](uint32_t i, int64_t& v) { v = static_cast<int64_t>(ReadReg64(regs::CounterOffset(i))); });
  return c;
}

uint64_t Device::ReadFingerprint() { return ReadReg64(regs::kFingerprintLo); }

}  // namespace tessera
