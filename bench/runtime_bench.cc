// Runtime and JIT costs on the host: recording cost per instruction, uop
// kernel cost fresh vs cached, fresh assembly vs cached replay of a
// ResNet-sized layer (a 3x3 conv, 56x56x64 -> 64, as a 3136 x 576 x 64 GEMM),
// and the device side of the double-buffered matmul on `sim` (cycles, GEMM
// utilization). Run: build/bench/runtime_bench (see docs/performance.md).
#include <benchmark/benchmark.h>

#include "examples/matmul/tiled_matmul.h"
#include "runtime/runtime.h"

namespace tessera {
namespace {

const std::string kSource = TESSERA_SOURCE_DIR;
constexpr Module kLd = Module::kLoad, kCp = Module::kCompute;

const HwConfig& DefaultConfig() {
  static const HwConfig cfg = *LoadHwConfig(kSource + "/configs/default.json");
  return cfg;
}

std::unique_ptr<Runtime> OpenRuntime(const std::string& target) {
  auto dev = OpenDevice(target, DefaultConfig());
  if (!dev.ok()) return nullptr;
  auto rt = Runtime::Create(std::move(dev).value());
  return rt.ok() ? std::move(rt).value() : nullptr;
}

// Recording cost per instruction: N 2-D loads, each folding a token, then
// Finish (pairing, draining, encoding every word).
void BM_JitDmaInstructions(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  const int64_t n = state.range(0);
  Stream s(cfg, "bench");
  Slot a = *s.DeclareSlot("A", 1 << 24);
  Dma2D d;
  d.y_size = 4;
  d.x_size = 8;
  d.x_stride = 64;
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) {
      (void)s.Load(MemType::kInp, (i % 64) * 32, a, i * 8, d);
      (void)s.Push(kLd, kCp);
      (void)s.Pop(kLd, kCp);
    }
    auto rec = s.Finish();  // n loads + n compute no-ops carrying the pops + FINISH
    benchmark::DoNotOptimize(rec);
  }
  state.SetItemsProcessed(state.iterations() * (2 * n + 1));
}
BENCHMARK(BM_JitDmaInstructions)->Arg(1000)->Arg(100000);

// The matmul schedule's stream (loads, GEMMs with resident kernels, ALU,
// stores, tokens): recording + Finish, per instruction produced.
void BM_JitMatmulStream(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  auto plan = example::PlanMatmul(cfg, {512, 512, 512}, 12);
  KernelCache kernels;
  int64_t insns = 0;
  for (auto _ : state) {
    Stream s(cfg, "mm");
    Slot a = *s.DeclareSlot("A", plan->a_bytes), b = *s.DeclareSlot("B", plan->b_bytes),
         c = *s.DeclareSlot("C", plan->c_bytes);
    (void)example::RecordMatmul(&s, *plan, a, b, c, &kernels);
    auto rec = s.Finish();
    insns += rec->num_insns();
  }
  state.SetItemsProcessed(insns);
}
BENCHMARK(BM_JitMatmulStream);

