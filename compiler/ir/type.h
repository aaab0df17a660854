// Tensor types: element type, static shape and optional quantization
// parameters. A quantized value v of element type T represents the real
// number scale[c] * (v - zero_point[c]), where c is the index along `axis`
// (per-axis) or 0 (per-tensor, axis = -1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/ir/tensor.h"
#include "isa/base/status.h"

namespace tessera::ir {

struct QuantParams {
  std::vector<float> scale;         // 1 entry (per-tensor) or dim(axis) entries
  std::vector<int32_t> zero_point;  // same length as scale
  int axis = -1;                    // -1: per-tensor

  bool per_axis() const { return axis >= 0; }
  bool symmetric() const;  // all zero points are 0
  bool operator==(const QuantParams& o) const;
  bool operator!=(const QuantParams& o) const { return !(*this == o); }

  static QuantParams PerTensor(float scale, int32_t zero_point = 0);
  static QuantParams PerAxis(int axis, std::vector<float> scales);
};

struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;
  std::optional<QuantParams> quant;

  TensorType() = default;
  TensorType(DType d, Shape s, std::optional<QuantParams> q = std::nullopt)
      : dtype(d), shape(std::move(s)), quant(std::move(q)) {}
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const { return NumElements(shape); }
  bool operator==(const TensorType& o) const;
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};

// Largest tensor the IR accepts (elements); bounds every allocation.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 31;

// True when `factor` is [N, C, 1, 1] of the rank-4 shape `x`: one value per
// image and channel (an SE block's scale; qmul's broadcast operand).
bool IsPerChannelOf(const Shape& factor, const Shape& x);

// "f32[1,3,224,224]", "i8[1,64]<s=0.5>", "i8[8,3]<axis=0, s=[...]>".
std::string ShapeToString(const Shape& shape);
std::string TypeToString(const TensorType& t);
// Shortest text that parses back to exactly the same float.
std::string FloatToString(float f);

// Checks dims are non-negative and the element count is within the limit;
// `what` names the tensor in the error.
Status ValidateShape(const Shape& shape, const std::string& what);
// Checks scales are positive and finite, zero points fit the element type,
// axis and lengths agree with the shape.
Status ValidateQuant(const TensorType& t, const std::string& what);

}  // namespace tessera::ir
