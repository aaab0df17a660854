// The runtime on a device: buffers, live streams, replay of recordings on new
// buffers, serialization, uop residency across runs, and every error a run
// can end with (timeout, config mismatch, race, unbound/freed buffers).
#include "runtime/runtime.h"

#include <gtest/gtest.h>

#include <random>

#include "driver/registry.h"
#include "examples/matmul/tiled_matmul.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

constexpr Module kLd = Module::kLoad, kCp = Module::kCompute, kSt = Module::kStore;

std::unique_ptr<Runtime> Open(const std::string& target = "ref", const char* config = "configs/default.json",
                              RuntimeOptions opts = {}) {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  auto dev = OpenDevice(target, cfg);
  EXPECT_TRUE(dev.ok()) << dev.status().ToString();
  auto rt = Runtime::Create(std::move(dev).value(), opts);
  EXPECT_TRUE(rt.ok()) << rt.status().ToString();
  return std::move(rt).value();
}

Dma2D Row(int64_t x) {
  Dma2D d;
  d.x_size = x;
  return d;
}

// Records "C = A + imm" on `n` accumulator tiles: acc8 load, ALU add, store.
Status RecordAddImm(Stream* s, DmaTarget a, DmaTarget c, int64_t n, int64_t imm) {
  TSR_ASSIGN_OR_RETURN(Kernel k, KernelBuilder(s->config(), KernelKind::kAlu, "add").Outer(n, 1, 1).Uop(0, 0).Build());
  TSR_RETURN_IF_ERROR(s->Load(MemType::kAcc8, 0, a, 0, Row(n)));
  TSR_RETURN_IF_ERROR(s->Alu(k, AluOp::kAdd, imm));
  TSR_RETURN_IF_ERROR(s->Push(kCp, kSt));
  TSR_RETURN_IF_ERROR(s->Pop(kCp, kSt));
  return s->Store(0, c, 0, Row(n));
}

TEST(Runtime, BuffersAndTheirErrors) {
  auto rt = Open("ref", "configs/tiny.json");
  auto a = rt->Alloc(100, "A");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->bytes(), 100u);
  EXPECT_EQ(a->phys() % rt->device().data_alignment(), 0u);
  std::vector<uint8_t> v(100, 7), back(100);
  ASSERT_TRUE(rt->CopyIn(*a, v.data(), v.size()).ok());
  ASSERT_TRUE(rt->CopyOut(*a, back.data(), back.size()).ok());
  EXPECT_EQ(back, v);
  EXPECT_EQ(rt->CopyIn(*a, v.data(), 10, 95).message(), "copy of 10 bytes at offset 95 leaves buffer 'A' (100 bytes)");
  auto oom = rt->Alloc(100 << 20, "huge");
  EXPECT_EQ(oom.status().code(), StatusCode::kResourceExhausted);
  ASSERT_TRUE(rt->Free(*a).ok());
  EXPECT_FALSE(rt->IsLive(*a));
  Status twice = rt->Free(*a);
  EXPECT_EQ(twice.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(twice.message(),
            fmt::format("double free of buffer 'A' (device address 0x{:x}): it was already freed", a->phys()));
  EXPECT_EQ(rt->Free(Buffer()).message(), "free of an invalid (default-constructed) buffer");
  auto other = Open("ref", "configs/tiny.json");
  auto b = other->Alloc(10, "B");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(rt->Free(*b).message(), "free of buffer 'B': it belongs to another runtime");
  EXPECT_EQ(rt->CopyIn(*b, v.data(), 1).code(), StatusCode::kFailedPrecondition);
}

TEST(Runtime, CreateRejectsBadOptions) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  RuntimeOptions o;
  o.insn_buffer_capacity = 1;
  EXPECT_EQ(Runtime::Create(std::move(OpenDevice("ref", cfg)).value(), o).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Runtime::Create(nullptr).status().message(), "Runtime::Create: no device");
}

