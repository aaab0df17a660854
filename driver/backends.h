// Constructors of the backends OpenDevice knows (driver/open_device.cc).
#pragma once

#include <memory>

#include "driver/device.h"

namespace tessera {

std::unique_ptr<Device> NewRefDevice(const HwConfig& cfg, const DeviceOptions& opts);
std::unique_ptr<Device> NewCycleDevice(const HwConfig& cfg, const DeviceOptions& opts);

}  // namespace tessera
