#include "driver/simulated/simulated_device.h"

#include <cctype>

namespace tessera {

regs::ErrorCode ErrorCodeOfStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk: return regs::ErrorCode::kNone;
    case StatusCode::kDeadlineExceeded: return regs::ErrorCode::kWatchdog;
    case StatusCode::kAborted:
      return s.message().rfind("deadlock", 0) == 0 ? regs::ErrorCode::kDeadlock : regs::ErrorCode::kTokenError;
    case StatusCode::kOutOfRange: return regs::ErrorCode::kMemoryFault;
    case StatusCode::kInvalidArgument: return regs::ErrorCode::kIllegalInstruction;
    default: return regs::ErrorCode::kInternal;
  }
}

uint32_t ErrorInsnOfStatus(const Status& s) {
  const std::string& m = s.message();
  static const std::string kKey = "instruction ";
  for (size_t pos = m.find(kKey); pos != std::string::npos; pos = m.find(kKey, pos + 1)) {
    size_t i = pos + kKey.size();
    if (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) {
      uint64_t v = 0;
      while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i])) && v < regs::kNoInsn)
        v = v * 10 + static_cast<uint64_t>(m[i++] - '0');
      return v < regs::kNoInsn ? static_cast<uint32_t>(v) : regs::kNoInsn;
    }
  }
  return regs::kNoInsn;
}

DeviceCounters FunctionalCounters(const ExecStats& s) {
  DeviceCounters c;
  c.insns = s.total_insns();
  c.macs = s.macs;
  c.gemm_iterations = s.gemm_iterations;
  c.alu_iterations = s.alu_iterations;
  c.dram_read_bytes = s.total_dram_read_bytes();
  c.dram_write_bytes = s.dram_write_bytes;
  for (size_t i = 0; i < c.insns_by_opcode.size(); ++i) c.insns_by_opcode[i] = s.insns[i];
  c.insn_fetch_bytes = s.insn_fetch_bytes;
  for (size_t i = 0; i < c.load_bytes_by_mem.size(); ++i) c.load_bytes_by_mem[i] = s.dram_read_bytes[i];
  c.uop_loads = s.uop_loads;
  return c;
}

SimulatedDevice::SimulatedDevice(const HwConfig& cfg, std::string target, const DeviceOptions& opts)
    : Device(cfg, std::move(target), 0, cfg.dram_size_bytes, opts), dram_(cfg.dram_size_bytes) {}

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
  if (off >= regs::kCounterBase && off < regs::kRegisterWindowBytes) {
    const uint64_t v = counters_[(off - regs::kCounterBase) / 8];
    return static_cast<uint32_t>((off & 4) ? v >> 32 : v);
  }
  switch (off) {
    case regs::kId: return regs::kIdMagic;
    case regs::kVersion: return regs::kProtocolVersion;
    case regs::kStatus: return status_;
    case regs::kInsnAddrLo: return static_cast<uint32_t>(insn_addr_);
    case regs::kInsnAddrHi: return static_cast<uint32_t>(insn_addr_ >> 32);
    case regs::kInsnCount: return insn_count_;
    case regs::kWatchdogLo: return static_cast<uint32_t>(watchdog_);
    case regs::kWatchdogHi: return static_cast<uint32_t>(watchdog_ >> 32);
    case regs::kErrorCode: return static_cast<uint32_t>(error_code_);
    case regs::kErrorInsn: return error_insn_;
    case regs::kFingerprintLo: return static_cast<uint32_t>(cfg_.isa_fingerprint);
    case regs::kFingerprintHi: return static_cast<uint32_t>(cfg_.isa_fingerprint >> 32);
    default: return 0;  // unmapped offsets read as zero, like the hardware
  }
}

void SimulatedDevice::WriteReg(uint32_t off, uint32_t v) {
  switch (off) {
    case regs::kInsnAddrLo: insn_addr_ = (insn_addr_ & ~uint64_t{0xFFFFFFFF}) | v; break;
    case regs::kInsnAddrHi: insn_addr_ = (insn_addr_ & 0xFFFFFFFF) | (uint64_t{v} << 32); break;
    case regs::kInsnCount: insn_count_ = v; break;
    case regs::kWatchdogLo: watchdog_ = (watchdog_ & ~uint64_t{0xFFFFFFFF}) | v; break;
    case regs::kWatchdogHi: watchdog_ = (watchdog_ & 0xFFFFFFFF) | (uint64_t{v} << 32); break;
    case regs::kCtrl:
      if (v & regs::kCtrlClear) {
        status_ = 0;
        error_code_ = regs::ErrorCode::kNone;
        error_insn_ = regs::kNoInsn;
        detail_.clear();
      }
      // Runs complete inside START, so ABORT finds nothing to stop.
      if (v & regs::kCtrlStart) StartRun();
      break;
    default: break;  // read-only or unmapped: ignored
  }
}

void SimulatedDevice::StartRun() {
  counters_.fill(0);
  error_code_ = regs::ErrorCode::kNone;
  error_insn_ = regs::kNoInsn;
  detail_.clear();
  if (insn_count_ == 0 || insn_addr_ % kInsnBytes != 0 ||
      !dram_.InBounds(insn_addr_, uint64_t{insn_count_} * kInsnBytes)) {
    status_ = regs::kStatusError;
    error_code_ = regs::ErrorCode::kBadLaunch;
    detail_ = fmt::format("INSN_ADDR 0x{:x} / INSN_COUNT {} do not describe an aligned stream inside DRAM", insn_addr_,
                          insn_count_);
    return;
  }
  status_ = regs::kStatusBusy;
  EngineRun r = Execute(insn_addr_, insn_count_, watchdog_);
  using regs::Counter;
  auto set = [&](Counter c, int64_t v) { counters_[static_cast<size_t>(c)] = static_cast<uint64_t>(v); };
  const DeviceCounters& c = r.counters;
  set(Counter::kCycles, c.cycles);
  set(Counter::kInsns, c.insns);
  set(Counter::kMacs, c.macs);
  set(Counter::kGemmIterations, c.gemm_iterations);
  set(Counter::kAluIterations, c.alu_iterations);
  set(Counter::kDramReadBytes, c.dram_read_bytes);
  set(Counter::kDramWriteBytes, c.dram_write_bytes);
  const DeviceCounters::Module* mods[] = {&c.fetch, &c.load, &c.compute, &c.store};
  for (int m = 0; m < 4; ++m) {
    set(regs::ModuleCounter(m, 0), mods[m]->busy);
    set(regs::ModuleCounter(m, 1), mods[m]->wait_token);
    set(regs::ModuleCounter(m, 2), mods[m]->wait_queue);
    set(regs::ModuleCounter(m, 3), mods[m]->wait_memory);
  }
  for (const OpcodeInfo& op : kOpcodes) set(regs::OpcodeCounter(op.op), c.insns_by_opcode[static_cast<size_t>(op.op)]);
  set(Counter::kInsnFetchBytes, c.insn_fetch_bytes);
  for (const MemInfo& m : kMemTypes) set(regs::MemCounter(m.mem), c.load_bytes_by_mem[static_cast<size_t>(m.mem)]);
  set(Counter::kUopLoads, c.uop_loads);
  set(Counter::kDramBusyCycles, c.dram_busy_cycles);
  set(Counter::kPortBursts, c.port_bursts);
  if (r.status.ok()) {
    status_ = regs::kStatusDone;
  } else {
    status_ = regs::kStatusError;
    error_code_ = ErrorCodeOfStatus(r.status);
    error_insn_ = ErrorInsnOfStatus(r.status);
    detail_ = r.status.message();
  }
}

}  // namespace tessera
