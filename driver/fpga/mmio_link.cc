#include "driver/fpga/mmio_link.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace tessera::fpga {
namespace {

constexpr uint64_t kWindowBytes = 4096;

StatusOr<uint64_t> ReadSysfsNumber(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!f || !(f >> text)) return NotFoundError("fpga mmio: cannot read {} (is the u-dma-buf module loaded?)", path);
  char* end = nullptr;
  const uint64_t v = std::strtoull(text.c_str(), &end, 0);
  if (end == text.c_str() || *end != '\0')
    return InvalidArgumentError("fpga mmio: {} holds '{}', not a number", path, text);
  return v;
}

std::string Basename(const std::string& p) {
  const size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

StatusOr<std::unique_ptr<MmioLink>> MmioLink::Open(const MmioOptions& opts) {
  std::unique_ptr<MmioLink> l(new MmioLink(opts));
  MmioOptions& o = l->o_;
  if (o.dma_sysfs.empty()) o.dma_sysfs = "/sys/class/u-dma-buf/" + Basename(o.dma_path);
  // The register window.
  const long page = ::sysconf(_SC_PAGESIZE);
  const uint64_t base = o.regs_offset & ~static_cast<uint64_t>(page - 1);
  l->regs_fd_ = ::open(o.regs_path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
  if (l->regs_fd_ < 0)
    return NotFoundError("fpga mmio: cannot open the register window {}: {}", o.regs_path, std::strerror(errno));
  l->regs_map_bytes_ = o.regs_offset - base + kWindowBytes;
  void* m =
      ::mmap(nullptr, l->regs_map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, l->regs_fd_, static_cast<off_t>(base));
  if (m == MAP_FAILED)
    return InvalidArgumentError("fpga mmio: cannot map 4 KiB of {} at 0x{:x}: {}", o.regs_path, o.regs_offset,
                                std::strerror(errno));
  l->regs_map_ = m;
  l->regs_ = reinterpret_cast<volatile uint32_t*>(static_cast<uint8_t*>(m) + (o.regs_offset - base));
  // The DMA buffer.
  TSR_ASSIGN_OR_RETURN(l->phys_addr_, ReadSysfsNumber(o.dma_sysfs + "/phys_addr"));
  TSR_ASSIGN_OR_RETURN(l->dma_bytes_, ReadSysfsNumber(o.dma_sysfs + "/size"));
  if (l->dma_bytes_ < o.memory_bytes)
    return FailedPreconditionError(
        "fpga mmio: the DMA buffer {} holds {} bytes but the config's DRAM is {} bytes: load u-dma-buf with "
        "size={}",
        o.dma_path, l->dma_bytes_, o.memory_bytes, o.memory_bytes);
  if (l->phys_addr_ % 4096 != 0)
    return FailedPreconditionError("fpga mmio: the DMA buffer's physical address 0x{:x} is not 4 KiB aligned",
                                   l->phys_addr_);
  l->dma_fd_ = ::open(o.dma_path.c_str(), O_RDWR | O_CLOEXEC);
  if (l->dma_fd_ < 0)
    return NotFoundError("fpga mmio: cannot open the DMA buffer {}: {}", o.dma_path, std::strerror(errno));
  m = ::mmap(nullptr, o.memory_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, l->dma_fd_, 0);
  if (m == MAP_FAILED)
    return InvalidArgumentError("fpga mmio: cannot map {} bytes of {}: {}", o.memory_bytes, o.dma_path,
                                std::strerror(errno));
  l->dma_ = static_cast<uint8_t*>(m);
  TSR_RETURN_IF_ERROR(l->WriteSysfs("sync_mode", "1"));  // cached mapping, explicit sync
  return l;
}

MmioLink::~MmioLink() {
  if (dma_) ::munmap(dma_, o_.memory_bytes);
  if (regs_map_) ::munmap(regs_map_, regs_map_bytes_);
  if (dma_fd_ >= 0) ::close(dma_fd_);
  if (regs_fd_ >= 0) ::close(regs_fd_);
}

Status MmioLink::WriteSysfs(const std::string& attr, const std::string& value) {
  const std::string path = o_.dma_sysfs + "/" + attr;
  std::ofstream f(path);
  if (!(f << value << "\n") || !f.flush())
    return FailedPreconditionError("fpga mmio: cannot write '{}' to {}", value, path);
  return OkStatus();
}

Status MmioLink::Sync(uint64_t addr, uint64_t n, bool for_device) {
  TSR_RETURN_IF_ERROR(WriteSysfs("sync_offset", std::to_string(addr)));
  TSR_RETURN_IF_ERROR(WriteSysfs("sync_size", std::to_string(n)));
  TSR_RETURN_IF_ERROR(WriteSysfs("sync_direction", for_device ? "1" : "2"));
  return WriteSysfs(for_device ? "sync_for_device" : "sync_for_cpu", "1");
}

Status MmioLink::WriteMemory(uint64_t addr, const void* src, uint64_t n) {
  if (addr > o_.memory_bytes || n > o_.memory_bytes - addr)
    return OutOfRangeError("fpga {}: write of [0x{:x}, 0x{:x}) is outside the {} bytes of DRAM", Name(), addr, addr + n,
                           o_.memory_bytes);
  std::memcpy(dma_ + addr, src, n);
  return Sync(addr, n, /*for_device=*/true);
}

Status MmioLink::ReadMemory(uint64_t addr, void* dst, uint64_t n) {
  if (addr > o_.memory_bytes || n > o_.memory_bytes - addr)
    return OutOfRangeError("fpga {}: read of [0x{:x}, 0x{:x}) is outside the {} bytes of DRAM", Name(), addr, addr + n,
                           o_.memory_bytes);
  TSR_RETURN_IF_ERROR(Sync(addr, n, /*for_device=*/false));
  std::memcpy(dst, dma_ + addr, n);
  return OkStatus();
}

StatusOr<uint32_t> MmioLink::ReadReg(uint32_t offset) {
  if (offset % 4 != 0 || offset >= kWindowBytes)
    return OutOfRangeError("fpga {}: register offset 0x{:x} is outside the window", Name(), offset);
  return regs_[offset / 4];
}

Status MmioLink::WriteReg(uint32_t offset, uint32_t value) {
  if (offset % 4 != 0 || offset >= kWindowBytes)
    return OutOfRangeError("fpga {}: register offset 0x{:x} is outside the window", Name(), offset);
  regs_[offset / 4] = value;
  return OkStatus();
}

}  // namespace tessera::fpga