// A uop kernel of N uops built from scratch.
void BM_KernelBuild(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  const int64_t n = state.range(0);
  for (auto _ : state) {
    KernelBuilder b(cfg, KernelKind::kGemm, "k");
    b.Outer(64, n, 8).Inner(8, 0, 1, 1);
    for (int64_t i = 0; i < n; ++i) b.Uop(i, 0, i * 8);
    benchmark::DoNotOptimize(b.Build());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KernelBuild)->Arg(16)->Arg(256);

// The same kernel from the kernel cache.
void BM_KernelCacheHit(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  KernelCache cache;
  auto build = [&]() { return KernelBuilder(cfg, KernelKind::kGemm, "k").Uop(0, 0, 0).Build(); };
  (void)cache.GetOrBuild("mm.gemm/128x8x2/0/0/0", build);
  for (auto _ : state) benchmark::DoNotOptimize(cache.GetOrBuild("mm.gemm/128x8x2/0/0/0", build));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KernelCacheHit);

// Emitting a GEMM whose kernel is resident (GEMM only) versus one that is
// not (LRU eviction + uop LOAD + GEMM): two kernels of 5000 uops evict each
// other from the 8192-entry uop scratchpad.
void BM_StreamGemm(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  const bool resident = state.range(0) == 1;
  auto make = [&](int64_t base) {
    KernelBuilder b(cfg, KernelKind::kGemm, "k");
    for (int64_t i = 0; i < 5000; ++i) b.Uop(base + (i % 8), 0, 0);
    return *b.Build();
  };
  const Kernel k1 = make(0), k2 = make(8);
  Stream s(cfg, "bench");
  int64_t n = 0;
  for (auto _ : state) {
    (void)s.Gemm(resident ? k1 : (n % 2 ? k1 : k2));
    if (++n % 4096 == 0) {
      state.PauseTiming();
      benchmark::DoNotOptimize(s.Finish());
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(resident ? "resident" : "uop load");
}
BENCHMARK(BM_StreamGemm)->Arg(1)->Arg(0);

// --- a ResNet-sized layer: 3x3 conv 56x56x64 -> 64 as a 3136 x 576 x 64 GEMM ---

const example::MatmulShape kLayer{3136, 64, 576};

// Fresh: plan, build every kernel, record, finish, load onto the device
// (kernel upload, code placement, decode-checks) and bind: everything short
// of running it.
void BM_ResnetLayerFresh(benchmark::State& state) {
  auto rt = OpenRuntime("ref");
  auto plan = example::PlanMatmul(rt->config(), kLayer, 12);
  Buffer a = *rt->Alloc(plan->a_bytes, "A"), b = *rt->Alloc(plan->b_bytes, "B"), c = *rt->Alloc(plan->c_bytes, "C");
  int64_t insns = 0;
  for (auto _ : state) {
    KernelCache kernels;  // nothing cached
    Stream s = rt->NewStream("conv3x3");
    (void)example::RecordMatmul(&s, *plan, a, b, c, &kernels);
    auto rec = s.Finish();
    auto x = rt->Load(*rec);
    benchmark::DoNotOptimize(x->Upload());
    insns = rec->num_insns();
  }
  state.counters["insns"] = static_cast<double>(insns);
}
BENCHMARK(BM_ResnetLayerFresh)->Unit(benchmark::kMicrosecond);

// Cached replay: the loaded executable is re-bound to another set of buffers
// (every DRAM field patched) and its pieces re-uploaded.
void BM_ResnetLayerReplay(benchmark::State& state) {
  auto rt = OpenRuntime("ref");
  auto plan = example::PlanMatmul(rt->config(), kLayer, 12);
  Buffer bufs[2][3];
  for (auto& set : bufs) {
    set[0] = *rt->Alloc(plan->a_bytes, "A");
    set[1] = *rt->Alloc(plan->b_bytes, "B");
    set[2] = *rt->Alloc(plan->c_bytes, "C");
  }
  Stream s = rt->NewStream("conv3x3");
  (void)example::RecordMatmul(&s, *plan, bufs[0][0], bufs[0][1], bufs[0][2], &rt->kernel_cache());
  auto x = rt->Load(*s.Finish());
  int64_t n = 0;
  for (auto _ : state) {
    const auto& set = bufs[++n % 2];
    (void)x->Bind(0, set[0]);
    (void)x->Bind(1, set[1]);
    (void)x->Bind(2, set[2]);
    benchmark::DoNotOptimize(x->Upload());
  }
  state.counters["patched"] = static_cast<double>(x->patched_fields()) / static_cast<double>(n);
}
BENCHMARK(BM_ResnetLayerReplay)->Unit(benchmark::kMicrosecond);

// The layer end to end on a device (replay + the device run), for scale.
void BM_ResnetLayerRun(benchmark::State& state, const char* target) {
  auto rt = OpenRuntime(target);
  if (rt == nullptr) {
    state.SkipWithError("target not available");
    return;
  }
  auto plan = example::PlanMatmul(rt->config(), kLayer, 12);
  Buffer a = *rt->Alloc(plan->a_bytes, "A"), b = *rt->Alloc(plan->b_bytes, "B"), c = *rt->Alloc(plan->c_bytes, "C");
  Stream s = rt->NewStream("conv3x3");
  (void)example::RecordMatmul(&s, *plan, a, b, c, &rt->kernel_cache());
  auto x = rt->Load(*s.Finish());
  for (auto _ : state) {
    Status st = x->Run();
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  state.counters["cycles"] = static_cast<double>(x->counters().cycles);
  state.counters["gemm_util"] = x->counters().GemmUtilization(rt->config());
}
BENCHMARK_CAPTURE(BM_ResnetLayerRun, ref, "ref")->Unit(benchmark::kMillisecond);
#ifdef TESSERA_HAVE_CYCLE_SIM
BENCHMARK_CAPTURE(BM_ResnetLayerRun, sim, "sim")->Unit(benchmark::kMillisecond);

// matmul_example's double buffering, 512 x 512 x 512 on the default config:
// device cycles and GEMM utilization on `sim`.
void BM_Matmul512Sim(benchmark::State& state) {
  auto rt = OpenRuntime("sim");
  auto plan = example::PlanMatmul(rt->config(), {512, 512, 512}, 12);
  Buffer a = *rt->Alloc(plan->a_bytes, "A"), b = *rt->Alloc(plan->b_bytes, "B"), c = *rt->Alloc(plan->c_bytes, "C");
  Stream s = rt->NewStream("mm512");
  (void)example::RecordMatmul(&s, *plan, a, b, c, &rt->kernel_cache());
  auto x = rt->Load(*s.Finish());
  for (auto _ : state) {
    Status st = x->Run();
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  const DeviceCounters& k = x->counters();
  state.counters["cycles"] = static_cast<double>(k.cycles);
  state.counters["gemm_util"] = k.GemmUtilization(rt->config());
  state.counters["compute_busy"] = static_cast<double>(k.compute.busy);
}
BENCHMARK(BM_Matmul512Sim)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