TEST(Runtime, SynchronizeRunsALiveStream) {
  for (const std::string& target : SelfContainedDeviceTargets()) {
    SCOPED_TRACE(target);
    auto rt = Open(target);
    const int64_t n = 4, lanes = rt->config().block_out;
    Buffer a = *rt->Alloc(n * lanes, "A"), c = *rt->Alloc(n * lanes, "C");
    std::vector<int8_t> in(n * lanes), out(n * lanes);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int8_t>(i - 30);
    ASSERT_TRUE(rt->CopyIn(a, in.data(), in.size()).ok());
    Stream s = rt->NewStream("add");
    ASSERT_TRUE(RecordAddImm(&s, a, c, n, 5).ok());
    Status st = s.Synchronize();
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_TRUE(rt->CopyOut(c, out.data(), out.size()).ok());
    for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], in[i] + 5);
    EXPECT_EQ(rt->last_counters().alu_iterations, n);
    EXPECT_EQ(rt->stats().kernel_uploads, 1);
    // The same kernel again: resident in the uop scratchpad, so no uop load is recorded.
    ASSERT_TRUE(RecordAddImm(&s, c, a, n, -5).ok());
    EXPECT_EQ(s.stats().uop_loads, 0);
    EXPECT_EQ(s.stats().kernel_hits, 1);
    ASSERT_TRUE(s.Synchronize().ok());
    ASSERT_TRUE(rt->CopyOut(a, out.data(), out.size()).ok());
    EXPECT_EQ(out, in);
    EXPECT_EQ(rt->stats().uop_preambles, 0);
    EXPECT_EQ(rt->stats().kernel_uploads, 1);  // the DRAM copy is shared too
  }
}

TEST(Runtime, RaceDetectorCatchesAMissingToken) {
  auto rt = Open("ref");
  Buffer a = *rt->Alloc(64, "A"), c = *rt->Alloc(64, "C");
  Stream s = rt->NewStream("racy");
  auto k = KernelBuilder(rt->config(), KernelKind::kAlu, "add").Uop(0, 0).Build();
  ASSERT_TRUE(s.Load(MemType::kAcc8, 0, a, 0, Row(1)).ok());
  ASSERT_TRUE(s.Alu(*k, AluOp::kAdd, 1).ok());
  ASSERT_TRUE(s.Store(0, c, 0, Row(1)).ok());  // no compute->store token: the store may read acc too early
  Status st = s.Synchronize();
  EXPECT_EQ(st.code(), StatusCode::kAborted);
  EXPECT_NE(st.message().find("race on out entry 0"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("recording 'racy', piece 1 of 1"), std::string::npos) << st.message();
  EXPECT_TRUE(rt->uop_residency().entries().empty());  // unknown after a failed run
}

// Many long GEMMs: about 3.3 M cycles on sim, a few hundred ms on ref.
Status RecordLongStream(Stream* s) {
  TSR_ASSIGN_OR_RETURN(
      Kernel k,
      KernelBuilder(s->config(), KernelKind::kGemm, "long").Outer(2047, 0, 0).Inner(32, 0, 0).Uop(0, 0, 0).Build());
  for (int i = 0; i < 50; ++i) TSR_RETURN_IF_ERROR(s->Gemm(k));
  return OkStatus();
}

TEST(Runtime, DeviceTimeout) {
  for (const std::string& target : SelfContainedDeviceTargets()) {
    SCOPED_TRACE(target);
    auto rt = Open(target);
    Stream s = rt->NewStream("long");
    ASSERT_TRUE(RecordLongStream(&s).ok());
    Status st = s.Synchronize(/*timeout_ms=*/1);
    EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded) << st.ToString();
    EXPECT_NE(st.message().find("failed: watchdog timeout"), std::string::npos) << st.message();
    EXPECT_EQ(rt->device().ReadStatus().error_code, regs::ErrorCode::kWatchdog);
    // The device is usable afterwards.
    ASSERT_TRUE(RecordLongStream(&s).ok());
    EXPECT_TRUE(s.Synchronize(/*timeout_ms=*/60000).ok());
  }
}

