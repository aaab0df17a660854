// The `rtl` backend's registry row: picks the Verilated model built for the
// config (driver/rtl/rtl_models.h) and opens it with the backend's options.
#include <fmt/format.h>

#include "driver/registry.h"
#include "driver/rtl/rtl_models.h"

namespace tessera {
namespace rtl {
namespace {

constexpr char kVcd[] = "vcd";

// Parameters the harness, not the RTL, implements.
bool HarnessParam(const ParamInfo& p) { return p.key == "clock_mhz" || p.key == "dram.latency_cycles"; }

std::string Mismatch(const HwConfig& want, const HwConfig& built) {
  std::string diff;
  for (const ParamInfo& p : kParams) {
    if (HarnessParam(p)) continue;
    const std::string a = ParamValueText(p, want), b = ParamValueText(p, built);
    if (a != b) diff += fmt::format("{}{} {} (built: {})", diff.empty() ? "" : ", ", p.key, a, b);
  }
  return diff;
}

}  // namespace

StatusOr<const RtlModel*> FindRtlModel(const HwConfig& cfg) {
  std::string have;
  for (const RtlModel& m : RtlModels()) {
    auto built = ParseHwConfig(m.config_json, fmt::format("the rtl model '{}'", m.name));
    TSR_CHECK(built.ok(), "{}", built.status().ToString());
    if (built->isa_fingerprint == cfg.isa_fingerprint && Mismatch(cfg, *built).empty()) return &m;
    have += fmt::format("{}{} (0x{:016x})", have.empty() ? "" : ", ", m.name, built->isa_fingerprint);
  }
  return NotFoundError(
      "the rtl backend has no Verilated model for config '{}' (ISA fingerprint 0x{:016x}); this build has {}. "
      "Build one: cmake -DTESSERA_RTL_CONFIGS=\"default;tiny;/path/to/{}.json\" and rebuild",
      cfg.name, cfg.isa_fingerprint, have.empty() ? "none" : have, cfg.name);
}

namespace {

StatusOr<std::unique_ptr<Device>> OpenRtl(const HwConfig& cfg, const DeviceOptions& opts) {
  TSR_ASSIGN_OR_RETURN(const RtlModel* m, FindRtlModel(cfg));
  return m->open(cfg, opts, opts.backend.String(kVcd));
}

}  // namespace
}  // namespace rtl

BackendInfo RtlBackend() {
  BackendInfo b;
  b.name = "rtl";
  b.description = "the Verilog RTL (hw/rtl) under Verilator with the contract's AXI4 memory";
  b.has_timing = true;
  b.open = rtl::OpenRtl;
  b.options = {{rtl::kVcd, BackendOptionType::kString,
                "write a VCD waveform of the whole run to this file (models built with -DTESSERA_RTL_VCD=ON)"}};
  return b;
}

}  // namespace tessera
