// Speed of the device backends that model time, through the one Device
// interface (register protocol, DRAM back door): simulated cycles per host
// second of `rtl` (the Verilated RTL with the AXI4 DRAM model), `sim` and
// `systemc` on the GEMM-heavy and DMA-heavy example streams, single thread.
// A target this build lacks is skipped with the registry's message.
// Run: build/bench/rtl_bench (figures and command in docs/performance.md).
#include <benchmark/benchmark.h>

#include "bench/bench_program.h"
#include "driver/registry.h"

namespace tessera {
namespace {

void BM_Device(benchmark::State& state, const char* program, const char* config, const char* target) {
  const bench::BenchProgram s = bench::LoadBenchProgram(program, config);
  auto dev = OpenDevice(target, s.cfg);
  if (!dev.ok()) {
    state.SkipWithError(dev.status().ToString().c_str());
    return;
  }
  Device& d = **dev;
  Status placed =
      PlaceProgram(s.cfg, s.prog, [&](uint64_t a, const void* src, uint64_t n) { return d.Write(a, src, n); });
  TSR_CHECK(placed.ok(), "{}", placed.ToString());
  int64_t cycles = 0;
  for (auto _ : state) {
    Status st = d.Run(s.prog.text_addr, static_cast<int64_t>(s.prog.insns.size()), 0);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    state.PauseTiming();
    cycles += d.ReadCounters().cycles;
    state.ResumeTiming();
  }
  state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Device, gemm_heavy_default_rtl, "gemm_heavy", "default", "rtl")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Device, gemm_heavy_default_sim, "gemm_heavy", "default", "sim")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Device, gemm_heavy_default_systemc, "gemm_heavy", "default", "systemc")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Device, eltwise_add_default_rtl, "eltwise_add", "default", "rtl")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Device, eltwise_add_default_sim, "eltwise_add", "default", "sim")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Device, gemm_heavy_tiny_rtl, "gemm_heavy", "tiny", "rtl")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
