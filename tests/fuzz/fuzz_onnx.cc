// ONNX models: any bytes import or are an error naming the culprit; an
// imported graph verifies. (Byte-level mutation of serialized protobuf: the
// seeds are real models, so most mutants keep their structure.)
#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/verifier.h"
#include "compiler/onnx/importer.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto g = frontend::ImportOnnxBytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", "");
  if (!g.ok()) return 0;
  Status v = ir::Verify(**g);
  if (!v.ok()) fuzz::Broken("imported graph does not verify", v.ToString());
  return 0;
}
