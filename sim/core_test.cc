// Each instruction's semantics against hand-computed expectations.
#include "sim/core.h"

#include <gtest/gtest.h>

#include "isa/asm.h"
#include "isa/config.h"
#include "sim/dram.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

class CoreTest : public ::testing::Test {
 protected:
  explicit CoreTest(const char* config = "configs/default.json")
      : cfg_(testing::LoadConfigOrDie(config)), dram_(cfg_.dram_size_bytes), core_(cfg_, &dram_) {}

  Instruction Insn(const std::string& text) {
    auto p = Assemble(cfg_, text, "test");
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->insns.size(), 1u);
    return p->insns[0];
  }
  Status Run(const std::string& text) { return core_.Execute(Insn(text), 0); }
  void Poke8(uint64_t addr, int8_t v) { ASSERT_TRUE(dram_.Write(addr, &v, 1).ok()); }
  int8_t Peek8(uint64_t addr) {
    int8_t v = 0;
    EXPECT_TRUE(dram_.Read(addr, &v, 1).ok());
    return v;
  }

  HwConfig cfg_;
  Dram dram_;
  Core core_;
};

TEST_F(CoreTest, LoadInputWithStrideAndPadding) {
  // DRAM input tiles t = 0..8 at 0x1000, lane k of tile t holds t*16 + k - 64.
  for (int t = 0; t < 9; ++t)
    for (int k = 0; k < 16; ++k) Poke8(0x1000 + t * 16 + k, static_cast<int8_t>(t * 16 + k - 64));
  // 2 rows x 2 tiles, DRAM pitch 3 tiles, 1 pad row above, 1 pad column left and right, pad -5.
  ASSERT_TRUE(
      Run("LOAD mem=inp sram=10 dram=0x1010 y_size=2 x_size=2 x_stride=3 y_pad0=1 x_pad0=1 x_pad1=1 pad=-5").ok());
  // SRAM rows: 3 x 4 entries starting at 10.
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) {
      const int entry = 10 + r * 4 + c;
      const bool pad = r == 0 || c == 0 || c == 3;
      const int tile = 1 + (r - 1) * 3 + (c - 1);  // dram element 1 is the base
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(core_.InpLane(entry, 0, k), pad ? -5 : tile * 16 + k - 64) << "entry " << entry << " lane " << k;
    }
  EXPECT_EQ(core_.stats().load_bytes_by_mem[static_cast<int>(MemType::kInp)], 4 * 16);
}

TEST_F(CoreTest, LoadWeightsIsRowMajorOutByIn) {
  for (int i = 0; i < 256; ++i) Poke8(0x2000 + 256 + i, static_cast<int8_t>(i % 251 - 125));
  ASSERT_TRUE(Run("LOAD mem=wgt sram=3 dram=0x2100 y_size=1 x_size=1 x_stride=1").ok());
  for (int o = 0; o < 16; ++o)
    for (int k = 0; k < 16; ++k) ASSERT_EQ(core_.WgtLane(3, o, k), (o * 16 + k) % 251 - 125);
  ASSERT_TRUE(Run("LOAD mem=wgt sram=4 dram=0x2100 y_size=0 x_size=1 x_stride=1 y_pad0=1 pad=9").ok());
  EXPECT_EQ(core_.WgtLane(4, 15, 15), 9);
}

