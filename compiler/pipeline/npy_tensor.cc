#include "compiler/pipeline/npy_tensor.h"

#include <cstring>

#include "compiler/ir/type.h"

namespace tessera::compiler {
namespace {

ir::DType FromNpy(NpyDType t) {
  switch (t) {
    case NpyDType::kF32: return ir::DType::kF32;
    case NpyDType::kI8: return ir::DType::kI8;
    case NpyDType::kU8: return ir::DType::kU8;
    case NpyDType::kI32: return ir::DType::kI32;
    case NpyDType::kI64: return ir::DType::kI64;
    case NpyDType::kBool: return ir::DType::kBool;
  }
  return ir::DType::kF32;
}

NpyDType ToNpy(ir::DType t) {
  switch (t) {
    case ir::DType::kF32: return NpyDType::kF32;
    case ir::DType::kI8: return NpyDType::kI8;
    case ir::DType::kU8: return NpyDType::kU8;
    case ir::DType::kI32: return NpyDType::kI32;
    case ir::DType::kI64: return NpyDType::kI64;
    case ir::DType::kBool: return NpyDType::kBool;
  }
  return NpyDType::kF32;
}

}  // namespace

ir::Tensor TensorFromNpy(const NpyArray& a) {
  ir::Tensor t(FromNpy(a.dtype), a.shape);
  if (!a.data.empty()) std::memcpy(t.raw(), a.data.data(), a.data.size());
  return t;
}

NpyArray NpyFromTensor(const ir::Tensor& t) {
  NpyArray a;
  a.dtype = ToNpy(t.dtype());
  a.shape = t.shape();
  a.data.assign(t.raw(), t.raw() + t.nbytes());
  return a;
}

StatusOr<ir::Tensor> LoadNpyTensor(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(path));
  TSR_RETURN_IF_ERROR(ir::ValidateShape(a.shape, path));
  return TensorFromNpy(a);
}

Status SaveNpyTensor(const std::string& path, const ir::Tensor& t) { return WriteNpy(path, NpyFromTensor(t)); }

}  // namespace tessera::compiler
