// ONNX models: any bytes import or are an error naming the culprit; an
// imported graph verifies. Mutation is structure-aware (onnx_mutator.h):
// mutants stay ModelProtos with changed shapes, attributes and wiring, so
// they reach the checker, shape inference and the converters.
#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/importer.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/fuzz/onnx_mutator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto g = frontend::ImportOnnxBytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", "");
  if (!g.ok()) return 0;
  Status v = ir::Verify(**g);
  if (!v.ok()) fuzz::Broken("imported graph does not verify", v.ToString());
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return tessera::fuzz::MutateOnnxModel(data, size, max_size, seed);
}
