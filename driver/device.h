// Device: the one interface to an accelerator, shaped for a memory-mapped
// device. Memory: DMA-able buffers with physical addresses in the device's
// DRAM (a code region for instruction streams and uop kernels, a data region
// for tensors), host<->device copies. Control: a 32-bit register window
// (driver/regs.h) and, on top of it, the driver sequence of
// docs/device-protocol.md: start a run of an instruction stream at a physical
// address, wait for DONE with a timeout, read status, errors and counters.
// Backends implement only memory access and the register window; the driver
// sequence is shared, so systemc, rtl and fpga backends fit unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/allocator.h"
#include "driver/regs.h"
#include "isa/base/status.h"
#include "isa/config.h"

namespace tessera {

class TraceSink;

enum class MemPool : uint8_t { kCode, kData };
const char* MemPoolName(MemPool p);

struct DeviceOptions {
  // Bytes of DRAM reserved for instruction streams and uop kernels; 0 picks
  // dram_size/16 clamped to [256 KiB, 64 MiB].
  uint64_t code_region_bytes = 0;
  // ref: check every cross-module scratchpad access for a missing token.
  bool check_races = true;
  // sim: receives every run's instruction spans and queue counters on one
  // continuous timeline (each run starts where the previous one ended).
  TraceSink* trace = nullptr;
};

// A device allocation: physical address and size (rounded up to the pool's alignment).
struct DeviceAllocation {
  uint64_t phys = 0;
  uint64_t bytes = 0;
};

struct DeviceCounters {
  struct Module {
    int64_t busy = 0, wait_token = 0, wait_queue = 0, wait_memory = 0;
  };
  int64_t cycles = 0;  // 0 on engines without timing (ref)
  int64_t insns = 0, macs = 0, gemm_iterations = 0, alu_iterations = 0;
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;
  Module fetch, load, compute, store;
  // MACs / (peak MACs per cycle x cycles); 0 without timing.
  double GemmUtilization(const HwConfig& cfg) const;
  void Add(const DeviceCounters& o);
};

// STATUS register decoded.
struct DeviceStatus {
  bool done = false, busy = false, error = false;
  regs::ErrorCode error_code = regs::ErrorCode::kNone;
  uint32_t error_insn = regs::kNoInsn;
};

class Device {
 public:
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const HwConfig& config() const { return cfg_; }
  const std::string& target() const { return target_; }
  // True when the backend counts cycles (sim, systemc, rtl, fpga; not ref).
  virtual bool has_timing() const = 0;

  // --- memory -----------------------------------------------------------
  // Allocates `bytes` in a pool; `tag` names the allocation in messages.
  // Data allocations are aligned to data_alignment() (a multiple of every
  // element size, so any memory type can address them), code to 64 bytes.
  StatusOr<DeviceAllocation> Alloc(uint64_t bytes, MemPool pool, const std::string& tag);
  Status Free(uint64_t phys);
  const RangeAllocator& pool(MemPool p) const { return p == MemPool::kCode ? code_ : data_; }
  uint64_t data_alignment() const { return data_.alignment(); }
  // Copies between host memory and device DRAM (bounds-checked against DRAM).
  virtual Status Write(uint64_t phys, const void* src, uint64_t n) = 0;
  virtual Status Read(uint64_t phys, void* dst, uint64_t n) const = 0;

  // --- the register window ------------------------------------------------
  virtual uint32_t ReadReg(uint32_t offset) = 0;
  virtual void WriteReg(uint32_t offset, uint32_t value) = 0;

  // --- the driver sequence (docs/device-protocol.md) ----------------------
  // Programs INSN_ADDR/INSN_COUNT and the watchdog (timeout_ms of device
  // time, 0 = none) and writes CTRL.START. The stream must be in DRAM.
  Status Start(uint64_t insn_phys, int64_t count, int64_t timeout_ms);
  // Polls STATUS until DONE or ERROR. The device's watchdog enforces the
  // timeout; the host gives up (and writes CTRL.ABORT) after twice the
  // timeout plus one second. An error becomes a Status naming the error
  // code, the faulting instruction and the backend's diagnostic.
  Status Wait();
  Status Run(uint64_t insn_phys, int64_t count, int64_t timeout_ms);
  DeviceStatus ReadStatus();
  // Counters of the last run (latched at DONE/ERROR).
  DeviceCounters ReadCounters();
  uint64_t ReadFingerprint();
  // A 64-bit register pair (lo at the offset, hi at offset + 4).
  uint64_t ReadReg64(uint32_t lo_offset);

 protected:
  Device(const HwConfig& cfg, std::string target, uint64_t phys_base, uint64_t dram_bytes, const DeviceOptions& opts);
  // Called between STATUS polls: a backend that simulates hardware in this
  // thread advances it here (Verilator, SystemC); the FPGA backend yields.
  virtual void WhileWaiting() {}
  // A backend's description of the last error beyond the registers (the
  // simulators' full message); empty when there is none.
  virtual std::string ErrorDetail() const { return {}; }

  const HwConfig cfg_;
  const DeviceOptions opts_;

 private:
  std::string target_;
  uint64_t phys_base_, dram_bytes_;
  RangeAllocator code_, data_;
  uint64_t launch_addr_ = 0;
  int64_t launch_count_ = 0, launch_timeout_ms_ = 0;
};

// Opens a backend: "ref" (functional reference) or "sim" (cycle-accurate),
// each owning a DRAM of cfg.dram_size_bytes. Checks the device's ISA
// fingerprint register against the config.
StatusOr<std::unique_ptr<Device>> OpenDevice(const std::string& target, const HwConfig& cfg,
                                             const DeviceOptions& opts = {});
// The targets OpenDevice accepts in this build.
std::vector<std::string> DeviceTargets();

}  // namespace tessera