TEST(Runtime, ConfigMismatchBetweenRecordingAndDevice) {
  auto rt = Open("ref", "configs/default.json");
  Buffer a = *rt->Alloc(64, "A"), c = *rt->Alloc(64, "C");
  Stream s = rt->NewStream("layer");
  ASSERT_TRUE(RecordAddImm(&s, a, c, 1, 1).ok());
  Recording rec = *s.Finish();
  auto bytes = rec.Serialize();
  auto tiny = Open("ref", "configs/tiny.json");
  auto back = Recording::Deserialize(bytes, "layer.rec");
  ASSERT_TRUE(back.ok());
  auto x = tiny->Load(*back);
  EXPECT_EQ(x.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(x.status().message(),
            fmt::format("recording 'layer' was made for config 'default' (ISA fingerprint 0x{:016x}) but "
                        "device 'ref' "
                        "runs config 'tiny' (ISA fingerprint 0x{:016x}): record it again for this config",
                        rt->config().isa_fingerprint, tiny->config().isa_fingerprint));
}

TEST(Runtime, ReplayOnNewBuffersPatchesWithoutReassembly) {
  auto rt = Open("ref");
  const int64_t lanes = rt->config().block_out;
  Buffer a = *rt->Alloc(lanes, "A"), c = *rt->Alloc(lanes, "C");
  Stream s = rt->NewStream("add3");
  ASSERT_TRUE(RecordAddImm(&s, a, c, 1, 3).ok());
  Recording rec = *s.Finish();
  auto x = rt->Load(rec);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  std::vector<int8_t> in(lanes, 10), out(lanes);
  ASSERT_TRUE(rt->CopyIn(a, in.data(), in.size()).ok());
  ASSERT_TRUE(x->Run().ok());
  ASSERT_TRUE(rt->CopyOut(c, out.data(), out.size()).ok());
  EXPECT_EQ(out[0], 13);
  const auto before = x->recording().pieces;
  const int64_t patched = x->patched_fields();

  Buffer a2 = *rt->Alloc(lanes, "A2"), c2 = *rt->Alloc(lanes, "C2");
  std::vector<int8_t> in2(lanes, -50);
  ASSERT_TRUE(rt->CopyIn(a2, in2.data(), in2.size()).ok());
  ASSERT_TRUE(x->Bind("A", a2).ok());
  ASSERT_TRUE(x->Bind(1, c2).ok());
  EXPECT_EQ(x->patched_fields() - patched, 2);  // one LOAD, one STORE
  // Only the two dram fields changed.
  const auto& after = x->recording().pieces;
  int changed = 0;
  for (size_t i = 0; i < after[0].size(); ++i) changed += !(after[0][i] == before[0][i]);
  EXPECT_EQ(changed, 2);
  ASSERT_TRUE(x->Run().ok());
  ASSERT_TRUE(rt->CopyOut(c2, out.data(), out.size()).ok());
  EXPECT_EQ(out[0], -47);
  ASSERT_TRUE(rt->CopyOut(c, out.data(), out.size()).ok());
  EXPECT_EQ(out[0], 13);  // the first output is untouched
}

TEST(Runtime, BindingErrors) {
  auto rt = Open("ref");
  const int64_t lanes = rt->config().block_out;
  Stream s(rt->config(), "offline");
  Slot a = *s.DeclareSlot("A", 4 * lanes), c = *s.DeclareSlot("C", 4 * lanes);
  ASSERT_TRUE(RecordAddImm(&s, a, c, 4, 1).ok());
  Recording rec = *s.Finish();
  auto x = rt->Load(rec);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->Run().message(), "recording 'offline': slot 'A' is not bound to a buffer");
  Buffer small = *rt->Alloc(2 * lanes, "small"), ok = *rt->Alloc(4 * lanes, "ok"), out = *rt->Alloc(4 * lanes, "out");
  Status st = x->Bind("A", small);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(),
            "binding buffer 'small' (32 bytes) to slot 'A' of recording 'offline': "
            "the recording's DMAs reach byte 64 "
            "of the slot");
  EXPECT_EQ(x->Bind("B", ok).message(), "recording 'offline' has no slot 'B'");
  EXPECT_EQ(x->Bind(5, ok).message(), "recording 'offline' has no slot 5 (2 slot(s))");
  ASSERT_TRUE(x->Bind("A", ok).ok());
  ASSERT_TRUE(x->Bind("C", out).ok());
  ASSERT_TRUE(x->Run().ok());
  ASSERT_TRUE(rt->Free(ok).ok());
  EXPECT_EQ(x->Run().message(), "recording 'offline': slot 'A' is bound to buffer 'ok', which was freed");
  EXPECT_EQ(x->Bind("A", ok).code(), StatusCode::kFailedPrecondition);
  // Recordings made without a device must be given buffers.
  EXPECT_EQ(rt->Run(rec).message(), "recording 'offline': slot 'A' is not bound to a buffer");
}

