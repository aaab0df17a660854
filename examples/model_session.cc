// model_session: an ONNX model compiled in-process and run through the model
// session (compiler/backend/session.h) — the C++ API walk-through of
// docs/compiler-backend.md. Quantizes with the calibration batch, compiles
// for a config, runs the test inputs on a target of the backend registry and
// prints the per-layer table, the summary and, with labels, the accuracy.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

#include "compiler/backend/compile.h"
#include "compiler/backend/session.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"
#include "driver/registry.h"

namespace tessera::example {
namespace {

struct Args {
  std::string dir, config = "configs/default.json", target = "sim";
};

StatusOr<double> Main(const Args& a) {
  // 1. Front half: ONNX -> int8 graph, calibrated on calib.npy.
  TSR_ASSIGN_OR_RETURN(ir::Tensor calib, compiler::LoadNpyTensor(a.dir + "/calib.npy"));
  compiler::CompileOptions co;
  co.import.symbolic_dim_value = 1;
  co.quantize = true;
  co.calibration = &calib;
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult front, compiler::Compile(a.dir + "/model.onnx", co));
  // 2. Back half: the int8 graph -> a compiled model for the config.
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(a.config));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> model, backend::CompileGraph(*front.graph, cfg));
  // 3. The session: open on a target, run the whole input batch.
  backend::SessionOptions so;
  so.target = a.target;
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<backend::Session> session, backend::Session::Open(std::move(model), so));
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(a.dir + "/test_x.npy"));
  TSR_ASSIGN_OR_RETURN(backend::RunResult r, session->Run({x}));
  if ((*FindBackend(a.target))->is_device()) std::fputs(session->LayerTable(r.stats).c_str(), stdout);
  std::printf("%lld inputs on %s: %s\n", static_cast<long long>(r.stats.batches), a.target.c_str(),
              session->Summary(r.stats).c_str());
  // 4. Top-1 accuracy against test_y.npy (int64 labels), one output row per input.
  TSR_ASSIGN_OR_RETURN(ir::Tensor labels, compiler::LoadNpyTensor(a.dir + "/test_y.npy"));
  const ir::Tensor& y = r.outputs[0];
  const int64_t n = y.dim(0), classes = y.nbytes() / sizeof(float) / n;
  if (labels.dtype() != ir::DType::kI64 || labels.dim(0) != n)
    return InvalidArgumentError("{}/test_y.npy: expected {} int64 labels", a.dir, n);
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float* row = y.data<float>() + i * classes;
    correct += std::max_element(row, row + classes) - row == labels.data<int64_t>()[i];
  }
  return static_cast<double>(correct) / n;
}

}  // namespace
}  // namespace tessera::example

int main(int argc, char** argv) {
  tessera::example::Args a;
  CLI::App app{"compile an ONNX classifier and run its test inputs through the model session"};
  app.add_option("dir", a.dir, "directory with model.onnx, calib.npy, test_x.npy, test_y.npy")->required();
  app.add_option("-c,--config", a.config, "hardware config JSON")->capture_default_str();
  app.add_option("--target", a.target, "a target of the backend registry")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  auto acc = tessera::example::Main(a);
  if (!acc.ok()) {
    std::fprintf(stderr, "model_session: error: %s\n", acc.status().ToString().c_str());
    return 1;
  }
  std::printf("top-1 accuracy %.4f\n", *acc);
  return 0;
}
