// The JIT (Stream) without a device: token folding and no-ops, token errors,
// DMA bounds, kernel residency in the uop scratchpad, splitting into pieces,
// and recording serialization.
#include "runtime/stream.h"

#include <gtest/gtest.h>

#include "isa/encoding.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

constexpr Module kLd = Module::kLoad, kCp = Module::kCompute, kSt = Module::kStore;

class StreamTest : public ::testing::Test {
 protected:
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");

  Kernel Gemm1(int64_t dst = 0) {
    auto k = KernelBuilder(cfg, KernelKind::kGemm, "g").Uop(dst, 0, 0).Build();
    EXPECT_TRUE(k.ok());
    return *k;
  }
  Kernel Alu1() {
    auto k = KernelBuilder(cfg, KernelKind::kAlu, "a").Uop(0, 0).Build();
    EXPECT_TRUE(k.ok());
    return *k;
  }
  std::string Text(Stream& s) {
    auto rec = s.Finish();
    EXPECT_TRUE(rec.ok()) << rec.status().ToString();
    if (!rec.ok()) return "";
    auto text = rec->Disassemble(cfg);
    EXPECT_TRUE(text.ok());
    return *text;
  }
  static Dma2D Row(int64_t x) {
    Dma2D d;
    d.x_size = x;
    return d;
  }
};

TEST_F(StreamTest, TokensFoldIntoNeighbours) {
  Stream s(cfg, "t");
  Slot a = *s.DeclareSlot("A", 4096), c = *s.DeclareSlot("C", 4096);
  ASSERT_TRUE(s.Load(MemType::kInp, 0, a, 2, Row(2)).ok());
  ASSERT_TRUE(s.Push(kLd, kCp).ok());
  ASSERT_TRUE(s.Pop(kLd, kCp).ok());
  ASSERT_TRUE(s.Gemm(Gemm1()).ok());
  ASSERT_TRUE(s.Push(kCp, kSt).ok());
  ASSERT_TRUE(s.Pop(kCp, kSt).ok());
  ASSERT_TRUE(s.Store(0, c, 0, Row(1)).ok());
  EXPECT_EQ(s.outstanding(kCp, kSt), 0);
  EXPECT_EQ(Text(s),
            "# recording 't' for config 'default': 5 instruction(s) in 1 piece(s)\n"
            "# piece 0\n"
            "LOAD mem=inp sram=0 dram=0x20 y_size=1 x_size=2 x_stride=2 push_next  ; slot "
            "'A' + 2 elements\n"
            "LOAD mem=uop sram=0 dram=0x0 y_size=1 x_size=1 x_stride=1  ; kernel 'g'\n"
            "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 pop_prev push_next\n"
            "STORE mem=out sram=0 dram=0x0 y_size=1 x_size=1 x_stride=1 pop_prev "
            "push_prev  ; slot 'C' + 0 elements\n"
            "FINISH pop_next\n");
}

TEST_F(StreamTest, NoOpsOnlyWhenNoInstructionCanCarryTheToken) {
  Stream s(cfg, "t");
  // Nothing on compute yet: the push needs a compute no-op (a uop LOAD of no rows).
  ASSERT_TRUE(s.Push(kCp, kSt).ok());
  // A second push from the same instruction needs another no-op.
  ASSERT_TRUE(s.Push(kCp, kSt).ok());
  // Two pops before any store instruction: the first gets a store no-op.
  ASSERT_TRUE(s.Pop(kCp, kSt).ok());
  ASSERT_TRUE(s.Pop(kCp, kSt).ok());
  EXPECT_EQ(s.stats().noops, 3);
  // The second pop is pending at Finish: a fourth no-op.
  EXPECT_EQ(Text(s),
            "# recording 't' for config 'default': 5 instruction(s) in 1 piece(s)\n"
            "# piece 0\n"
            "LOAD mem=uop sram=0 dram=0x0 push_next\n"
            "LOAD mem=uop sram=0 dram=0x0 push_next\n"
            "STORE mem=out sram=0 dram=0x0 pop_prev\n"
            "STORE mem=out sram=0 dram=0x0 pop_prev push_prev\n"
            "FINISH pop_next\n");
}