TEST(Runtime, DeserializedRecordingRestoresTheUopsItAssumed) {
  auto rt = Open("ref");
  const int64_t lanes = rt->config().block_out;
  Buffer a = *rt->Alloc(lanes, "A"), c = *rt->Alloc(lanes, "C");
  std::vector<int8_t> in(lanes, 1), out(lanes);
  ASSERT_TRUE(rt->CopyIn(a, in.data(), in.size()).ok());
  Stream s = rt->NewStream("warm");
  ASSERT_TRUE(RecordAddImm(&s, a, c, 1, 1).ok());
  ASSERT_TRUE(s.Synchronize().ok());
  // Recorded while the kernel is resident: the recording assumes it is.
  ASSERT_TRUE(RecordAddImm(&s, c, a, 1, 1).ok());
  Recording rec = *s.Finish();
  EXPECT_EQ(rec.stats.uop_loads, 0);
  ASSERT_EQ(rec.requires_resident.size(), 1u);
  auto back = Recording::Deserialize(rec.Serialize(), "warm.rec");
  ASSERT_TRUE(back.ok());
  rt->InvalidateUopResidency();  // as if another program had used the uop scratchpad
  ASSERT_TRUE(rt->Run(*back, {c, a}).ok());
  EXPECT_EQ(rt->stats().uop_preambles, 1);
  ASSERT_TRUE(rt->CopyOut(a, out.data(), out.size()).ok());
  EXPECT_EQ(out[0], 3);
  // Now resident again: no preamble.
  ASSERT_TRUE(rt->Run(*back, {c, a}).ok());
  EXPECT_EQ(rt->stats().uop_preambles, 1);
}

TEST(Runtime, CorruptRecordingIsRejectedAtLoad) {
  auto rt = Open("ref");
  Stream s(rt->config(), "r");
  Slot a = *s.DeclareSlot("A", 4096), c = *s.DeclareSlot("C", 4096);
  ASSERT_TRUE(RecordAddImm(&s, a, c, 1, 1).ok());
  // As read from a file: checked word by word at Load (a fresh JIT recording is trusted).
  Recording rec = *Recording::Deserialize(s.Finish()->Serialize(), "r.rec");
  EXPECT_FALSE(rec.jit_validated);
  Recording bad = rec;
  bad.pieces[0][0].lo |= 7;  // opcode 7 does not exist
  EXPECT_NE(rt->Load(bad).status().message().find("recording 'r', piece 0, instruction 0: unknown opcode 7"),
            std::string::npos);
  bad = rec;
  std::swap(bad.pieces[0][0], bad.pieces[0].back());  // FINISH first
  EXPECT_EQ(rt->Load(bad).status().code(), StatusCode::kInvalidArgument);
  bad = rec;
  bad.relocs[0].elem_bytes = 3;
  EXPECT_NE(rt->Load(bad).status().message().find("does not match it"), std::string::npos);
  RuntimeOptions small;
  small.insn_buffer_capacity = 2;
  auto rt2 = Open("ref", "configs/default.json", small);
  EXPECT_EQ(rt2->Load(rec).status().code(), StatusCode::kResourceExhausted);
}

