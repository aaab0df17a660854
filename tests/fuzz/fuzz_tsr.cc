// Compiled models (.tsr): the input is the artifact's content, sealed here
// with its digest (a random mutant never matches a digest, and the crafted
// file the threat model worries about carries a valid one). Any content is
// refused with an error or loads and runs on `ref` with zero inputs.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/backend/tsr_check.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string sealed = backend::SealModelBytes(std::string(reinterpret_cast<const char*>(data), size));
  auto m = backend::ParseModel(std::vector<uint8_t>(sealed.begin(), sealed.end()), "fuzz.tsr");
  if (!m.ok()) return 0;
  backend::RunnerOptions ro;
  ro.target = "ref";
  ro.timeout_ms = 2000;
  auto runner = backend::ModelRunner::Create(**m, ro);
  if (!runner.ok()) return 0;
  std::vector<ir::Tensor> inputs;
  for (const ir::Value* v : (*runner)->graph().inputs()) {
    if (v->type().numel() > (int64_t{1} << 22)) return 0;  // the harness's own time budget
    inputs.emplace_back(v->type().dtype, v->type().shape);
  }
  (void)(*runner)->Run(inputs);
  return 0;
}
