// Index reads and index-mapped copies of constant tensors, shared by the
// kernels and the rewrites that move channels (gathers, padding).
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/tensor.h"

namespace tessera::ir {

// Element i of an int32 or int64 tensor, as int64.
inline int64_t IndexAt(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kI64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
}

// t with index c of dimension `axis` moved to map[c] of a dimension of n;
// indices no c maps to are zero. f32 values that map[] sends to the same index
// add up (a conv absorbing a gather that repeats a channel); for other types
// map[] must be injective.
Tensor ScatterAxis(const Tensor& t, int axis, const std::vector<int64_t>& map, int64_t n);

}  // namespace tessera::ir
