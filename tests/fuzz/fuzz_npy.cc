// .npy arrays: any bytes parse or are an error; a parsed array with a valid
// shape becomes a tensor whose size matches its data.
#include <cstdint>
#include <vector>

#include "compiler/ir/type.h"
#include "compiler/pipeline/npy_tensor.h"
#include "isa/base/npy.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto a = ParseNpy(std::vector<uint8_t>(data, data + size), "fuzz.npy");
  if (!a.ok() || !ir::ValidateShape(a->shape, "fuzz.npy").ok()) return 0;
  ir::Tensor t = compiler::TensorFromNpy(*a);
  if (t.nbytes() != a->data.size()) fuzz::Broken("npy", "tensor size differs from the data");
  return 0;
}
