#include "driver/registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace tessera {
namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::vector<std::string> Names(bool built, bool devices_only) {
  std::vector<std::string> out;
  for (const BackendInfo& b : Backends())
    if (b.built() == built && (!devices_only || b.is_device())) out.push_back(b.name);
  return out;
}

std::string UnbuiltNote() {
  const std::vector<std::string> unbuilt = Names(false, false);
  return unbuilt.empty() ? "" : "; known but not built: " + Join(unbuilt);
}

}  // namespace

BackendInfo CpuBackend() {
  BackendInfo b;
  b.name = "cpu";
  b.description = "int8 CPU reference executor of compiled models (the golden model; no device)";
  return b;
}

const std::vector<BackendInfo>& Backends() {
  static const std::vector<BackendInfo> rows = [] {
    std::vector<BackendInfo> r = RegisteredBackends();
    std::stable_partition(r.begin(), r.end(), [](const BackendInfo& b) { return b.built(); });
    for (size_t i = 0; i < r.size(); ++i)
      for (size_t j = i + 1; j < r.size(); ++j)
        TSR_CHECK(r[i].name != r[j].name, "backend '{}' is registered twice", r[i].name);
    return r;
  }();
  return rows;
}

std::string BuiltTargetList() { return Join(Names(true, false)); }
std::vector<std::string> DeviceTargets() { return Names(true, true); }
std::vector<std::string> SelfContainedDeviceTargets() {
  std::vector<std::string> out;
  for (const BackendInfo& b : Backends())
    if (b.built() && b.is_device() && !b.needs_hardware) out.push_back(b.name);
  return out;
}

StatusOr<const BackendInfo*> FindBackend(const std::string& name) {
  for (const BackendInfo& b : Backends()) {
    if (b.name != name) continue;
    if (!b.built())
      return UnimplementedError("target '{}' ({}) is not built in: {}; this build has: {}", name, b.description,
                                b.enable, BuiltTargetList());
    return &b;
  }
  return InvalidArgumentError("unknown target '{}' (this build has: {}{})", name, BuiltTargetList(), UnbuiltNote());
}

StatusOr<const BackendInfo*> FindDeviceBackend(const std::string& name) {
  TSR_ASSIGN_OR_RETURN(const BackendInfo* b, FindBackend(name));
  if (!b->is_device())
    return InvalidArgumentError("target '{}' ({}) is not a device: it runs compiled models only; device targets: {}",
                                name, b->description, Join(DeviceTargets()));
  return b;
}

Status CheckBackendOptions(const BackendInfo& b, const BackendOptionValues& values) {
  for (const auto& [name, value] : values.values()) {
    const std::string& key = name;  // C++17 lambdas cannot capture a structured binding (clang)
    auto it = std::find_if(b.options.begin(), b.options.end(), [&](const BackendOption& o) { return o.name == key; });
    if (it == b.options.end()) {
      std::vector<std::string> owners;
      for (const BackendInfo& other : Backends())
        for (const BackendOption& o : other.options)
          if (o.name == name) owners.push_back(other.name);
      return InvalidArgumentError("option --{} is not an option of target '{}'{}", name, b.name,
                                  owners.empty() ? "" : " (it is an option of: " + Join(owners) + ")");
    }
    if (it->type == BackendOptionType::kInt) {
      errno = 0;
      char* end = nullptr;
      std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || errno == ERANGE)
        return InvalidArgumentError("option --{} of target '{}' takes an integer, got '{}'", name, b.name, value);
    }
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<Device>> OpenDevice(const std::string& target, const HwConfig& cfg,
                                             const DeviceOptions& opts) {
  TSR_ASSIGN_OR_RETURN(const BackendInfo* b, FindDeviceBackend(target));
  TSR_RETURN_IF_ERROR(CheckBackendOptions(*b, opts.backend));
  if (opts.trace && !b->has_timing)
    return InvalidArgumentError("target '{}' has no timing: it cannot write an instruction trace", target);
  const DeviceMemoryLayout layout = MemoryLayoutOf(cfg);
  if (opts.code_region_bytes > 0 &&
      (opts.code_region_bytes + 4095) / 4096 * 4096 + 2 * layout.guard_bytes >= cfg.dram_size_bytes)
    return ResourceExhaustedError("device '{}': a code region of {} bytes does not fit DRAM of {} bytes (config '{}')",
                                  target, opts.code_region_bytes, cfg.dram_size_bytes, cfg.name);
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, b->open(cfg, opts));
  TSR_CHECK(dev->has_timing() == b->has_timing, "backend '{}': has_timing differs from its registration", target);
  if (dev->ReadReg(regs::kId) != regs::kIdMagic)
    return FailedPreconditionError("device '{}': ID register reads 0x{:08x}, not a Tessera accelerator", target,
                                   dev->ReadReg(regs::kId));
  if (dev->ReadReg(regs::kVersion) != regs::kProtocolVersion)
    return FailedPreconditionError("device '{}': register protocol version {} (driver speaks {})", target,
                                   dev->ReadReg(regs::kVersion), regs::kProtocolVersion);
  const uint64_t fp = dev->ReadFingerprint();
  if (fp != cfg.isa_fingerprint)
    return FailedPreconditionError(
        "device '{}' reports ISA fingerprint 0x{:016x} but config '{}' has 0x{:016x}: the hardware was built for a "
        "different config",
        target, fp, cfg.name, cfg.isa_fingerprint);
  return dev;
}

}  // namespace tessera
