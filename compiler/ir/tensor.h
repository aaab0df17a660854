// Tensor: a dense, C-order, 64-byte aligned buffer with an element type and a
// static shape. Used for constants in the IR and for executor buffers. Copies
// are deep; moves are cheap.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "compiler/ir/dtype.h"
#include "isa/base/check.h"

namespace tessera::ir {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for a scalar). Dimensions must be validated.
int64_t NumElements(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor.
  Tensor(DType dtype, Shape shape);
  // Contents left undefined (for results a kernel overwrites entirely).
  static Tensor Uninitialized(DType dtype, Shape shape);
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * DTypeSize(dtype_); }

  uint8_t* raw() { return data_.get(); }
  const uint8_t* raw() const { return data_.get(); }
  template <typename T>
  T* data() {
    TSR_CHECK(DTypeOf<T>::value == dtype_, "tensor element type mismatch");
    return reinterpret_cast<T*>(data_.get());
  }
  template <typename T>
  const T* data() const {
    TSR_CHECK(DTypeOf<T>::value == dtype_, "tensor element type mismatch");
    return reinterpret_cast<const T*>(data_.get());
  }
  // Same bytes, new shape with the same element count.
  void Reshape(Shape shape);
  // Element i converted to double (any dtype).
  double GetAsDouble(int64_t i) const;
  bool BytesEqual(const Tensor& other) const;

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  DType dtype_ = DType::kF32;
  Shape shape_;
  int64_t numel_ = 1;
  std::unique_ptr<uint8_t[], Free> data_;
};

}  // namespace tessera::ir
