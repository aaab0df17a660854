#include "compiler/ir/tensor.h"

#include <cstring>

namespace tessera::ir {
namespace {

uint8_t* Alloc(size_t bytes, bool zero) {
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  TSR_CHECK(p != nullptr, "out of memory allocating {} bytes", rounded);
  if (zero) std::memset(p, 0, rounded);
  return static_cast<uint8_t*>(p);
}

uint8_t* AllocZeroed(size_t bytes) { return Alloc(bytes, true); }

}  // namespace

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (int64_t d : shape_) TSR_CHECK(d >= 0, "negative dimension {}", d);
  numel_ = NumElements(shape_);
  data_.reset(AllocZeroed(nbytes()));
}

Tensor Tensor::Uninitialized(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  for (int64_t d : t.shape_) TSR_CHECK(d >= 0, "negative dimension {}", d);
  t.numel_ = NumElements(t.shape_);
  t.data_.reset(Alloc(t.nbytes(), false));
  return t;
}

Tensor::Tensor(const Tensor& other) : dtype_(other.dtype_), shape_(other.shape_), numel_(other.numel_) {
  if (other.data_) {
    data_.reset(Alloc(nbytes(), false));
    std::memcpy(data_.get(), other.data_.get(), nbytes());
  }
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

void Tensor::Reshape(Shape shape) {
  TSR_CHECK(NumElements(shape) == numel_, "reshape changes the element count");
  shape_ = std::move(shape);
}

double Tensor::GetAsDouble(int64_t i) const {
  TSR_CHECK(i >= 0 && i < numel_, "index {} out of range", i);
  switch (dtype_) {
    case DType::kF32: return reinterpret_cast<const float*>(raw())[i];
    case DType::kI8: return reinterpret_cast<const int8_t*>(raw())[i];
    case DType::kU8: return raw()[i];
    case DType::kI32: return reinterpret_cast<const int32_t*>(raw())[i];
    case DType::kI64: return static_cast<double>(reinterpret_cast<const int64_t*>(raw())[i]);
    case DType::kBool: return raw()[i] != 0;
  }
  return 0;
}

bool Tensor::BytesEqual(const Tensor& other) const {
  return dtype_ == other.dtype_ && shape_ == other.shape_ &&
         (nbytes() == 0 || std::memcmp(raw(), other.raw(), nbytes()) == 0);
}

}  // namespace tessera::ir
