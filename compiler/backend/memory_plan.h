// Device memory planning for a compiled model: activation buffers whose live
// ranges (first to last step that touches them) do not overlap share one
// arena buffer (greedy, best fit, in order of first use). Constant buffers are
// left alone. Rewrites buffer names in steps and device values.
#pragma once

#include <cstdint>

namespace tessera::tsr {
class Model;
}

namespace tessera::backend {

struct MemoryPlanReport {
  uint64_t activation_bytes_before = 0, activation_bytes_after = 0, constant_bytes = 0;
  int buffers_before = 0, buffers_after = 0;
};

MemoryPlanReport PlanDeviceMemory(tsr::Model* m);

}  // namespace tessera::backend
