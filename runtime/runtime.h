// Runtime: the C++ API to the accelerator. It owns a Device and manages
// device buffers, the uop kernel store (a DRAM copy of every kernel, in the
// device's code region), a model of the uop scratchpad between runs, and the
// execution of recordings: Load() places a Recording's pieces in device
// memory, Executable::Bind() patches buffer addresses in place, Run()
// launches the pieces one device run at a time. docs/runtime.md is the guide.
// Not thread-safe: one thread drives one Runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "driver/device.h"
#include "isa/base/status.h"
#include "runtime/buffer.h"
#include "runtime/kernel.h"
#include "runtime/recording.h"
#include "runtime/stream.h"
#include "runtime/uop_residency.h"

namespace tessera {

struct RuntimeOptions {
  // Instructions per device run; longer streams are split into pieces.
  int64_t insn_buffer_capacity = 65536;
  // Default device timeout per run, in ms of device time (0: none).
  int64_t timeout_ms = 60000;
};

class Runtime;

// The device code memory recordings take (computed with the device's
// rounding rules before a device is opened): all loaded at once
// (`resident`), or one at a time while the kernels every Load interns stay
// (`streamed`, the largest recording's pieces). Both include the uop preamble.
struct CodeFootprint {
  uint64_t resident = 0, streamed = 0;
};
CodeFootprint CodeFootprintOf(const std::vector<const Recording*>& recs, const DeviceMemoryLayout& layout);

// A Recording loaded onto a runtime's device: its pieces live in device code
// memory; Bind patches the DRAM fields of one slot; Run uploads what changed
// and runs the pieces. Move-only; must not outlive its Runtime.
class Executable {
 public:
  Executable(Executable&& o) noexcept;
  Executable& operator=(Executable&& o) noexcept;
  ~Executable();

  const Recording& recording() const { return rec_; }
  // Binds a buffer to a slot (by index or name): checks it is live, large
  // enough for every DMA of the slot and aligned, then patches the fields.
  Status Bind(int slot, const Buffer& b);
  Status Bind(const std::string& slot_name, const Buffer& b);
  // Binds buffers[i] to slot i for every valid handle.
  Status BindAll(const std::vector<Buffer>& buffers);
  const Buffer& bound(int slot) const { return bound_[slot]; }
  // Writes patched pieces to device memory (Run does it when needed).
  Status Upload();
  // Runs every piece (timeout_ms per device run; < 0: the runtime's default).
  Status Run(int64_t timeout_ms = -1);
  // Counters summed over the device runs of the last Run.
  const DeviceCounters& counters() const { return counters_; }
  int64_t patched_fields() const { return patched_fields_; }

 private:
  friend class Runtime;
  explicit Executable(Runtime* rt) : rt_(rt) {}
  void Release();

  Runtime* rt_ = nullptr;
  Recording rec_;
  std::vector<uint64_t> kernel_phys_;
  std::vector<Buffer> bound_;
  std::vector<std::vector<uint32_t>> relocs_of_slot_;
  std::vector<DeviceAllocation> code_;
  std::vector<bool> dirty_;
  std::vector<uint8_t> upload_buf_;
  DeviceCounters counters_;
  int64_t patched_fields_ = 0;
};

class Runtime {
 public:
  static StatusOr<std::unique_ptr<Runtime>> Create(std::unique_ptr<Device> device, const RuntimeOptions& opts = {});
  ~Runtime();

  Device& device() { return *device_; }
  const HwConfig& config() const { return device_->config(); }
  const RuntimeOptions& options() const { return opts_; }

  // --- buffers in the device's data region ---
  StatusOr<Buffer> Alloc(uint64_t bytes, const std::string& name);
  Status Free(const Buffer& b);
  bool IsLive(const Buffer& b) const;
  Status CopyIn(const Buffer& b, const void* src, uint64_t bytes, uint64_t offset = 0);
  Status CopyOut(const Buffer& b, void* dst, uint64_t bytes, uint64_t offset = 0);

  // --- JIT ---
  Stream NewStream(const std::string& name = "stream");
  KernelCache& kernel_cache() { return kernel_cache_; }

  // --- execution ---
  // Checks the recording against this device (ISA fingerprint, instruction
  // words, relocations), places its kernels and pieces in device memory and
  // binds the buffers it was recorded against.
  StatusOr<Executable> Load(const Recording& rec);
  // Load, bind `bindings` (by slot; may be empty), run, unload.
  Status Run(const Recording& rec, const std::vector<Buffer>& bindings = {}, int64_t timeout_ms = -1);
  // Counters of the last Executable::Run (or Runtime::Run).
  const DeviceCounters& last_counters() const { return last_counters_; }

  // The model of the uop scratchpad after the last run. Invalidate it when
  // something else ran on the device.
  const UopResidency& uop_residency() const { return uops_; }
  void InvalidateUopResidency() { uops_.Clear(); }

  struct Stats {
    int64_t device_runs = 0;     // pieces and preambles launched
    int64_t uop_preambles = 0;   // runs that restored uops a recording assumed resident
    int64_t kernel_uploads = 0;  // kernels copied to device DRAM (first use)
    int64_t kernel_bytes = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  friend class Executable;
  Runtime(std::unique_ptr<Device> device, const RuntimeOptions& opts);
  StatusOr<uint64_t> InternKernel(const std::shared_ptr<const UopImage>& img);
  Status RestoreUops(Executable* x, int64_t timeout_ms);
  Status CheckRecording(const Recording& rec) const;

  struct Live {
    uint64_t phys, bytes;
    std::string name;
  };
  struct StoredKernel {
    std::shared_ptr<const UopImage> image;
    uint64_t phys;
  };

  std::unique_ptr<Device> device_;
  RuntimeOptions opts_;
  uint64_t serial_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, Live> live_;
  std::unordered_map<uint64_t, std::string> freed_;
  std::unordered_map<uint64_t, std::vector<StoredKernel>> kernels_;  // by signature
  KernelCache kernel_cache_;
  UopResidency uops_;
  DeviceAllocation preamble_{};
  DeviceCounters last_counters_;
  Stats stats_;
};

}  // namespace tessera
