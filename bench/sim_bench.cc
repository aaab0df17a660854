// Cycle-accurate simulator speed: simulated cycles per host second on a
// GEMM-heavy and a DMA-heavy stream, with data computed and timing-only, and
// ref on the same streams for the speed ratio. Single thread.
// Run: build/bench/sim_bench (figures and command in docs/performance.md).
#include <benchmark/benchmark.h>

#include "bench/bench_program.h"
#include "sim/cycle_sim.h"
#include "sim/ref.h"

namespace tessera {
namespace {

void BM_Sim(benchmark::State& state, const char* program, const char* config, bool data) {
  const bench::BenchProgram s = bench::LoadBenchProgram(program, config);
  int64_t cycles = 0, macs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto dram = bench::FreshDram(s);
    CycleSim sim(s.cfg, dram.get());
    CycleOptions opts;
    opts.compute_data = data;
    state.ResumeTiming();
    Status st = sim.Run(s.prog.text_addr, static_cast<int64_t>(s.prog.insns.size()), opts);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    cycles += sim.stats().cycles();
    macs += sim.stats().counters.macs;
  }
  state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["MACs/s"] = benchmark::Counter(static_cast<double>(macs), benchmark::Counter::kIsRate);
}

void BM_Ref(benchmark::State& state, const char* program, const char* config) {
  const bench::BenchProgram s = bench::LoadBenchProgram(program, config);
  for (auto _ : state) {
    state.PauseTiming();
    auto dram = bench::FreshDram(s);
    RefSim ref(s.cfg, dram.get());
    RefOptions opts;
    opts.check_races = false;
    state.ResumeTiming();
    Status st = ref.Run(s.prog.text_addr, static_cast<int64_t>(s.prog.insns.size()), opts);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
}

BENCHMARK_CAPTURE(BM_Sim, gemm_heavy_default_data, "gemm_heavy", "default", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sim, gemm_heavy_default_timing, "gemm_heavy", "default", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Ref, gemm_heavy_default, "gemm_heavy", "default")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Sim, eltwise_add_default_data, "eltwise_add", "default", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sim, eltwise_add_default_timing, "eltwise_add", "default", false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Ref, eltwise_add_default, "eltwise_add", "default")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sim, matmul_double_buffered_default_data, "matmul_double_buffered", "default", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Sim, gemm_heavy_large_data, "gemm_heavy", "large", true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
