// Constructors of the backends OpenDevice knows (driver/open_device.cc).
#pragma once

#include "driver/device.h"

#include <memory>

namespace tessera {

std::unique_ptr<Device> NewRefDevice(const HwConfig &cfg, const DeviceOptions &opts);
#ifdef TESSERA_HAVE_CYCLE_SIM
std::unique_ptr<Device> NewCycleDevice(const HwConfig &cfg, const DeviceOptions &opts);
#endif

} // namespace tessera
