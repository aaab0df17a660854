// The cost model against `sim`: recorded streams timed without data give the
// cycles the simulator counts, and the roofline names the resource each
// synthetic stream is built to saturate (one stream per bound).
#include "compiler/backend/cost_model.h"

#include <gtest/gtest.h>

#include <functional>

#include "driver/registry.h"
#include "isa/config.h"
#include "runtime/runtime.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

// Records `body` on a stream over two 1 MiB slots (a, b), runs it on sim and
// returns the simulator's counters next to the prediction.
struct Timed {
  DeviceCounters sim, predicted;
};
Timed RunBoth(const HwConfig& cfg, const std::function<void(Stream&, Slot, Slot)>& body) {
  Timed t;
  Stream s(cfg, "synthetic");
  auto a = s.DeclareSlot("a", 1 << 20), b = s.DeclareSlot("b", 1 << 20);
  EXPECT_TRUE(a.ok() && b.ok());
  body(s, *a, *b);
  auto rec = s.Finish();
  EXPECT_TRUE(rec.ok()) << rec.status().ToString();
  if (!rec.ok()) return t;
  auto predicted = PredictRecording(cfg, *rec);
  EXPECT_TRUE(predicted.ok()) << predicted.status().ToString();
  if (predicted.ok()) t.predicted = *predicted;
  auto dev = OpenDevice("sim", cfg);
  EXPECT_TRUE(dev.ok());
  auto rt = Runtime::Create(std::move(*dev));
  auto ba = (*rt)->Alloc(1 << 20, "a"), bb = (*rt)->Alloc(1 << 20, "b");
  auto exe = (*rt)->Load(*rec);
  EXPECT_TRUE(exe.ok()) << exe.status().ToString();
  EXPECT_TRUE(exe->BindAll({*ba, *bb}).ok());
  Status run = exe->Run();
  EXPECT_TRUE(run.ok()) << run.ToString();
  t.sim = exe->counters();
  return t;
}

// Every counter register but the wait_queue stalls (not predicted).
void ExpectSameCounters(const DeviceCounters& p, const DeviceCounters& s) {
  std::vector<int64_t> sv;
  s.ForEachRegister([&](uint32_t, const int64_t& v) { sv.push_back(v); });
  p.ForEachRegister([&](uint32_t i, const int64_t& v) {
    const std::string name = regs::CounterRegisterName(i);
    if (name.find("wait_queue") == std::string::npos) {
      EXPECT_EQ(v, sv[i]) << name;
    }
  });
}

// Checks the prediction is what the simulator counts and both name `want`.
void ExpectBound(const HwConfig& cfg, const Timed& t, Bound want) {
  ASSERT_GT(t.sim.cycles, 0);
  ExpectSameCounters(t.predicted, t.sim);
  const Roofline r = LayerRoofline(cfg, t.sim);
  EXPECT_EQ(BoundName(r.bound), std::string(BoundName(want)))
      << "cycles " << r.cycles << ": compute " << r.compute << ", load " << r.load << ", store " << r.store
      << ", dram-bw " << r.bandwidth << ", bursts " << r.bursts << ", fetch " << r.fetch;
  EXPECT_LE(r.bound_cycles, r.cycles);
  EXPECT_EQ(LayerRoofline(cfg, t.predicted).bound, r.bound);
}

Kernel GemmKernel(const HwConfig& cfg, int64_t outer, int64_t inner) {
  KernelBuilder kb(cfg, KernelKind::kGemm, "gemm");
  kb.Outer(outer, 0, 0, 0).Inner(inner, 1, 1, 0).Uop(0, 0, 0);
  return *kb.Build();
}

// The load module's work, handed to compute at the end so FINISH waits for it.
void ToCompute(Stream& s) {
  ASSERT_TRUE(s.Push(Module::kLoad, Module::kCompute).ok());
  ASSERT_TRUE(s.Pop(Module::kLoad, Module::kCompute).ok());
}

class CostModel : public ::testing::Test {
 protected:
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
};

TEST_F(CostModel, LongGemmsAreComputeBound) {
  const Kernel k = GemmKernel(cfg, 64, 16);
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot) {
                        ASSERT_TRUE(s.Load(MemType::kInp, 0, a, 0, Dma2D{1, 16}).ok());
                        ASSERT_TRUE(s.Load(MemType::kWgt, 0, a, 0, Dma2D{1, 1}).ok());
                        ToCompute(s);
                        for (int i = 0; i < 20; ++i) ASSERT_TRUE(s.Gemm(k).ok());
                      }),
              Bound::kCompute);
}

TEST_F(CostModel, LongRowsAreBandwidthBound) {
  // 4 KiB rows: one 256-beat burst each, far from the outstanding limit.
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot) {
                        for (int i = 0; i < 40; ++i)
                          ASSERT_TRUE(s.Load(MemType::kInp, 0, a, i * 256, Dma2D{1, 256}).ok());
                        ToCompute(s);
                      }),
              Bound::kBandwidth);
}