TEST_F(CoreTest, LoadAccumulatorWideAndNarrow) {
  const int32_t words[16] = {INT32_MIN, -1, 0, 1, INT32_MAX, 123456789, -7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_TRUE(dram_.Write(0x3000, words, sizeof(words)).ok());
  ASSERT_TRUE(Run("LOAD mem=acc sram=7 dram=0x3000 y_size=1 x_size=1 x_stride=1").ok());
  for (int o = 0; o < 16; ++o) EXPECT_EQ(core_.AccLane(7, 0, o), words[o]);
  const int8_t narrow[16] = {-128, -1, 0, 1, 127, 100, -100, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  ASSERT_TRUE(dram_.Write(0x3100, narrow, sizeof(narrow)).ok());
  ASSERT_TRUE(Run("LOAD mem=acc8 sram=8 dram=0x3100 y_size=1 x_size=1 x_stride=1 x_pad1=1 pad=-2").ok());
  for (int o = 0; o < 16; ++o) EXPECT_EQ(core_.AccLane(8, 0, o), narrow[o]);  // sign-extended
  EXPECT_EQ(core_.AccLane(9, 0, 0), -2);
}

TEST_F(CoreTest, StoreNarrowsAndPadsInDram) {
  const int32_t acc[2][16] = {{300, -129, 127, -128, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                              {-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16}};
  ASSERT_TRUE(dram_.Write(0x3000, acc, sizeof(acc)).ok());
  ASSERT_TRUE(Run("LOAD mem=acc sram=0 dram=0x3000 y_size=1 x_size=2 x_stride=2").ok());
  // DRAM region: 2 rows (pad row first) x 3 tiles (data, data, pad), pitch 4 tiles.
  ASSERT_TRUE(Run("STORE mem=out sram=0 dram=0x5000 y_size=1 x_size=2 x_stride=4 y_pad0=1 x_pad1=1 pad=7").ok());
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 16; ++k) EXPECT_EQ(Peek8(0x5000 + c * 16 + k), 7);  // pad row
  EXPECT_EQ(Peek8(0x5000 + 64 + 0), 44);                                    // 300 truncated to 8 bits
  EXPECT_EQ(Peek8(0x5000 + 64 + 1), 127);                                   // -129 truncated
  EXPECT_EQ(Peek8(0x5000 + 64 + 16 + 15), -16);
  EXPECT_EQ(Peek8(0x5000 + 64 + 32 + 3), 7);  // right pad tile
  EXPECT_EQ(Peek8(0x5000 + 64 + 48), 0);      // past the region: untouched
  EXPECT_EQ(core_.stats().dram_write_bytes, 6 * 16);
}

TEST_F(CoreTest, GemmLoopsAndReset) {
  // inp entry e lane k = e + k - 8 ; wgt entry w lane (o,k) = (w+1) * (o - k) % 7
  for (int e = 0; e < 4; ++e)
    for (int k = 0; k < 16; ++k) Poke8(0x1000 + e * 16 + k, static_cast<int8_t>(e + k - 8));
  for (int w = 0; w < 2; ++w)
    for (int o = 0; o < 16; ++o)
      for (int k = 0; k < 16; ++k) Poke8(0x2000 + w * 256 + o * 16 + k, static_cast<int8_t>((w + 1) * (o - k) % 7));
  const uint32_t uop = 0;  // dst 0, src 0, wgt 0
  ASSERT_TRUE(dram_.Write(0x800, &uop, 4).ok());
  ASSERT_TRUE(Run("LOAD mem=uop sram=0 dram=0x800 y_size=1 x_size=1 x_stride=1").ok());
  ASSERT_TRUE(Run("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4").ok());
  ASSERT_TRUE(Run("LOAD mem=wgt sram=0 dram=0x2000 y_size=1 x_size=2 x_stride=2").ok());
  ASSERT_TRUE(Run("GEMM reset uop_bgn=0 uop_end=1 iter_out=2 iter_in=1 dst_out=1").ok());
  // acc[i0] += sum_i1 inp[2*i0 + i1] . wgt[i1]
  ASSERT_TRUE(Run("GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=2 dst_out=1 src_out=2 src_in=1 wgt_in=1").ok());
  for (int i0 = 0; i0 < 2; ++i0)
    for (int o = 0; o < 16; ++o) {
      int32_t want = 0;
      for (int i1 = 0; i1 < 2; ++i1)
        for (int k = 0; k < 16; ++k) want += (2 * i0 + i1 + k - 8) * ((i1 + 1) * (o - k) % 7);
      ASSERT_EQ(core_.AccLane(i0, 0, o), want) << i0 << "," << o;
    }
  EXPECT_EQ(core_.stats().macs, 4 * 256);
  EXPECT_EQ(core_.stats().gemm_iterations, 2 + 4);
}

TEST_F(CoreTest, AluVectorImmediateAndLoops) {
  int32_t rows[3][16];
  for (int r = 0; r < 3; ++r)
    for (int o = 0; o < 16; ++o) rows[r][o] = (r + 1) * 100 * (o % 2 ? -1 : 1) + o;
  ASSERT_TRUE(dram_.Write(0x3000, rows, sizeof(rows)).ok());
  // uop: dst 0, src 2 (layout dst[10:0] src[21:11])
  const uint32_t uop = 2u << 11;
  ASSERT_TRUE(dram_.Write(0x800, &uop, 4).ok());
  ASSERT_TRUE(Run("LOAD mem=uop sram=0 dram=0x800 y_size=1 x_size=1 x_stride=1").ok());
  ASSERT_TRUE(Run("LOAD mem=acc sram=0 dram=0x3000 y_size=1 x_size=3 x_stride=3").ok());
  // acc[0] = max(acc[0], acc[2]) ; acc[1] = max(acc[1], acc[2]) via dst_out=1
  ASSERT_TRUE(Run("ALU op=max uop_bgn=0 uop_end=1 iter_out=2 iter_in=1 dst_out=1").ok());
  EXPECT_EQ(core_.AccLane(0, 0, 0), 300);   // max(100, 300)
  EXPECT_EQ(core_.AccLane(0, 0, 1), -99);   // max(-99, -299)
  EXPECT_EQ(core_.AccLane(1, 0, 1), -199);  // max(-199, -299)
  ASSERT_TRUE(Run("ALU op=mulshr imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1").ok());
  EXPECT_EQ(core_.AccLane(0, 0, 0), 45000);  // 300 * 300 / 2
  EXPECT_EQ(core_.AccLane(0, 0, 1), 14801);  // -99 * -299 = 29601 / 2 = 14800.5 -> 14801
  ASSERT_TRUE(Run("ALU op=clip use_imm imm=127 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1").ok());
  EXPECT_EQ(core_.AccLane(0, 0, 0), 127);
  ASSERT_TRUE(Run("ALU op=shr use_imm imm=-2 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1").ok());
  EXPECT_EQ(core_.AccLane(0, 0, 0), 508);
  ASSERT_TRUE(Run("ALU reset op=add uop_bgn=0 uop_end=1 iter_out=1 iter_in=1").ok());
  EXPECT_EQ(core_.AccLane(0, 0, 5), 0);
  EXPECT_EQ(core_.stats().alu_iterations, 2 + 1 + 1 + 1 + 1);
}

TEST_F(CoreTest, BoundsErrorsNameTheInstruction) {
  Status s = core_.Execute(Insn("LOAD mem=inp sram=2040 dram=0 y_size=1 x_size=9 x_stride=9"), 17);
  EXPECT_EQ(s.message(),
            "instruction 17 (LOAD mem=inp sram=2040 dram=0x0 y_size=1 x_size=9 x_stride=9): scratchpad range [2040, "
            "2049) is outside the inp scratchpad (2048 entries)");
  s = core_.Execute(Insn("LOAD mem=inp sram=0 dram=0x3ffffff0 y_size=2 x_size=1 x_stride=1"), 3);
  EXPECT_EQ(s.message(),
            "instruction 3 (LOAD mem=inp sram=0 dram=0x3ffffff0 y_size=2 x_size=1 x_stride=1): DRAM range "
            "[0x3ffffff0, 0x40000010) is outside DRAM (1073741824 bytes)");
  s = core_.Execute(Insn("STORE mem=out sram=2047 dram=0 y_size=1 x_size=2 x_stride=2"), 4);
  EXPECT_NE(s.message().find("scratchpad range [2047, 2049) is outside the out scratchpad"), std::string::npos);
  const uint32_t uop = 2000;  // dst 2000
  ASSERT_TRUE(dram_.Write(0x800, &uop, 4).ok());
  ASSERT_TRUE(Run("LOAD mem=uop sram=0 dram=0x800 y_size=1 x_size=1 x_stride=1").ok());
  s = core_.Execute(Insn("GEMM uop_bgn=0 uop_end=1 iter_out=100 iter_in=1 dst_out=1"), 9);
  EXPECT_EQ(
      s.message(),
      "instruction 9 (GEMM uop_bgn=0 uop_end=1 iter_out=100 iter_in=1 dst_out=1): iteration i0=48 i1=0 uop 0: acc "
      "index 2048 is outside the scratchpad (2048 entries)");
  s = core_.Execute(Insn("GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 wgt_in=1 src_out=2047"), 9);
  EXPECT_TRUE(s.ok()) << s.ToString();
  s = core_.Execute(Insn("GEMM uop_bgn=0 uop_end=1 iter_out=3 iter_in=1 src_out=1024"), 10);
  EXPECT_NE(s.message().find("iteration i0=2 i1=0 uop 0: inp index 2048 is outside"), std::string::npos) << s.message();
}

TEST_F(CoreTest, SteppedLoadAndStoreMatchExecute) {
  // A core without DRAM, fed row by row (as the SystemC model does over TLM),
  // ends with the same scratchpads and produces the same DRAM rows.
  for (uint64_t a = 0; a < 0x2000; ++a) Poke8(0x4000 + a, static_cast<int8_t>(a * 37 + 11));
  Core stepped(cfg_, cfg_.dram_size_bytes);
  const char* loads[] = {
      "LOAD mem=inp sram=5 dram=0x4000 y_size=3 x_size=2 x_stride=5 y_pad0=1 y_pad1=2 x_pad0=1 x_pad1=1 pad=-3",
      "LOAD mem=wgt sram=1 dram=0x4100 y_size=2 x_size=1 x_stride=3 x_pad0=1 pad=4",
      "LOAD mem=acc sram=9 dram=0x4200 y_size=2 x_size=3 x_stride=4 y_pad1=1 pad=-7",
      "LOAD mem=acc8 sram=30 dram=0x4400 y_size=1 x_size=4 x_stride=4 x_pad1=2 pad=5"};
  for (const char* text : loads) {
    const Instruction in = Insn(text);
    ASSERT_TRUE(core_.Execute(in, 0).ok());
    ASSERT_TRUE(stepped.BeginLoad(in, 0).ok());
    const int64_t eb = cfg_.ElementBytes(in.mem_type());
    std::vector<uint8_t> row(static_cast<size_t>(in.x_size * eb));
    for (int64_t r = 0; r < in.y_size; ++r) {
      ASSERT_TRUE(dram_.Read((in.dram + r * in.x_stride) * eb, row.data(), row.size()).ok());
      stepped.LoadRow(in, r, row.data());
    }
    stepped.Count(in);
  }
  EXPECT_EQ(stepped.sp().inp, core_.sp().inp);
  EXPECT_EQ(stepped.sp().wgt, core_.sp().wgt);
  EXPECT_EQ(stepped.sp().acc, core_.sp().acc);
  EXPECT_EQ(stepped.stats().dram_read_bytes(), core_.stats().dram_read_bytes());
  const Instruction st = Insn("STORE mem=out sram=9 dram=0x8000 y_size=2 x_size=2 x_stride=6 y_pad0=1 x_pad1=2 pad=3");
  ASSERT_TRUE(core_.Execute(st, 0).ok());
  ASSERT_TRUE(stepped.BeginStore(st, 0).ok());
  std::vector<uint8_t> mine(4 * 16), theirs(4 * 16);
  for (int64_t r = 0; r < 3; ++r) {
    stepped.StoreRow(st, r, mine.data());
    ASSERT_TRUE(dram_.Read((st.dram + r * 6) * 16, theirs.data(), theirs.size()).ok());
    EXPECT_EQ(mine, theirs) << "row " << r;
  }
  stepped.Count(st);
  EXPECT_EQ(stepped.stats().dram_write_bytes, core_.stats().dram_write_bytes);
  // Bounds are checked against the DRAM size the core was given.
  Core small(cfg_, 0x1000);
  EXPECT_EQ(small.BeginLoad(Insn("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=1 x_stride=1"), 6).code(),
            StatusCode::kOutOfRange);
}

class TinyCoreTest : public CoreTest {
 protected:
  TinyCoreTest() : CoreTest("configs/tiny.json") {}
};

TEST_F(TinyCoreTest, GemmOnA4x4Core) {
  for (int k = 0; k < 4; ++k) Poke8(0x100 + k, static_cast<int8_t>(k + 1));                    // x = 1 2 3 4
  for (int i = 0; i < 16; ++i) Poke8(0x200 + i, static_cast<int8_t>(i / 4 == i % 4 ? 2 : 0));  // W = 2 I
  const uint32_t uop = 0;
  ASSERT_TRUE(dram_.Write(0x80, &uop, 4).ok());
  ASSERT_TRUE(Run("LOAD mem=uop sram=0 dram=0x80 y_size=1 x_size=1 x_stride=1").ok());
  ASSERT_TRUE(Run("LOAD mem=inp sram=0 dram=0x100 y_size=1 x_size=1 x_stride=1").ok());
  ASSERT_TRUE(Run("LOAD mem=wgt sram=0 dram=0x200 y_size=1 x_size=1 x_stride=1").ok());
  ASSERT_TRUE(Run("GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=3").ok());  // three times the same
  for (int o = 0; o < 4; ++o) EXPECT_EQ(core_.AccLane(0, 0, o), 3 * 2 * (o + 1));
}

}  // namespace
}  // namespace tessera
