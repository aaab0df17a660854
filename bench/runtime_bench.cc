// Runtime and JIT costs on the host: recording cost per instruction, uop
// kernel cost fresh vs cached, fresh assembly vs cached replay of a
// ResNet-sized layer (a 3x3 conv, 56x56x64 -> 64, as a 3136 x 576 x 64 GEMM),
// and the device side of the double-buffered matmul on `sim` (cycles, GEMM
// utilization). Run: build/bench/runtime_bench (see docs/performance.md).
#include <benchmark/benchmark.h>

#include <optional>

#include "driver/registry.h"
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

// Records the tiled matmul against a, b, c and loads it; nullopt (and the
// benchmark skipped) on any error.
std::optional<Executable> LoadMatmul(benchmark::State& state, Runtime* rt, const example::MatmulPlan& plan,
                                     const Buffer& a, const Buffer& b, const Buffer& c) {
  Stream s = rt->NewStream("matmul");
  Status st = example::RecordMatmul(&s, plan, a, b, c, &rt->kernel_cache());
  if (st.ok()) {
    auto rec = s.Finish();
    if (rec.ok()) {
      auto x = rt->Load(*rec);
      if (x.ok()) return std::move(x).value();
      st = x.status();
    } else {
      st = rec.status();
    }
  }
  state.SkipWithError(st.ToString().c_str());
  return std::nullopt;
}

