// Start-up cost of a compiled model (docs/performance.md, "Start-up"):
// reading ResNet-18's .tsr, opening a session on each target (load, device
// buffers, constants uploaded, every layer's code loaded and bound), and one
// inference after that. The .tsr is compiled once, in-process, from
// <build>/models/resnet18 into the benchmark's working directory.
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstdio>

#include "compiler/backend/compile.h"
#include "compiler/backend/session.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"
#include "isa/base/check.h"
#include "isa/config.h"

namespace tessera {
namespace {

std::string ModelPath(const std::string& file) { return std::string(TESSERA_MODELS_DIR) + "/resnet18/" + file; }

// ResNet-18 compiled for the default config, saved once per process.
const std::string& TsrPath() {
  static const std::string path = [] {
    auto calib = compiler::LoadNpyTensor(ModelPath("calib.npy"));
    TSR_CHECK(calib.ok(), "{}", calib.status().ToString());
    compiler::CompileOptions co;
    co.import.symbolic_dim_value = 1;
    co.quantize = true;
    co.calibration = &*calib;
    auto front = compiler::Compile(ModelPath("model.onnx"), co);
    TSR_CHECK(front.ok(), "{}", front.status().ToString());
    auto cfg = LoadHwConfig(std::string(TESSERA_SOURCE_DIR) + "/configs/default.json");
    TSR_CHECK(cfg.ok(), "{}", cfg.status().ToString());
    auto m = backend::CompileGraph(*front->graph, *cfg);
    TSR_CHECK(m.ok(), "{}", m.status().ToString());
    const std::string p = "startup_bench_resnet18.tsr";
    Status s = backend::SaveModel(**m, p);
    TSR_CHECK(s.ok(), "{}", s.ToString());
    return p;
  }();
  return path;
}

void FileBytes(benchmark::State& state) {
  struct stat st {};
  TSR_CHECK(::stat(TsrPath().c_str(), &st) == 0, "cannot stat {}", TsrPath());
  state.counters["tsr_MB"] = static_cast<double>(st.st_size) / 1e6;
}

void BM_LoadTsr(benchmark::State& state) {
  const std::string& path = TsrPath();
  for (auto _ : state) {
    auto m = backend::LoadModelFile(path);
    TSR_CHECK(m.ok(), "{}", m.status().ToString());
    benchmark::DoNotOptimize(m);
  }
  FileBytes(state);
}

void BM_SessionOpen(benchmark::State& state, const std::string& target) {
  const std::string& path = TsrPath();
  backend::SessionOptions o;
  o.target = target;
  for (auto _ : state) {
    auto s = backend::Session::Open(path, o);
    TSR_CHECK(s.ok(), "{}", s.status().ToString());
    benchmark::DoNotOptimize(s);
  }
  FileBytes(state);
}

void BM_SessionRun(benchmark::State& state, const std::string& target) {
  backend::SessionOptions o;
  o.target = target;
  auto s = backend::Session::Open(TsrPath(), o);
  TSR_CHECK(s.ok(), "{}", s.status().ToString());
  auto x = compiler::LoadNpyTensor(ModelPath("input.npy"));
  TSR_CHECK(x.ok(), "{}", x.status().ToString());
  for (auto _ : state) {
    auto r = (*s)->Run({*x});
    TSR_CHECK(r.ok(), "{}", r.status().ToString());
    benchmark::DoNotOptimize(r);
  }
}

BENCHMARK(BM_LoadTsr)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SessionOpen, sim, std::string("sim"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SessionOpen, ref, std::string("ref"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SessionOpen, cpu, std::string("cpu"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SessionRun, sim, std::string("sim"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
