// The `fpga` backend: a real board behind a link (link.h): `uart` for the
// iCE40 board's bridge, `mmio` for a Linux (Zynq) board. The driver sequence
// is Device's; this adds the link. A link failure cannot be returned through
// the register interface (ReadReg/WriteReg have no Status), so the first one
// is kept: from then on the device reads as stopped with an internal error
// (STATUS.ERROR, ERROR_CODE "internal error"), performs no more accesses, and
// the error Device::Wait returns carries the link's message (ErrorDetail).
#include <cstdlib>
#include <thread>

#include "driver/fpga/mmio_link.h"
#include "driver/fpga/uart_link.h"
#include "driver/registry.h"

namespace tessera {
namespace {

constexpr char kTransport[] = "fpga-transport", kDevice[] = "fpga-device", kBaud[] = "fpga-baud",
               kTimeout[] = "fpga-timeout-ms", kRetries[] = "fpga-retries", kRegsAddr[] = "fpga-regs-addr",
               kDma[] = "fpga-dma", kDmaSysfs[] = "fpga-dma-sysfs";

class FpgaDevice final : public Device {
 public:
  FpgaDevice(const HwConfig& cfg, const DeviceOptions& opts, std::unique_ptr<fpga::Link> link, bool poll_sleep)
      : Device(cfg, "fpga", 0, cfg.dram_size_bytes, opts), link_(std::move(link)), poll_sleep_(poll_sleep) {}

  bool has_timing() const override { return true; }

  Status Write(uint64_t phys, const void* src, uint64_t n) override {
    if (!broken_.ok()) return broken_;
    return link_->WriteMemory(phys, src, n);
  }
  Status Read(uint64_t phys, void* dst, uint64_t n) const override {
    if (!broken_.ok()) return broken_;
    return link_->ReadMemory(phys, dst, n);
  }

  uint32_t ReadReg(uint32_t offset) override {
    if (broken_.ok()) {
      StatusOr<uint32_t> v = link_->ReadReg(offset);
      if (v.ok()) return *v;
      broken_ = v.status();
    }
    // A lost link reads as a device stopped with an internal error.
    if (offset == regs::kStatus) return regs::kStatusError;
    if (offset == regs::kErrorCode) return static_cast<uint32_t>(regs::ErrorCode::kInternal);
    if (offset == regs::kErrorInsn) return regs::kNoInsn;
    return 0xFFFFFFFFu;
  }
  void WriteReg(uint32_t offset, uint32_t value) override {
    if (broken_.ok()) broken_ = link_->WriteReg(offset, value);
  }

  const Status& link_status() const { return broken_; }

 protected:
  // A UART access takes long enough to pace the polling; a memory-mapped
  // status read does not.
  void WhileWaiting() override {
    if (poll_sleep_) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  std::string ErrorDetail() const override { return broken_.ok() ? "" : broken_.message(); }

 private:
  std::unique_ptr<fpga::Link> link_;
  bool poll_sleep_;
  mutable Status broken_;
};

StatusOr<std::unique_ptr<Device>> OpenFpga(const HwConfig& cfg, const DeviceOptions& opts) {
  const BackendOptionValues& v = opts.backend;
  const std::string transport = v.String(kTransport);
  std::unique_ptr<fpga::Link> link;
  if (transport == "uart") {
    fpga::UartOptions o;
    o.path = v.String(kDevice);
    o.baud = v.Int(kBaud, o.baud);
    o.timeout_ms = v.Int(kTimeout, o.timeout_ms);
    o.retries = v.Int(kRetries, o.retries);
    o.memory_bytes = cfg.dram_size_bytes;
    TSR_ASSIGN_OR_RETURN(link, fpga::UartLink::Open(o));
  } else if (transport == "mmio") {
    fpga::MmioOptions o;
    o.regs_path = v.String(kDevice, o.regs_path);
    const std::string at = v.String(kRegsAddr, "0");
    char* end = nullptr;
    o.regs_offset = std::strtoull(at.c_str(), &end, 0);
    if (end == at.c_str() || *end != '\0')
      return InvalidArgumentError("--{} '{}' is not an address (decimal or 0x hex)", kRegsAddr, at);
    o.dma_path = v.String(kDma, o.dma_path);
    o.dma_sysfs = v.String(kDmaSysfs);
    o.memory_bytes = cfg.dram_size_bytes;
    TSR_ASSIGN_OR_RETURN(link, fpga::MmioLink::Open(o));
  } else {
    return InvalidArgumentError(
        "target 'fpga' needs --{} uart (the iCE40 board's UART bridge) or mmio (a Linux "
        "board's memory-mapped accelerator){}",
        kTransport, transport.empty() ? "" : fmt::format("; got '{}'", transport));
  }
  // A board that does not answer fails here, with the link's own message.
  StatusOr<uint32_t> id = link->ReadReg(regs::kId);
  if (!id.ok()) return id.status().WithContext("opening target 'fpga'");
  const uint64_t base = link->DramBase();
  TSR_RETURN_IF_ERROR(link->WriteReg(regs::kDramBaseLo, static_cast<uint32_t>(base)));
  TSR_RETURN_IF_ERROR(link->WriteReg(regs::kDramBaseHi, static_cast<uint32_t>(base >> 32)));
  const bool poll_sleep = transport == "mmio";
  return std::unique_ptr<Device>(std::make_unique<FpgaDevice>(cfg, opts, std::move(link), poll_sleep));
}

}  // namespace

BackendInfo FpgaBackend() {
  BackendInfo b;
  b.name = "fpga";
  b.description = "a board (docs/fpga.md): the iCE40 board over its UART bridge, or a Zynq board memory-mapped";
  b.has_timing = true;
  b.open = OpenFpga;
  b.options = {
      {kTransport, BackendOptionType::kString, "how to reach the board: uart (iCE40) or mmio (Linux/Zynq)"},
      {kDevice, BackendOptionType::kString,
       "uart: the serial port (/dev/ttyUSB1); mmio: the register window's device (/dev/uio0, default, or "
       "/dev/mem with --fpga-regs-addr)"},
      {kBaud, BackendOptionType::kInt, "uart: the bridge's rate (default 1000000, the bitstream's)"},
      {kTimeout, BackendOptionType::kInt, "uart: ms to wait for a reply byte before retrying (default 200)"},
      {kRetries, BackendOptionType::kInt, "uart: retransmissions of a request before failing (default 3)"},
      {kRegsAddr, BackendOptionType::kString,
       "mmio: the register window's offset in --fpga-device (its physical address for /dev/mem; default 0)"},
      {kDma, BackendOptionType::kString, "mmio: the u-dma-buf device of the DRAM buffer (default /dev/udmabuf0)"},
      {kDmaSysfs, BackendOptionType::kString, "mmio: its sysfs directory (default /sys/class/u-dma-buf/<name>)"},
  };
  return b;
}

}  // namespace tessera
