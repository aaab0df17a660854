// Integer helpers shared by the planners and code generators.
#pragma once

#include <cstdint>

namespace tessera {

// ceil(a / b) for a >= 0, b > 0.
constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ceil(log2(n)): the bits of an index in [0, n); 0 for n <= 1.
constexpr int CeilLog2(uint64_t n) {
  int b = 0;
  while (b < 64 && (uint64_t{1} << b) < n) ++b;
  return b;
}

}  // namespace tessera
