#include "compiler/ir/type.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace tessera::ir {

bool QuantParams::symmetric() const {
  for (int32_t z : zero_point)
    if (z != 0) return false;
  return true;
}

bool QuantParams::operator==(const QuantParams& o) const {
  if (axis != o.axis || zero_point != o.zero_point || scale.size() != o.scale.size()) return false;
  for (size_t i = 0; i < scale.size(); ++i)  // bitwise, so -0/NaN never appear equal by accident
    if (std::memcmp(&scale[i], &o.scale[i], sizeof(float)) != 0) return false;
  return true;
}

QuantParams QuantParams::PerTensor(float scale, int32_t zero_point) {
  QuantParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

QuantParams QuantParams::PerAxis(int axis, std::vector<float> scales) {
  QuantParams q;
  q.axis = axis;
  q.zero_point.assign(scales.size(), 0);
  q.scale = std::move(scales);
  return q;
}

bool TensorType::operator==(const TensorType& o) const {
  return dtype == o.dtype && shape == o.shape && quant == o.quant;
}

std::string FloatToString(float f) { return fmt::format("{}", f); }

bool IsPerChannelOf(const Shape& factor, const Shape& x) {
  return x.size() == 4 && factor.size() == 4 && factor[0] == x[0] && factor[1] == x[1] && factor[2] == 1 &&
         factor[3] == 1;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string TypeToString(const TensorType& t) {
  std::string s = std::string(DTypeName(t.dtype)) + ShapeToString(t.shape);
  if (!t.quant) return s;
  const QuantParams& q = *t.quant;
  s += "<";
  if (q.per_axis()) {
    s += fmt::format("axis={}, s=[", q.axis);
    for (size_t i = 0; i < q.scale.size(); ++i) s += (i ? ", " : "") + FloatToString(q.scale[i]);
    s += "]";
    if (!q.symmetric()) s += fmt::format(", zp=[{}]", fmt::join(q.zero_point, ", "));
  } else {
    s += "s=" + FloatToString(q.scale.empty() ? 0.f : q.scale[0]);
    if (!q.symmetric()) s += fmt::format(", zp={}", q.zero_point[0]);
  }
  return s + ">";
}

Status ValidateShape(const Shape& shape, const std::string& what) {
  if (shape.size() > 8) return InvalidArgumentError("{}: rank {} exceeds the limit of 8", what, shape.size());
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgumentError("{}: negative dimension {} in {}", what, d, ShapeToString(shape));
    if (d == 0) empty = true;
  }
  if (empty) return OkStatus();
  for (int64_t d : shape) {
    if (n > kMaxTensorElements / d)
      return ResourceExhaustedError("{}: shape {} exceeds the limit of {} elements", what, ShapeToString(shape),
                                    kMaxTensorElements);
    n *= d;
  }
  return OkStatus();
}

Status ValidateQuant(const TensorType& t, const std::string& what) {
  if (!t.quant) return OkStatus();
  const QuantParams& q = *t.quant;
  if (t.dtype == DType::kF32 || t.dtype == DType::kI64 || t.dtype == DType::kBool)
    return InvalidArgumentError("{}: quantization parameters on a {} tensor", what, DTypeName(t.dtype));
  if (q.scale.empty() || q.scale.size() != q.zero_point.size())
    return InvalidArgumentError("{}: {} scales but {} zero points", what, q.scale.size(), q.zero_point.size());
  if (q.per_axis()) {
    if (q.axis >= t.rank())
      return InvalidArgumentError("{}: quantization axis {} out of range for rank {}", what, q.axis, t.rank());
    if (static_cast<int64_t>(q.scale.size()) != t.shape[q.axis])
      return InvalidArgumentError("{}: {} scales for axis {} of size {}", what, q.scale.size(), q.axis,
                                  t.shape[q.axis]);
  } else if (q.axis != -1 || q.scale.size() != 1) {
    return InvalidArgumentError("{}: per-tensor quantization needs exactly one scale", what);
  }
  for (float s : q.scale)
    if (!(s > 0) || !std::isfinite(s))
      return InvalidArgumentError("{}: quantization scale {} is not positive and finite", what, s);
  for (int32_t z : q.zero_point)
    if (z < DTypeMin(t.dtype) || z > DTypeMax(t.dtype))
      return InvalidArgumentError("{}: zero point {} out of range for {}", what, z, DTypeName(t.dtype));
  return OkStatus();
}

}  // namespace tessera::ir
