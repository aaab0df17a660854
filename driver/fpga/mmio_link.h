// The `mmio` link: a Linux board (Zynq) whose accelerator sits in the
// physical address map. The register window (4 KiB, AXI4-Lite on GP0) is
// mapped from a UIO device (/dev/uioN, map 0) or from /dev/mem at its
// physical address; every access is one volatile 32-bit load or store. The
// accelerator's DRAM is a physically contiguous buffer from the u-dma-buf
// kernel module (/dev/udmabufN): its physical address (sysfs phys_addr) goes
// into DRAM_BASE, so device address a is bus address phys_addr + a, and the
// host reaches it through a cached mapping with the module's sync interface
// (sync_for_device after the host writes a range, sync_for_cpu before it
// reads one). Nothing here blocks: the device's watchdog and the driver's
// host deadline bound a run.
#pragma once

#include <memory>
#include <string>

#include "driver/fpga/link.h"

namespace tessera::fpga {

struct MmioOptions {
  std::string regs_path = "/dev/uio0";  // UIO device, /dev/mem, or any mappable file
  uint64_t regs_offset = 0;             // the window's offset in it (its physical address for /dev/mem)
  std::string dma_path = "/dev/udmabuf0";
  std::string dma_sysfs;      // default: /sys/class/u-dma-buf/<basename of dma_path>
  uint64_t memory_bytes = 0;  // the config's DRAM size: the buffer must hold it
};

class MmioLink final : public Link {
 public:
  static StatusOr<std::unique_ptr<MmioLink>> Open(const MmioOptions& o);
  ~MmioLink() override;

  std::string Name() const override { return "mmio " + o_.regs_path + " + " + o_.dma_path; }
  uint64_t MemoryBytes() const override { return o_.memory_bytes; }
  uint64_t DramBase() const override { return phys_addr_; }
  Status WriteMemory(uint64_t addr, const void* src, uint64_t n) override;
  Status ReadMemory(uint64_t addr, void* dst, uint64_t n) override;
  StatusOr<uint32_t> ReadReg(uint32_t offset) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;

 private:
  explicit MmioLink(const MmioOptions& o) : o_(o) {}
  // u-dma-buf's cache maintenance of [addr, addr + n): direction 1 to the device, 2 from it.
  Status Sync(uint64_t addr, uint64_t n, bool for_device);
  Status WriteSysfs(const std::string& attr, const std::string& value);

  MmioOptions o_;
  int regs_fd_ = -1, dma_fd_ = -1;
  volatile uint32_t* regs_ = nullptr;
  void* regs_map_ = nullptr;
  uint64_t regs_map_bytes_ = 0;
  uint8_t* dma_ = nullptr;
  uint64_t dma_bytes_ = 0, phys_addr_ = 0;
};

}  // namespace tessera::fpga
