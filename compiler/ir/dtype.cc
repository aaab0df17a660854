#include "compiler/ir/dtype.h"

namespace tessera::ir {

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kI8: return "i8";
    case DType::kU8: return "u8";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kBool: return "bool";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view s) {
  for (DType t : {DType::kF32, DType::kI8, DType::kU8, DType::kI32, DType::kI64, DType::kBool})
    if (DTypeName(t) == s) return t;
  return std::nullopt;
}

int DTypeSize(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kI8: return 1;
    case DType::kU8: return 1;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kBool: return 1;
  }
  return 0;
}

bool IsInteger(DType t) { return t != DType::kF32; }

int64_t DTypeMin(DType t) {
  switch (t) {
    case DType::kI8: return -128;
    case DType::kU8: return 0;
    case DType::kI32: return INT32_MIN;
    case DType::kI64: return INT64_MIN;
    case DType::kBool: return 0;
    case DType::kF32: return INT64_MIN;
  }
  return 0;
}

int64_t DTypeMax(DType t) {
  switch (t) {
    case DType::kI8: return 127;
    case DType::kU8: return 255;
    case DType::kI32: return INT32_MAX;
    case DType::kI64: return INT64_MAX;
    case DType::kBool: return 1;
    case DType::kF32: return INT64_MAX;
  }
  return 0;
}

}  // namespace tessera::ir
