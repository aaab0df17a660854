// OpenDevice: the backend factory, and the identity checks every backend
// passes through (ID magic, protocol version, ISA fingerprint).
#include "driver/backends.h"

namespace tessera {

std::vector<std::string> DeviceTargets() { return {"ref", "sim"}; }

StatusOr<std::unique_ptr<Device>> OpenDevice(const std::string& target, const HwConfig& cfg,
                                             const DeviceOptions& opts) {
  std::unique_ptr<Device> dev;
  if (target == "ref") dev = NewRefDevice(cfg, opts);
  if (target == "sim") dev = NewCycleDevice(cfg, opts);
  if (dev == nullptr) {
    std::string known;
    for (const std::string& t : DeviceTargets()) known += (known.empty() ? "" : ", ") + t;
    if (target == "systemc" || target == "rtl" || target == "fpga")
      return UnimplementedError("device target '{}' is not available in this build (available: {})", target, known);
    return InvalidArgumentError("unknown device target '{}' (available: {})", target, known);
  }
  if (dev->ReadReg(regs::kId) != regs::kIdMagic)
    return FailedPreconditionError("device '{}': ID register reads 0x{:08x}, not a Tessera accelerator", target,
                                   dev->ReadReg(regs::kId));
  if (dev->ReadReg(regs::kVersion) != regs::kProtocolVersion)
    return FailedPreconditionError("device '{}': register protocol version {} (driver speaks {})", target,
                                   dev->ReadReg(regs::kVersion), regs::kProtocolVersion);
  const uint64_t fp = dev->ReadFingerprint();
  if (fp != cfg.isa_fingerprint)
    return FailedPreconditionError(
        "device '{}' reports ISA fingerprint 0x{:016x} but config '{}' "
        "has 0x{:016x}: the hardware was built for a "
        "different config",
        target, fp, cfg.name, cfg.isa_fingerprint);
  return dev;
}

}  // namespace tessera
