// Front-half figures (docs/performance.md, "Compiler front half"): import,
// passes and quantization time for ResNet-18, and CPU executor latency for
// ResNet-18 / MobileNetV2 in fp32 and int8. Models come from <build>/models
// (the tessera_models target generates them).
#include <benchmark/benchmark.h>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"

namespace tessera {
namespace {

std::string Path(const std::string& model, const std::string& file) {
  return std::string(TESSERA_MODELS_DIR) + "/" + model + "/" + file;
}

ir::Tensor LoadOrDie(const std::string& path) {
  auto t = compiler::LoadNpyTensor(path);
  TSR_CHECK(t.ok(), "{}", t.status().ToString());
  return std::move(*t);
}

void BM_Import(benchmark::State& state, const std::string& model) {
  for (auto _ : state) {
    auto g = compiler::LoadModel(Path(model, "model.onnx"));
    TSR_CHECK(g.ok(), "{}", g.status().ToString());
    benchmark::DoNotOptimize(g);
  }
}

// Import + the float passes, and with `int8` also calibration on the model's
// calib.npy (8 images) and quantization.
void BM_Compile(benchmark::State& state, const std::string& model, bool int8) {
  const ir::Tensor calib = LoadOrDie(Path(model, "calib.npy"));
  compiler::CompileOptions o;
  o.quantize = int8;
  o.calibration = &calib;
  for (auto _ : state) {
    auto c = compiler::Compile(Path(model, "model.onnx"), o);
    TSR_CHECK(c.ok(), "{}", c.status().ToString());
    state.counters["import_ms"] = c->import_seconds * 1e3;
    state.counters["passes_ms"] = c->pass_seconds * 1e3;
    state.counters["quantize_ms"] = c->quant_seconds * 1e3;
  }
}

void BM_Run(benchmark::State& state, const std::string& model, bool int8) {
  const ir::Tensor calib = LoadOrDie(Path(model, "calib.npy"));
  const ir::Tensor x = LoadOrDie(Path(model, "input.npy"));
  compiler::CompileOptions o;
  o.quantize = int8;
  o.calibration = &calib;
  auto c = compiler::Compile(Path(model, "model.onnx"), o);
  TSR_CHECK(c.ok(), "{}", c.status().ToString());
  auto ex = exec::Executor::Create(*c->graph);
  TSR_CHECK(ex.ok(), "{}", ex.status().ToString());
  for (auto _ : state) {
    auto out = (*ex)->Run({x});
    TSR_CHECK(out.ok(), "{}", out.status().ToString());
    benchmark::DoNotOptimize(out);
  }
}

BENCHMARK_CAPTURE(BM_Import, resnet18, std::string("resnet18"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compile, resnet18_fp32, std::string("resnet18"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compile, resnet18_int8, std::string("resnet18"), true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Run, resnet18_fp32, std::string("resnet18"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Run, resnet18_int8, std::string("resnet18"), true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Run, mobilenet_v2_fp32, std::string("mobilenet_v2"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Run, mobilenet_v2_int8, std::string("mobilenet_v2"), true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