// The matmul example's schedule on every config, split into many small
// pieces and as one piece: same bits as the CPU, no race.
TEST(Runtime, MatmulSplitOrWholeMatchesTheCpu) {
  for (const std::string& target : SelfContainedDeviceTargets())
    for (const char* config : {"configs/default.json", "configs/tiny.json", "configs/large.json"})
      for (int64_t capacity : {int64_t{5}, int64_t{65536}}) {
        SCOPED_TRACE(fmt::format("{} {} {}", target, config, capacity));
        // A target built per config (rtl: a Verilated model each) may lack this one.
        if (OpenDevice(target, testing::LoadConfigOrDie(config)).status().code() == StatusCode::kNotFound) continue;
        RuntimeOptions o;
        o.insn_buffer_capacity = capacity;
        auto rt = Open(target, config, o);
        const example::MatmulShape shape{45, 33, 70};
        auto plan = example::PlanMatmul(rt->config(), shape, 8, 0, 0, 0);
        ASSERT_TRUE(plan.ok());
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<int> d(-128, 127);
        std::vector<int8_t> am(shape.m * shape.k), bm(shape.k * shape.n);
        for (auto& v : am) v = static_cast<int8_t>(d(rng));
        for (auto& v : bm) v = static_cast<int8_t>(d(rng));
        auto pa = example::PackA(rt->config(), *plan, am), pb = example::PackB(rt->config(), *plan, bm);
        Buffer a = *rt->Alloc(pa.size(), "A"), b = *rt->Alloc(pb.size(), "B"), c = *rt->Alloc(plan->c_bytes, "C");
        ASSERT_TRUE(rt->CopyIn(a, pa.data(), pa.size()).ok());
        ASSERT_TRUE(rt->CopyIn(b, pb.data(), pb.size()).ok());
        Stream s = rt->NewStream("mm");
        ASSERT_TRUE(example::RecordMatmul(&s, *plan, a, b, c, &rt->kernel_cache()).ok());
        Status st = s.Synchronize();
        ASSERT_TRUE(st.ok()) << st.ToString();
        std::vector<int8_t> pc(plan->c_bytes);
        ASSERT_TRUE(rt->CopyOut(c, pc.data(), pc.size()).ok());
        EXPECT_EQ(example::UnpackC(rt->config(), *plan, pc), example::MatmulReference(am, bm, shape, 8));
        if (capacity == 5) {
          EXPECT_GT(rt->stats().device_runs, 2);
        }
      }
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// The figure docs/performance.md records: the example's double buffering on
// sim keeps the GEMM core >= 90% busy for 512 x 512 x 512 on the default config.
TEST(Runtime, Matmul512ReachesNinetyPercentGemmUtilizationOnSim) {
  auto rt = Open("sim");
  auto plan = example::PlanMatmul(rt->config(), {512, 512, 512}, 12);
  ASSERT_TRUE(plan.ok());
  Buffer a = *rt->Alloc(plan->a_bytes, "A"), b = *rt->Alloc(plan->b_bytes, "B"), c = *rt->Alloc(plan->c_bytes, "C");
  Stream s = rt->NewStream("mm512");
  ASSERT_TRUE(example::RecordMatmul(&s, *plan, a, b, c, &rt->kernel_cache()).ok());
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->stats.noops, 0);
  auto x = rt->Load(*rec);
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(x->Run().ok());
  const DeviceCounters& k = x->counters();
  EXPECT_EQ(k.macs, int64_t{512} * 512 * 512);
  EXPECT_GE(k.GemmUtilization(rt->config()), 0.90) << k.cycles << " cycles";
}

}  // namespace
}  // namespace tessera