TEST_F(StreamTest, PopWithoutPush) {
  Stream s(cfg, "t");
  Status st = s.Pop(kLd, kCp);
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "stream 't': pop without a matching push on load->compute (0 pushed, 0 "
            "popped so far): Push(load, "
            "compute) must come first");
  ASSERT_TRUE(s.Push(kSt, kCp).ok());
  ASSERT_TRUE(s.Pop(kSt, kCp).ok());
  EXPECT_EQ(s.Pop(kSt, kCp).message(),
            "stream 't': pop without a matching push on store->compute "
            "(1 pushed, 1 popped so far): Push(store, "
            "compute) must come first");
}

TEST_F(StreamTest, NoQueueBetweenLoadAndStore) {
  Stream s(cfg, "t");
  EXPECT_EQ(s.Push(kLd, kSt).message(),
            "stream 't': no dependency-token queue from load to store "
            "(queues: load->compute, compute->load, "
            "compute->store, store->compute)");
  EXPECT_EQ(s.Pop(kCp, kCp).code(), StatusCode::kInvalidArgument);
}

TEST_F(StreamTest, UnbalancedStreamAtFinish) {
  Stream s(cfg, "t");
  Slot a = *s.DeclareSlot("A", 4096);
  ASSERT_TRUE(s.Load(MemType::kInp, 0, a, 0, Row(1)).ok());
  ASSERT_TRUE(s.Push(kLd, kCp).ok());
  ASSERT_TRUE(s.Load(MemType::kInp, 1, a, 1, Row(1)).ok());
  ASSERT_TRUE(s.Push(kLd, kCp).ok());
  ASSERT_TRUE(s.Pop(kLd, kCp).ok());
  ASSERT_TRUE(s.Gemm(Gemm1()).ok());
  auto rec = s.Finish();
  EXPECT_EQ(rec.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(rec.status().message(),
            "stream 't' is unbalanced: 1 token(s) pushed on load->compute "
            "were never popped (first unmatched push: "
            "instruction 1 LOAD mem=inp sram=1 dram=0x10 y_size=1 x_size=1 "
            "x_stride=1 push_next); add Pop(load, "
            "compute) or drop the Push");
  // The stream is intact: popping once more balances it.
  ASSERT_TRUE(s.Pop(kLd, kCp).ok());
  ASSERT_TRUE(s.Gemm(Gemm1()).ok());
  EXPECT_TRUE(s.Finish().ok());
}

TEST_F(StreamTest, DmaOutsideTheBufferNamesBufferAndFootprint) {
  Stream s(cfg, "t");
  Slot a = *s.DeclareSlot("activations", 1000);
  Dma2D d;
  d.y_size = 4;
  d.x_size = 8;
  d.x_stride = 16;
  // Rows 0..3 of 8 tiles with pitch 16 from element 10: elements 10 .. 10+3*16+7 = 65, bytes [160,
  // 1056).
  Status st = s.Load(MemType::kInp, 0, a, 10, d);
  EXPECT_EQ(st.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(st.message(),
            "stream 't': LOAD inp leaves buffer 'activations' (1000 bytes): DRAM "
            "footprint [160, 1056) bytes (4 "
            "row(s) x 8 element(s) of 16 bytes, row pitch 16, from element 10)");
  EXPECT_TRUE(s.Load(MemType::kInp, 0, a, 2, d).ok());  // [32, 928)
  // A store's footprint includes the padding it writes.
  Dma2D p;
  p.y_size = 2;
  p.x_size = 2;
  p.x_pad0 = 1;
  p.x_pad1 = 1;
  p.y_pad1 = 1;
  p.x_stride = 20;
  // rows 3 x cols 4, pitch 20 from element 0: last element 2*20+3 = 43, bytes [0, 704): fits 1000.
  EXPECT_TRUE(s.Store(0, a, 0, p).ok());
  // From element 20: last element 63, bytes [320, 1024): leaves it.
  EXPECT_EQ(s.Store(0, a, 20, p).message(),
            "stream 't': STORE out leaves buffer 'activations' (1000 bytes): DRAM footprint [320, "
            "1024) bytes (3 "
            "row(s) x 4 element(s) of 16 bytes, row pitch 20, from element 20)");
}

TEST_F(StreamTest, SlotsMustFitTheDramTogether) {
  HwConfig small = cfg;
  small.name = "small";
  small.dram_size_bytes = 1 << 16;
  Stream s(small, "t");
  ASSERT_TRUE(s.DeclareSlot("a", 40000).ok());
  StatusOr<Slot> b = s.DeclareSlot("b", 30000);
  EXPECT_EQ(b.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(b.status().message(),
            "stream 't': slot 'b' of 30000 bytes (with the stream's other slots, 70000 bytes) does not fit the "
            "device's DRAM of 65536 bytes (config 'small')");
  StatusOr<Slot> big = Stream(small, "u").DeclareSlot("x", 65537);
  EXPECT_EQ(big.status().message(),
            "stream 'u': slot 'x' of 65537 bytes does not fit the device's DRAM of 65536 bytes (config 'small')");
  EXPECT_TRUE(s.DeclareSlot("c", 65536 - 40000).ok());  // exactly full
}

TEST_F(StreamTest, ScratchpadRangeAndMemoryTypes) {
  Stream s(cfg, "t");
  Slot a = *s.DeclareSlot("A", 1 << 20);
  EXPECT_EQ(s.Load(MemType::kWgt, 1020, a, 0, Row(8)).message(),
            "stream 't': LOAD wgt: scratchpad range [1020, 1028) is outside the wgt scratchpad "
            "(1024 entries)");
  Dma2D pad = Row(2);
  pad.x_pad1 = 2;
  pad.y_pad0 = 1;  // 2 rows x 4 columns written
  EXPECT_EQ(s.Load(MemType::kInp, 2041, a, 0, pad).message(),
            "stream 't': LOAD inp: scratchpad range [2041, 2049) is outside the inp scratchpad "
            "(2048 entries)");
  EXPECT_EQ(s.Store(2047, a, 0, Row(2)).message(),
            "stream 't': STORE out: scratchpad range [2047, 2049) is outside the acc scratchpad "
            "(2048 entries)");
  EXPECT_EQ(s.Load(MemType::kUop, 0, a, 0, Row(1)).message(),
            "stream 't': uop loads are emitted by the kernel cache: pass a Kernel to Gemm/Alu");
  EXPECT_EQ(s.Load(MemType::kOut, 0, a, 0, Row(1)).message(), "stream 't': LOAD cannot target memory type 'out'");
  Dma2D big = Row(70000);
  EXPECT_EQ(s.Load(MemType::kAcc8, 0, a, 0, big).code(),
            StatusCode::kOutOfRange);  // 70000 entries > 2048
  Dma2D wide = Row(1);
  wide.x_pad1 = 16;  // padding fields hold 3 bits
  EXPECT_EQ(s.Load(MemType::kInp, 0, a, 0, wide).message(),
            "stream 't', instruction 0 (LOAD mem=inp sram=0 dram=0x0 y_size=1 x_size=1 x_stride=1 "
            "x_pad1=16): field "
            "'x_pad1' = 16 does not fit in unsigned 3 bits");
  EXPECT_EQ(s.Load(MemType::kInp, 0, Slot{7}, 0, Row(1)).message(),
            "stream 't': slot index 7 was not declared on this stream");
  Buffer none;
  EXPECT_EQ(s.Load(MemType::kInp, 0, none, 0, Row(1)).message(),
            "stream 't': DMA on an invalid (default-constructed) buffer");
  EXPECT_EQ(s.DeclareSlot("A", 10).status().message(), "stream 't': slot 'A' is declared twice");
  EXPECT_EQ(s.size(), 0);
}

TEST_F(StreamTest, KernelKindsAndAluOperands) {
  Stream s(cfg, "t");
  EXPECT_EQ(s.Gemm(Alu1()).message(), "stream 't': kernel 'a' is a ALU kernel, not GEMM");
  EXPECT_EQ(s.Alu(Gemm1(), AluOp::kAdd, 1).message(), "stream 't': kernel 'g' is a GEMM kernel, not ALU");
  EXPECT_EQ(s.Alu(Alu1(), AluOp::kMulShr, 3).message(),
            "stream 't': ALU mulshr takes a vector operand and a shift: use AluVec");
  EXPECT_EQ(s.AluVec(Alu1(), AluOp::kAdd, 3).message(),
            "stream 't': ALU add with a vector operand takes no immediate (imm = 3)");
  EXPECT_EQ(s.Gemm(Kernel()).message(), "stream 't': GEMM with an empty kernel");
  EXPECT_TRUE(s.AluVec(Alu1(), AluOp::kMulShr, 3).ok());
  EXPECT_EQ(s.Alu(Alu1(), AluOp::kAdd, 40000).code(),
            StatusCode::kInvalidArgument);  // imm is 16 bits
  // A kernel built for a config with a larger uop buffer.
  HwConfig tiny = testing::LoadConfigOrDie("configs/tiny.json");
  KernelBuilder b(cfg, KernelKind::kAlu, "wide");
  for (int64_t i = 0; i <= tiny.uop_entries; ++i) b.Uop(0, 0);
  Stream t(tiny, "t");
  EXPECT_EQ(t.Alu(*b.Build(), AluOp::kAdd, 1).message(),
            "stream 't': uop buffer overflow: kernel 'wide' has 513 uops but the uop scratchpad "
            "holds 512");
}

TEST_F(StreamTest, ResidentKernelsAreNotReloadedAndLruEvicts) {
  HwConfig tiny = testing::LoadConfigOrDie("configs/tiny.json");  // 512 uops
  auto make = [&](const char* name, int64_t base) {
    KernelBuilder b(tiny, KernelKind::kAlu, name);
    for (int64_t i = 0; i < 200; ++i) b.Uop(base + (i % 8), 0);
    return *b.Build();
  };
  Kernel k1 = make("k1", 0), k2 = make("k2", 8), k3 = make("k3", 16);
  Stream s(tiny, "t");
  for (const Kernel* k : {&k1, &k2, &k1, &k2}) ASSERT_TRUE(s.Alu(*k, AluOp::kAdd, 1).ok());
  EXPECT_EQ(s.stats().uop_loads, 2);
  EXPECT_EQ(s.stats().kernel_hits, 2);
  ASSERT_TRUE(s.Alu(k3, AluOp::kAdd, 1).ok());  // 600 > 512: evicts k1 (least recently used)
  EXPECT_EQ(s.stats().uop_evictions, 1);
  ASSERT_TRUE(s.Alu(k2, AluOp::kAdd, 1).ok());  // still resident
  ASSERT_TRUE(s.Alu(k1, AluOp::kAdd, 1).ok());  // reloaded, evicting k3
  EXPECT_EQ(s.stats().uop_loads, 4);
  EXPECT_EQ(s.stats().kernel_hits, 3);
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->kernels.size(), 3u);
  EXPECT_EQ(rec->exit_resident.size(), 2u);
  EXPECT_TRUE(rec->requires_resident.empty());
  const auto text = *rec->Disassemble(tiny);
  EXPECT_NE(text.find("LOAD mem=uop sram=0 dram=0x0 y_size=1 x_size=200 x_stride=200  ; kernel 'k1'\n"),
            std::string::npos);
  EXPECT_NE(text.find("LOAD mem=uop sram=0 dram=0x0 y_size=1 x_size=200 x_stride=200  ; kernel 'k3'\n"),
            std::string::npos);
}

TEST_F(StreamTest, SplitsIntoBalancedPiecesEndingInFinish) {
  StreamOptions opts;
  opts.insn_buffer_capacity = 4;
  Stream s(cfg, "t", opts);
  Slot a = *s.DeclareSlot("A", 1 << 16), c = *s.DeclareSlot("C", 1 << 16);
  for (int i = 0; i < 5; ++i) {
    if (i >= 2) {
      ASSERT_TRUE(s.Pop(kCp, kLd).ok());
    }
    ASSERT_TRUE(s.Load(MemType::kInp, i % 2, a, i, Row(1)).ok());
    ASSERT_TRUE(s.Push(kLd, kCp).ok());
    ASSERT_TRUE(s.Pop(kLd, kCp).ok());
    ASSERT_TRUE(s.Gemm(Gemm1(i % 2)).ok());
    if (i + 2 < 5) {
      ASSERT_TRUE(s.Push(kCp, kLd).ok());
    }
    ASSERT_TRUE(s.Push(kCp, kSt).ok());
    ASSERT_TRUE(s.Pop(kCp, kSt).ok());
    ASSERT_TRUE(s.Store(i % 2, c, i, Row(1)).ok());
  }
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  ASSERT_GT(rec->pieces.size(), 1u);
  EXPECT_GT(rec->stats.cut_tokens, 0);
  // Every piece fits, ends with its only FINISH, and is balanced per queue.
  for (const auto& piece : rec->pieces) {
    ASSERT_LE(piece.size(), 4u);
    int64_t bal[4] = {};
    for (size_t i = 0; i < piece.size(); ++i) {
      auto in = Decode(cfg, piece[i]);
      ASSERT_TRUE(in.ok());
      EXPECT_EQ(in->op() == Opcode::kFinish, i + 1 == piece.size());
      const Module m = ModuleOf(*in);
      if (m == kLd) bal[0] += in->push_next, bal[1] -= in->pop_next;
      if (m == kCp) bal[0] -= in->pop_prev, bal[1] += in->push_prev, bal[2] += in->push_next, bal[3] -= in->pop_next;
      if (m == kSt) bal[2] -= in->pop_prev, bal[3] += in->push_prev;
    }
    for (int64_t b : bal) EXPECT_EQ(b, 0);
  }
  EXPECT_EQ(StreamOptions{}.insn_buffer_capacity, 65536);
  opts.insn_buffer_capacity = 1;
  Stream bad(cfg, "t", opts);
  EXPECT_EQ(bad.Finish().status().message(),
            "stream 't': instruction-buffer capacity 1 is too "
            "small (at least 2: one instruction and FINISH)");
}

TEST_F(StreamTest, EmptyStreamHasNoPieces) {
  Stream s(cfg, "t");
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok());
  EXPECT_TRUE(rec->pieces.empty());
}

TEST_F(StreamTest, RecordingRoundTripsThroughBytes) {
  Stream s(cfg, "layer3");
  Slot a = *s.DeclareSlot("A", 4096), c = *s.DeclareSlot("C", 4096);
  ASSERT_TRUE(s.Load(MemType::kInp, 0, a, 3, Row(2)).ok());
  ASSERT_TRUE(s.Push(kLd, kCp).ok());
  ASSERT_TRUE(s.Pop(kLd, kCp).ok());
  ASSERT_TRUE(s.Gemm(Gemm1()).ok());
  ASSERT_TRUE(s.Push(kCp, kSt).ok());
  ASSERT_TRUE(s.Pop(kCp, kSt).ok());
  ASSERT_TRUE(s.Store(0, c, 1, Row(1)).ok());
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok());
  const std::vector<uint8_t> bytes = rec->Serialize();
  auto back = Recording::Deserialize(bytes, "layer3.rec");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(*back->Disassemble(cfg), *rec->Disassemble(cfg));
  EXPECT_EQ(back->FindSlot("C"), 1);
  EXPECT_EQ(back->slots[0].bytes_needed, 80u);
  EXPECT_EQ(back->slots[0].alignment, 16u);
  EXPECT_EQ(back->stats.user_insns, 3);

  std::vector<uint8_t> bad = bytes;
  bad[40] ^= 1;
  EXPECT_EQ(Recording::Deserialize(bad, "x.rec").status().message(), "x.rec: corrupt recording: checksum mismatch");
  EXPECT_EQ(Recording::Deserialize({1, 2, 3}, "x.rec").status().message(),
            "x.rec: not a Tessera recording (bad magic)");
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 60);
  EXPECT_EQ(Recording::Deserialize(cut, "x.rec").status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tessera