// Recording cost per instruction: N 2-D loads, each folding a token, then
// Finish (pairing, draining, encoding every word).
void BM_JitDmaInstructions(benchmark::State& state) {
  const HwConfig& cfg = DefaultConfig();
  const int64_t n = state.range(0);
  Stream s(cfg, "bench");
  int64_t insns = 0;
  Dma2D d;
  d.y_size = 4;
  d.x_size = 8;
  d.x_stride = 64;
  for (auto _ : state) {
    Slot a = *s.DeclareSlot("A", 1 << 24);  // Finish empties the stream, slots included
    for (int64_t i = 0; i < n; ++i) {
      Status st = s.Load(MemType::kInp, (i % 64) * 32, a, i * 8, d);
      if (st.ok()) st = s.Push(kLd, kCp);
      if (st.ok()) st = s.Pop(kLd, kCp);
      if (!st.ok()) {
        state.SkipWithError(st.ToString().c_str());
        return;
      }
    }
    auto rec = s.Finish();  // n loads + n compute no-ops carrying the pops + a FINISH per piece
    if (!rec.ok() || rec->num_insns() != 2 * n + static_cast<int64_t>(rec->pieces.size())) {
      state.SkipWithError("unexpected recording");
      return;
    }
    insns += rec->num_insns();
  }
  state.SetItemsProcessed(insns);
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
    Status st = example::RecordMatmul(&s, *plan, a, b, c, &kernels);
    auto rec = s.Finish();
    if (!st.ok() || !rec.ok()) {
      state.SkipWithError("recording failed");
      return;
    }
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
    Status st = s.Gemm(resident ? k1 : (n % 2 ? k1 : k2));
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
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

struct MatmulSetup {
  std::unique_ptr<Runtime> rt;
  example::MatmulPlan plan;
  Buffer a, b, c;
};

// A, B and C for `plan` on `rt`; false (benchmark skipped) when they do not fit.
bool AllocMatmul(benchmark::State& state, Runtime* rt, const example::MatmulPlan& plan, Buffer* a, Buffer* b,
                 Buffer* c) {
  auto ba = rt->Alloc(plan.a_bytes, "A"), bb = rt->Alloc(plan.b_bytes, "B"), bc = rt->Alloc(plan.c_bytes, "C");
  for (const auto* r : {&ba, &bb, &bc})
    if (!r->ok()) {
      state.SkipWithError(r->status().ToString().c_str());
      return false;
    }
  *a = *ba, *b = *bb, *c = *bc;
  return true;
}

// Opens `target` on the default config, plans `shape` and allocates its
// buffers; nullopt (benchmark skipped) on any error.
std::optional<MatmulSetup> SetupMatmul(benchmark::State& state, const char* target, const example::MatmulShape& shape) {
  MatmulSetup m;
  m.rt = OpenRuntime(target);
  if (m.rt == nullptr) {
    state.SkipWithError("target not available");
    return std::nullopt;
  }
  auto plan = example::PlanMatmul(m.rt->config(), shape, 12);
  if (!plan.ok()) {
    state.SkipWithError(plan.status().ToString().c_str());
    return std::nullopt;
  }
  m.plan = *plan;
  if (!AllocMatmul(state, m.rt.get(), m.plan, &m.a, &m.b, &m.c)) return std::nullopt;
  return m;
}

// Fresh: plan, build every kernel, record, finish, load onto the device
// (kernel upload, code placement, decode-checks) and bind: everything short
// of running it.
void BM_ResnetLayerFresh(benchmark::State& state) {
  auto m = SetupMatmul(state, "ref", kLayer);
  if (!m) return;
  int64_t insns = 0;
  for (auto _ : state) {
    KernelCache kernels;  // nothing cached
    Stream s = m->rt->NewStream("conv3x3");
    Status st = example::RecordMatmul(&s, m->plan, m->a, m->b, m->c, &kernels);
    auto rec = s.Finish();
    if (!st.ok() || !rec.ok()) {
      state.SkipWithError("recording failed");
      return;
    }
    auto x = m->rt->Load(*rec);
    if (!x.ok() || !x->Upload().ok()) {
      state.SkipWithError("load failed");
      return;
    }
    insns = rec->num_insns();
  }
  state.counters["insns"] = static_cast<double>(insns);
}
BENCHMARK(BM_ResnetLayerFresh)->Unit(benchmark::kMicrosecond);

// Cached replay: the loaded executable is re-bound to another set of buffers
// (every DRAM field patched) and its pieces re-uploaded.
void BM_ResnetLayerReplay(benchmark::State& state) {
  auto m = SetupMatmul(state, "ref", kLayer);
  if (!m) return;
  Buffer bufs[2][3] = {{m->a, m->b, m->c}, {}};
  if (!AllocMatmul(state, m->rt.get(), m->plan, &bufs[1][0], &bufs[1][1], &bufs[1][2])) return;
  auto x = LoadMatmul(state, m->rt.get(), m->plan, m->a, m->b, m->c);
  if (!x) return;
  int64_t n = 0;
  for (auto _ : state) {
    const auto& set = bufs[++n % 2];
    Status st = x->Bind(0, set[0]);
    if (st.ok()) st = x->Bind(1, set[1]);
    if (st.ok()) st = x->Bind(2, set[2]);
    if (st.ok()) st = x->Upload();
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
  }
  state.counters["patched"] = static_cast<double>(x->patched_fields()) / static_cast<double>(n);
}
BENCHMARK(BM_ResnetLayerReplay)->Unit(benchmark::kMicrosecond);

// Runs the matmul of `shape` on `target` each iteration (replay + device run)
// and reports the device counters of the last run.
void RunMatmul(benchmark::State& state, const char* target, const example::MatmulShape& shape) {
  auto m = SetupMatmul(state, target, shape);
  if (!m) return;
  auto x = LoadMatmul(state, m->rt.get(), m->plan, m->a, m->b, m->c);
  if (!x) return;
  for (auto _ : state) {
    Status st = x->Run();
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
  }
  const DeviceCounters& k = x->counters();
  state.counters["cycles"] = static_cast<double>(k.cycles);
  state.counters["gemm_util"] = k.GemmUtilization(m->rt->config());
  state.counters["compute_busy"] = static_cast<double>(k.unit(regs::Unit::kCompute).busy);
}

// The layer end to end on a device, for scale.
void BM_ResnetLayerRun(benchmark::State& state, const char* target) { RunMatmul(state, target, kLayer); }
BENCHMARK_CAPTURE(BM_ResnetLayerRun, ref, "ref")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ResnetLayerRun, sim, "sim")->Unit(benchmark::kMillisecond);

// matmul_example's double buffering, 512 x 512 x 512 on the default config:
// device cycles and GEMM utilization on `sim`.
void BM_Matmul512Sim(benchmark::State& state) { RunMatmul(state, "sim", {512, 512, 512}); }
BENCHMARK(BM_Matmul512Sim)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera

BENCHMARK_MAIN();
