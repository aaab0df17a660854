#include "isa/encoding.h"

#include <gtest/gtest.h>

#include <random>

#include "isa/config.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

using testing::BundledConfigPaths;
using testing::RandomLegalInstruction;

HwConfig Load(const std::string& path) { return testing::LoadConfigOrDie(path); }

TEST(Encoding, RandomRoundTripEveryConfig) {
  for (const std::string& path : BundledConfigPaths()) {
    HwConfig cfg = Load(path);
    std::mt19937_64 rng(42);
    for (int i = 0; i < 20000; ++i) {
      Instruction in = RandomLegalInstruction(cfg, rng);
      auto w = Encode(cfg, in);
      ASSERT_TRUE(w.ok()) << path << ": " << w.status().ToString();
      auto back = Decode(cfg, *w);
      ASSERT_TRUE(back.ok()) << path << ": " << back.status().ToString();
      ASSERT_EQ(*back, in) << path << " iteration " << i;
      uint8_t bytes[16];
      StoreWord(*w, bytes);
      ASSERT_EQ(LoadWord(bytes), *w);
    }
  }
}

TEST(Encoding, UopRoundTripEveryConfig) {
  for (const std::string& path : BundledConfigPaths()) {
    HwConfig cfg = Load(path);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 10000; ++i) {
      Uop u{static_cast<int64_t>(rng() % cfg.acc_entries),
            static_cast<int64_t>(rng() % std::max(cfg.inp_entries, cfg.acc_entries)),
            static_cast<int64_t>(rng() % cfg.wgt_entries)};
      auto w = EncodeUop(cfg, u);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      ASSERT_EQ(DecodeUop(cfg, *w), u);
    }
  }
}

TEST(Encoding, KnownBitPositionsDefaultConfig) {
  HwConfig cfg = Load("configs/default.json");
  Instruction in;
  in.opcode = static_cast<int64_t>(Opcode::kGemm);
  in.pop_prev = 1;
  in.uop_bgn = 1;
  in.uop_end = 2;
  auto w = Encode(cfg, in);
  ASSERT_TRUE(w.ok());
  // opcode [2:0] = 2, pop_prev [3], reset [7], uop_bgn [20:8], uop_end [34:21]
  EXPECT_EQ(w->lo, 2u | (1u << 3) | (1u << 8) | (uint64_t{2} << 21));
  EXPECT_EQ(w->hi, 0u);
}

TEST(EncodingErrors, FieldDoesNotFit) {
  HwConfig cfg = Load("configs/default.json");
  Instruction in;
  in.opcode = static_cast<int64_t>(Opcode::kLoad);
  in.mem = static_cast<int64_t>(MemType::kInp);
  in.y_size = 70000;
  auto w = Encode(cfg, in);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "field 'y_size' = 70000 does not fit in unsigned 14 bits");
  in.y_size = 1;
  in.pad_value = -129;
  EXPECT_EQ(Encode(cfg, in).status().message(), "field 'pad' = -129 does not fit in signed 8 bits");
}

TEST(EncodingErrors, FieldOfAnotherFormat) {
  HwConfig cfg = Load("configs/default.json");
  Instruction in;
  in.opcode = static_cast<int64_t>(Opcode::kAlu);
  in.uop_bgn = 0;
  in.uop_end = 1;
  in.wgt_out = 3;
  EXPECT_EQ(Encode(cfg, in).status().message(), "field 'wgt_out' is not part of ALU (value 3)");
}

TEST(EncodingErrors, IllegalCombinations) {
  HwConfig cfg = Load("configs/default.json");
  Instruction ld;
  ld.opcode = static_cast<int64_t>(Opcode::kLoad);
  ld.mem = static_cast<int64_t>(MemType::kInp);
  ld.pop_prev = 1;
  EXPECT_EQ(Encode(cfg, ld).status().message(),
            "LOAD runs on the load module, which has no previous stage: pop_prev/push_prev are illegal");
  ld.pop_prev = 0;
  ld.mem = static_cast<int64_t>(MemType::kOut);
  EXPECT_EQ(Encode(cfg, ld).status().message(), "LOAD cannot target memory type 'out'");
  ld.mem = static_cast<int64_t>(MemType::kUop);
  ld.x_pad0 = 1;
  EXPECT_EQ(Encode(cfg, ld).status().message(), "uop loads cannot be padded");
  // ovl: only a LOAD of acc or acc8 (the compute module's ALU pipe).
  ld.x_pad0 = 0;
  ld.ovl = 1;
  EXPECT_EQ(Encode(cfg, ld).status().message(),
            "ovl on LOAD mem=uop: only a LOAD of acc or acc8 (the compute module's ALU pipe) may overlap");
  ld.mem = static_cast<int64_t>(MemType::kInp);
  EXPECT_EQ(Encode(cfg, ld).status().message(),
            "ovl on LOAD mem=inp: only a LOAD of acc or acc8 (the compute module's ALU pipe) may overlap");
  for (const MemType m : {MemType::kAcc, MemType::kAcc8}) {
    ld.mem = static_cast<int64_t>(m);
    EXPECT_TRUE(Encode(cfg, ld).ok()) << FindMemType(ld.mem)->name;
  }

  Instruction st;
  st.opcode = static_cast<int64_t>(Opcode::kStore);
  st.mem = static_cast<int64_t>(MemType::kInp);
  EXPECT_EQ(Encode(cfg, st).status().message(), "STORE cannot read memory type 'inp' (only 'out')");
  st.mem = static_cast<int64_t>(MemType::kOut);
  st.push_next = 1;
  EXPECT_EQ(Encode(cfg, st).status().message(),
            "STORE runs on the store module, which has no next stage: pop_next/push_next are illegal");
  st.push_next = 0;
  st.ovl = 1;
  EXPECT_EQ(Encode(cfg, st).status().message(),
            "ovl on STORE mem=out: only a LOAD of acc or acc8 (the compute module's ALU pipe) may overlap");

  Instruction g;
  g.opcode = static_cast<int64_t>(Opcode::kGemm);
  g.uop_bgn = 5;
  g.uop_end = 5;
  EXPECT_EQ(Encode(cfg, g).status().message(), "empty uop range: uop_bgn 5 >= uop_end 5");
  g.uop_end = 8193;
  EXPECT_EQ(Encode(cfg, g).status().message(), "uop_end 8193 is past the uop buffer (8192 entries)");

  Instruction a;
  a.opcode = static_cast<int64_t>(Opcode::kAlu);
  a.uop_bgn = 0;
  a.uop_end = 1;
  a.alu_op = static_cast<int64_t>(AluOp::kMulShr);
  a.use_imm = 1;
  EXPECT_EQ(Encode(cfg, a).status().message(),
            "ALU mulshr takes a vector operand and an immediate shift: use_imm is illegal");
  a.use_imm = 0;
  a.imm = 64;
  EXPECT_EQ(Encode(cfg, a).status().message(), "ALU mulshr imm = 64 is outside [0, 63]");
}

TEST(DecodeErrors, UnknownOpcodeAndReservedBits) {
  HwConfig cfg = Load("configs/default.json");
  Word128 w;
  w.lo = 7;  // opcode 7 is not defined
  EXPECT_EQ(Decode(cfg, w).status().message(), "unknown opcode 7");
  Word128 fin;
  fin.lo = static_cast<uint64_t>(Opcode::kFinish);
  EXPECT_TRUE(Decode(cfg, fin).ok());
  fin.hi = uint64_t{1} << 63;
  EXPECT_EQ(Decode(cfg, fin).status().message(), "FINISH: reserved bits [127:7] are not zero");
}

}  // namespace
}  // namespace tessera
