// The Verilated tsr_accel models of this build, one per config (CMake
// variable TESSERA_RTL_CONFIGS, driver/rtl/CMakeLists.txt), and how the
// `rtl` backend picks one for a config.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/device.h"
#include "isa/base/status.h"
#include "isa/config.h"

namespace tessera::rtl {

using OpenRtlFn = StatusOr<std::unique_ptr<Device>> (*)(const HwConfig& cfg, const DeviceOptions& opts,
                                                        const std::string& vcd);

struct RtlModel {
  const char* name;         // the config's name, as built ("default")
  const char* config_json;  // the config the model was Verilated for
  OpenRtlFn open;
};

// Generated (build/driver/rtl/models.cc).
const std::vector<RtlModel>& RtlModels();

// The model for `cfg`: the same ISA fingerprint and the same value of every
// parameter the RTL implements, i.e. all but clock_mhz and the DRAM latency
// (the harness's memory model takes L from `cfg`). Otherwise NotFound naming
// the config, the models this build has and how to build one.
StatusOr<const RtlModel*> FindRtlModel(const HwConfig& cfg);

}  // namespace tessera::rtl
