// Integer helpers shared by the planners and code generators.
#pragma once

#include <cstdint>

namespace tessera {

// ceil(a / b) for a >= 0, b > 0.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace tessera
