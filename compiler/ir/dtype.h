// Element types of IR tensors. f32 for float graphs; i8/u8 for quantized
// activations and weights; i32 for accumulators and biases; i64 for shapes
// and indices; bool for masks and comparison results (one byte, 0 or 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera::ir {

enum class DType : uint8_t { kF32, kI8, kU8, kI32, kI64, kBool };

std::string_view DTypeName(DType t);  // "f32", "i8", ...
std::optional<DType> ParseDType(std::string_view s);
int DTypeSize(DType t);  // bytes per element
bool IsInteger(DType t);
// Representable range of an integer type (f32: the float range is not used).
int64_t DTypeMin(DType t);
int64_t DTypeMax(DType t);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kI8;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kU8;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kI32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kI64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};

}  // namespace tessera::ir
