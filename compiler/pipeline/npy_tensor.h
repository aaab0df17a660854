// .npy files <-> IR tensors (isa/base/npy.h does the file format).
#pragma once

#include <string>

#include "compiler/ir/tensor.h"
#include "isa/base/npy.h"

namespace tessera::compiler {

ir::Tensor TensorFromNpy(const NpyArray& a);
NpyArray NpyFromTensor(const ir::Tensor& t);
StatusOr<ir::Tensor> LoadNpyTensor(const std::string& path);
Status SaveNpyTensor(const std::string& path, const ir::Tensor& t);

}  // namespace tessera::compiler
