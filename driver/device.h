// Device: the one interface to an accelerator, shaped for a memory-mapped
// device. Memory: DMA-able buffers with physical addresses in the device's
// DRAM (a code region for instruction streams and uop kernels, a data region
// for tensors), host<->device copies. Control: a 32-bit register window
// (driver/regs.h) and, on top of it, the driver sequence of
// docs/device-protocol.md: start a run of an instruction stream at a physical
// address, wait for DONE with a timeout, read status, errors and counters.
// Backends implement only memory access and the register window; the driver
// sequence is shared, so systemc, rtl and fpga backends fit unchanged. Devices
// are opened by name through the backend registry (driver/registry.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/allocator.h"
#include "driver/backend_options.h"
#include "isa/base/status.h"
#include "isa/config.h"
#include "isa/counters.h"
#include "isa/regs.h"

namespace tessera {

class TraceSink;

enum class MemPool : uint8_t { kCode, kData };
const char* MemPoolName(MemPool p);

struct DeviceOptions {
  // Bytes of DRAM reserved for instruction streams and uop kernels; 0 picks
  // dram_size/16 clamped to [min(256 KiB, dram_size/4), 64 MiB].
  uint64_t code_region_bytes = 0;
  // Receives every run's instruction spans and queue counters on one
  // continuous device timeline (each run starts where the previous one
  // ended). Only backends with timing take one (OpenDevice refuses it otherwise).
  TraceSink* trace = nullptr;
  // The target's own options (declared in its registration), checked by OpenDevice.
  BackendOptionValues backend;
};

// How a device of a config lays out its DRAM (docs/device-protocol.md,
// "Memory") and rounds allocations: what a client needs to size the code
// region before it opens the device.
struct DeviceMemoryLayout {
  uint64_t dram_bytes = 0, guard_bytes = 0, code_alignment = 0, data_alignment = 0;
  // The bytes an allocation of `bytes` takes in a pool.
  uint64_t Rounded(uint64_t bytes, MemPool pool) const;
  // The largest code region (DeviceOptions::code_region_bytes) that leaves
  // room for `data_bytes` of data allocations (each already Rounded); 0 if none.
  uint64_t MaxCodeRegion(uint64_t data_bytes) const;
};
DeviceMemoryLayout MemoryLayoutOf(const HwConfig& cfg);

// A device allocation: physical address and size (rounded up to the pool's alignment).
struct DeviceAllocation {
  uint64_t phys = 0;
  uint64_t bytes = 0;
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
  // True when the backend counts cycles (sim, systemc, rtl, fpga; not ref);
  // the same answer as its registry row.
  virtual bool has_timing() const = 0;
  // False when the device only models time and leaves DRAM results
  // undefined (a simulator's timing-only mode).
  virtual bool computes_data() const { return true; }

  // --- memory -----------------------------------------------------------
  // Allocates `bytes` in a pool; `tag` names the allocation in messages.
  // Data allocations are aligned to data_alignment() (a multiple of every
  // element size, so any memory type can address them), code to 128 bytes
  // (a fetch block: a stream's fetch timing does not depend on its address).
  StatusOr<DeviceAllocation> Alloc(uint64_t bytes, MemPool pool, const std::string& tag);
  Status Free(uint64_t phys);
  const RangeAllocator& pool(MemPool p) const { return p == MemPool::kCode ? code_ : data_; }
  uint64_t data_alignment() const { return data_.alignment(); }
  // Copies between host memory and device DRAM (bounds-checked against DRAM).
  virtual Status Write(uint64_t phys, const void* src, uint64_t n) = 0;
  virtual Status Read(uint64_t phys, void* dst, uint64_t n) const = 0;
  // The [address, bytes) ranges of DRAM that can hold non-zero data: all of
  // it unless the backend knows better (a sparse DRAM model). A DRAM image of
  // the device covers these.
  virtual std::vector<std::pair<uint64_t, uint64_t>> PopulatedRanges() const;

  // --- the register window ------------------------------------------------
  virtual uint32_t ReadReg(uint32_t offset) = 0;
  virtual void WriteReg(uint32_t offset, uint32_t value) = 0;

  // --- the driver sequence (docs/device-protocol.md) ----------------------
  // Programs INSN_ADDR/INSN_COUNT and the watchdog (timeout_ms of device
  // time, 0 = none) and writes CTRL.START. The stream must be in DRAM.
  Status Start(uint64_t insn_phys, int64_t count, int64_t timeout_ms);
  // The same with the watchdog given in device cycles (0 = none).
  Status StartWithWatchdog(uint64_t insn_phys, int64_t count, uint64_t watchdog_cycles);
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
  // An error that stops the backend itself (the RTL harness's AXI protocol
  // check, a register window that does not answer); Wait returns it.
  virtual Status BackendError() const { return OkStatus(); }
  // A backend's description of the last error beyond the registers (the
  // simulators' full message); empty when there is none.
  virtual std::string ErrorDetail() const { return {}; }
  // The slowest speed, in device cycles per host second, at which a simulated
  // device is expected to run on a loaded host (0: hardware, device time is
  // host time). Wait's host deadline adds the watchdog at this speed, so a
  // slow simulator reaches its own watchdog before the host gives up.
  virtual double MinCyclesPerHostSecond() const { return 0; }

  const HwConfig cfg_;
  const DeviceOptions opts_;

 private:
  std::string target_;
  uint64_t phys_base_, dram_bytes_;
  RangeAllocator code_, data_;
  uint64_t launch_addr_ = 0;
  int64_t launch_count_ = 0;
  uint64_t launch_watchdog_ = 0;
};

}  // namespace tessera
