#include "compiler/ir/tensor_index.h"

#include <cstring>

namespace tessera::ir {

Tensor ScatterAxis(const Tensor& t, int axis, const std::vector<int64_t>& map, int64_t n) {
  Shape s = t.shape();
  const int64_t old = s[static_cast<size_t>(axis)];
  TSR_CHECK(static_cast<int64_t>(map.size()) == old, "ScatterAxis: {} indices for a dimension of {}", map.size(), old);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[static_cast<size_t>(d)];
  for (int d = axis + 1; d < t.rank(); ++d) inner *= s[static_cast<size_t>(d)];
  s[static_cast<size_t>(axis)] = n;
  Tensor r(t.dtype(), s);
  std::vector<bool> taken(static_cast<size_t>(n));
  const size_t bytes = static_cast<size_t>(inner) * DTypeSize(t.dtype());
  for (int64_t c = 0; c < old; ++c) {
    const int64_t to = map[static_cast<size_t>(c)];
    TSR_CHECK(to >= 0 && to < n, "ScatterAxis: index {} outside [0, {})", to, n);
    const bool add = taken[static_cast<size_t>(to)];
    TSR_CHECK(!add || t.dtype() == DType::kF32, "ScatterAxis: repeated index {} on a non-f32 tensor", to);
    taken[static_cast<size_t>(to)] = true;
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t src = (o * old + c) * inner, dst = (o * n + to) * inner;
      if (!add) {
        std::memcpy(r.raw() + dst * DTypeSize(t.dtype()), t.raw() + src * DTypeSize(t.dtype()), bytes);
        continue;
      }
      for (int64_t i = 0; i < inner; ++i) r.data<float>()[dst + i] += t.data<float>()[src + i];
    }
  }
  return r;
}

}  // namespace tessera::ir
