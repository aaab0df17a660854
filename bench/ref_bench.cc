// Reference simulator throughput: multiply-accumulates per host second on the
// GEMM-heavy example stream, with and without the race detector, and the raw
// GEMM kernel. Run: build/bench/ref_bench (see docs/performance.md).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/bench_program.h"
#include "sim/gemm_kernel.h"
#include "sim/ref.h"

namespace tessera {
namespace {

void BM_RefGemmHeavy(benchmark::State& state, const char* config, bool races) {
  const bench::BenchProgram b = bench::LoadBenchProgram("gemm_heavy", config);
  int64_t macs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto dram = bench::FreshDram(b);
    RefSim ref(b.cfg, dram.get());
    state.ResumeTiming();
    RefOptions opts;
    opts.check_races = races;
    Status s = ref.Run(b.prog.text_addr, static_cast<int64_t>(b.prog.insns.size()), opts);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    macs += ref.stats().macs;
  }
  state.counters["MACs/s"] = benchmark::Counter(static_cast<double>(macs), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_RefGemmHeavy, default_races, "default", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefGemmHeavy, default_norace, "default", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefGemmHeavy, large_races, "large", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefGemmHeavy, tiny_races, "tiny", true)->Unit(benchmark::kMillisecond);

// One GemmStep (one uop iteration) of a BATCH x BLOCK_IN x BLOCK_OUT core.
void BM_GemmStep(benchmark::State& state) {
  const int batch = 1, k = static_cast<int>(state.range(0)), o = static_cast<int>(state.range(0));
  std::vector<int16_t> inp(batch * k, 3), wgt(k * o, -2);
  std::vector<int32_t> acc(batch * o, 0);
  for (auto _ : state) {
    GemmStep(inp.data(), wgt.data(), acc.data(), batch, k, o);
    benchmark::DoNotOptimize(acc.data());
  }
  state.counters["MACs/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * batch * k * o, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GemmStep)->Arg(4)->Arg(16)->Arg(32);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