TEST_F(CostModel, OneTileRowsAreBurstBound) {
  // 16-byte rows: each burst holds a slot for L + 1 cycles, 8 at a time.
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot) {
                        Dma2D d;
                        d.y_size = 256, d.x_size = 1, d.x_stride = 2;
                        for (int i = 0; i < 8; ++i) ASSERT_TRUE(s.Load(MemType::kInp, 0, a, i, d).ok());
                        ToCompute(s);
                      }),
              Bound::kBursts);
}

TEST_F(CostModel, PaddingHeavyLoadsAreLoadBound) {
  Dma2D d;
  d.y_size = d.x_size = 1;
  d.y_pad0 = d.y_pad1 = d.x_pad0 = d.x_pad1 = 7;  // 224 padding entries, one 16-byte burst
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot) {
                        for (int i = 0; i < 40; ++i) ASSERT_TRUE(s.Load(MemType::kInp, 0, a, i, d).ok());
                        ToCompute(s);
                      }),
              Bound::kLoad);
}

TEST_F(CostModel, EmptyInstructionsOnEveryModuleAreFetchBound) {
  // Each takes T_setup = 2 cycles; three modules share one fetch stream.
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot b) {
                        for (int i = 0; i < 300; ++i) {
                          ASSERT_TRUE(s.Load(MemType::kInp, 0, a, 0, Dma2D{0, 0}).ok());
                          ASSERT_TRUE(s.Load(MemType::kAcc, 0, b, 0, Dma2D{0, 0}).ok());
                          ASSERT_TRUE(s.Store(0, b, 0, Dma2D{0, 0}).ok());
                        }
                        ToCompute(s);
                        ASSERT_TRUE(s.Push(Module::kStore, Module::kCompute).ok());
                        ASSERT_TRUE(s.Pop(Module::kStore, Module::kCompute).ok());
                      }),
              Bound::kFetch);
}

TEST_F(CostModel, DependentRoundTripsAreLatencyBound) {
  // load -> GEMM -> store -> next load: every step waits for DRAM latency.
  const Kernel k = GemmKernel(cfg, 1, 1);
  ExpectBound(cfg,
              RunBoth(cfg,
                      [&](Stream& s, Slot a, Slot b) {
                        for (int i = 0; i < 30; ++i) {
                          if (i > 0) {
                            ASSERT_TRUE(s.Pop(Module::kCompute, Module::kLoad).ok());
                          }
                          ASSERT_TRUE(s.Load(MemType::kInp, 0, a, i, Dma2D{1, 1}).ok());
                          ASSERT_TRUE(s.Push(Module::kLoad, Module::kCompute).ok());
                          ASSERT_TRUE(s.Pop(Module::kLoad, Module::kCompute).ok());
                          if (i > 0) {
                            ASSERT_TRUE(s.Pop(Module::kStore, Module::kCompute).ok());
                          }
                          ASSERT_TRUE(s.Gemm(k).ok());
                          ASSERT_TRUE(s.Push(Module::kCompute, Module::kStore).ok());
                          ASSERT_TRUE(s.Pop(Module::kCompute, Module::kStore).ok());
                          ASSERT_TRUE(s.Store(0, b, i, Dma2D{1, 1}).ok());
                          ASSERT_TRUE(s.Push(Module::kStore, Module::kCompute).ok());
                          if (i + 1 < 30) {
                            ASSERT_TRUE(s.Push(Module::kCompute, Module::kLoad).ok());
                          }
                        }
                        ASSERT_TRUE(s.Pop(Module::kStore, Module::kCompute).ok());
                      }),
              Bound::kLatency);
}

TEST_F(CostModel, UopKernelsPersistAcrossPieces) {
  // A stream longer than the instruction buffer is split into pieces; the uop
  // scratchpad keeps its kernels between them, so the ALU timing of a later
  // piece reads uops loaded by an earlier one.
  StreamOptions o;
  o.insn_buffer_capacity = 16;
  Stream s(cfg, "pieces", o);
  auto a = s.DeclareSlot("a", 1 << 20);
  KernelBuilder kb(cfg, KernelKind::kAlu, "alu");
  kb.Outer(4, 1, 1).Inner(8, 1, 0).Uop(0, 0);
  const Kernel k = *kb.Build();
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(s.AluVec(k, AluOp::kAdd).ok());
  ASSERT_TRUE(s.Load(MemType::kAcc, 0, *a, 0, Dma2D{1, 1}).ok());
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  ASSERT_GT(rec->pieces.size(), 2u);
  auto predicted = PredictRecording(cfg, *rec);
  ASSERT_TRUE(predicted.ok()) << predicted.status().ToString();
  auto dev = OpenDevice("sim", cfg);
  auto rt = Runtime::Create(std::move(*dev));
  auto ba = (*rt)->Alloc(1 << 20, "a");
  auto exe = (*rt)->Load(*rec);
  ASSERT_TRUE(exe.ok());
  ASSERT_TRUE(exe->Bind(0, *ba).ok());
  ASSERT_TRUE(exe->Run().ok());
  ExpectSameCounters(*predicted, exe->counters());
}

}  // namespace
}  // namespace tessera::backend
