#include "isa/asm.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "isa/config.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

using testing::BundledConfigPaths;
using testing::LoadConfigOrDie;

HwConfig Default() { return LoadConfigOrDie("configs/default.json"); }

std::string AsmError(const std::string& text) {
  HwConfig cfg = Default();
  auto p = Assemble(cfg, text, "t.s");
  EXPECT_FALSE(p.ok()) << "expected an error for:\n" << text;
  return p.ok() ? "" : p.status().message();
}

std::vector<uint8_t> Bytes(const HwConfig& cfg, const Program& p) {
  auto b = SerializeProgram(cfg, p);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : std::vector<uint8_t>{};
}

TEST(Assembler, FieldsSymbolsAndExpressions) {
  HwConfig cfg = Default();
  auto p = Assemble(cfg, R"(
.equ N, 3
.equ BASE 0x100 << 4      # 0x1000
.data a BASE + 16 i8
  1, -2, 3,
  4
.end
LOAD mem=inp sram=(N*2)-1 dram=a y_size=a.count/4 x_size=1 x_stride=BLOCK_IN push_next ; comment
ALU op=clip use_imm imm=-(1<<7)+255 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 // comment
FINISH
)",
                    "t.s");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->insns.size(), 3u);
  EXPECT_EQ(p->insns[0].sram, 5);
  EXPECT_EQ(p->insns[0].dram, (0x1000 + 16) / cfg.inp_tile_bytes);  // byte address -> element
  EXPECT_EQ(p->insns[0].y_size, 1);
  EXPECT_EQ(p->insns[0].x_stride, 16);
  EXPECT_EQ(p->insns[0].push_next, 1);
  EXPECT_EQ(p->insns[1].imm, 127);
  EXPECT_EQ(p->insns[1].iter_out, 1);
  EXPECT_EQ(p->insn_lines, (std::vector<int>{8, 9, 10}));
  ASSERT_EQ(p->segments.size(), 1u);
  EXPECT_EQ(p->segments[0].bytes, (std::vector<uint8_t>{1, 0xfe, 3, 4}));
}

TEST(Assembler, ForwardReferencesAndRandomData) {
  HwConfig cfg = Default();
  const char* text = R"(
LOAD mem=uop sram=0 dram=k y_size=1 x_size=k.count x_stride=k.count
GEMM uop_bgn=0 uop_end=k.count iter_out=1 iter_in=1
FINISH
.uops k 0x1000
  dst=1 src=2 wgt=3
  wgt=4, dst=5
.end
.random r 0x2000 i8 count=100 seed=7 min=-3 max=3
)";
  auto a = Assemble(cfg, text, "t.s");
  auto b = Assemble(cfg, text, "t.s");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->insns[0].x_size, 2);
  EXPECT_EQ(a->insns[1].uop_end, 2);
  ASSERT_EQ(a->segments.size(), 2u);
  EXPECT_EQ(a->segments[1].count(), 100u);
  for (size_t i = 0; i < 100; ++i) {
    EXPECT_GE(a->segments[1].Element(i), -3);
    EXPECT_LE(a->segments[1].Element(i), 3);
  }
  EXPECT_EQ(Bytes(cfg, *a), Bytes(cfg, *b));  // deterministic
}

TEST(Assembler, ForLoopsNestAndWorkInsideSegments) {
  HwConfig cfg = Default();
  auto p = Assemble(cfg, R"(
.data ident 0x2000 i8
.for o, 0, 4
.for k, 0, 4
  (o == k) * 100 + (o < k) + o * 4 + k - (k >= 2) * 0 - (o != o)
.endfor
.endfor
.end
.uops k 0x1000
.for i, 0, 3
  dst=i src=2*i
.endfor
.end
.for i, 0, 2
.for j, 1, 3
ALU op=add use_imm imm=10*i+j uop_bgn=0 uop_end=1 iter_out=1 iter_in=1
.endfor
.endfor
FINISH
)",
                    "t.s");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->insns.size(), 5u);
  EXPECT_EQ(p->insns[0].imm, 1);
  EXPECT_EQ(p->insns[1].imm, 2);
  EXPECT_EQ(p->insns[2].imm, 11);
  EXPECT_EQ(p->insns[3].imm, 12);
  EXPECT_EQ(p->insn_lines[3], 16);  // line of the ALU inside the loop body
  EXPECT_EQ(p->segments[0].count(), 16u);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(p->segments[0].Element(i), (i / 4 == i % 4) * 100 + (i / 4 < i % 4) + i);
  EXPECT_EQ(p->segments[1].count(), 3u);
  EXPECT_EQ(AsmError(".for i, 0, 2\nFINISH\n"), "t.s:1: .for is not closed by .endfor");
  EXPECT_EQ(AsmError(".endfor\n"), "t.s:1:1: .endfor without .for");
  EXPECT_EQ(AsmError(".equ i 3\n.for i, 0, 2\n.endfor\n"), "t.s:2:6: loop variable 'i' shadows an existing symbol");
  EXPECT_EQ(AsmError(".for i, 0, 2\nLOAD mem=inp y_sz=i\n.endfor\n"),
            "t.s:2:14: unknown field 'y_sz' for LOAD; expected one of: pop_prev pop_next push_prev push_next mem sram "
            "dram y_size x_size x_stride y_pad0 y_pad1 x_pad0 x_pad1 pad ovl");
}

TEST(Assembler, ExamplesRoundTripOnEveryConfig) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator("examples/programs")) {
    if (entry.path().extension() != ".s") continue;
    for (const std::string& path : BundledConfigPaths()) {
      HwConfig cfg = LoadConfigOrDie(path);
      auto p1 = AssembleFile(cfg, entry.path().string());
      if (testing::TooBigForSmallDram(cfg, p1.status())) continue;
      ASSERT_TRUE(p1.ok()) << entry.path() << " on " << path << ": " << p1.status().ToString();
      std::vector<uint8_t> b1 = Bytes(cfg, *p1);
      auto p2 = Assemble(cfg, Disassemble(cfg, *p1), "disasm");
      ASSERT_TRUE(p2.ok()) << p2.status().ToString();
      EXPECT_EQ(b1, Bytes(cfg, *p2)) << entry.path() << " on " << path;
      auto p3 = ParseProgramObject(cfg, b1, "bin");
      ASSERT_TRUE(p3.ok()) << p3.status().ToString();
      EXPECT_EQ(Disassemble(cfg, *p3), Disassemble(cfg, *p1));
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

TEST(Assembler, RandomProgramsRoundTripOnEveryConfig) {
  for (const std::string& path : BundledConfigPaths()) {
    HwConfig cfg = LoadConfigOrDie(path);
    std::mt19937_64 rng(1234);
    for (int i = 0; i < 200; ++i) {
      Program p = testing::RandomProgramObject(cfg, rng, 1 + static_cast<int>(rng() % 50));
      std::vector<uint8_t> b1 = Bytes(cfg, p);
      std::string text = Disassemble(cfg, p);
      auto p2 = Assemble(cfg, text, "disasm");
      ASSERT_TRUE(p2.ok()) << path << ": " << p2.status().ToString() << "\n" << text;
      ASSERT_EQ(b1, Bytes(cfg, *p2)) << path << " program " << i;
    }
  }
}

TEST(AssemblerErrors, FileLineColumnAndWhatWasExpected) {
  EXPECT_EQ(AsmError("FINISH\nLOD mem=inp\n"),
            "t.s:2:1: unknown mnemonic 'LOD'; expected LOAD STORE GEMM ALU FINISH or a directive");
  EXPECT_EQ(AsmError("LOAD mem=inp y_sz=3\n"),
            "t.s:1:14: unknown field 'y_sz' for LOAD; expected one of: pop_prev pop_next push_prev push_next mem "
            "sram dram y_size x_size x_stride y_pad0 y_pad1 x_pad0 x_pad1 pad ovl");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size 3\n"), "t.s:1:21: expected '=' after field 'y_size'");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=\n"), "t.s:1:21: expected a number, symbol or '(', found end of line");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=(1\n"), "t.s:1:23: expected ')', found end of line");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=12ab\n"), "t.s:1:21: malformed number '12a'");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=nope\n"), "t.s:1:21: undefined symbol 'nope'");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=4/0\n"), "t.s:1:22: division by zero");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=sqrt(4)\n"), "t.s:1:21: unknown function 'sqrt'; expected min, max or log2");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=log2(0)\n"), "t.s:1:21: log2 of 0 is undefined");
  EXPECT_EQ(AsmError("LOAD mem=bogus\n"), "t.s:1:6: unknown memory type 'bogus'; expected uop wgt inp acc out acc8");
  EXPECT_EQ(AsmError("ALU op=div uop_bgn=0 uop_end=1\n"),
            "t.s:1:5: unknown ALU operation 'div'; expected min max add shr mul mulshr clip mov mulshrc");
  EXPECT_EQ(AsmError("LOAD mem=inp y_size=1 y_size=2\n"), "t.s:1:23: field 'y_size' given twice");
  EXPECT_EQ(AsmError("LOAD mem=inp dram=0x1001\n"),
            "t.s:1:14: dram address 0x1001 is not a multiple of the inp element size (16 bytes)");
  EXPECT_EQ(AsmError("\n\n  LOAD mem=inp y_size=65536\n"),
            "t.s:3:3: field 'y_size' = 65536 does not fit in unsigned 14 bits");
  EXPECT_EQ(AsmError("STORE mem=out push_next\n"),
            "t.s:1:1: STORE runs on the store module, which has no next stage: pop_next/push_next are illegal");
  EXPECT_EQ(AsmError("FINISH @\n"), "t.s:1:8: unexpected character '@'");
  EXPECT_EQ(AsmError("= 3\n"), "t.s:1:1: expected an instruction mnemonic or a directive");
}

TEST(AssemblerErrors, Directives) {
  EXPECT_EQ(AsmError(".equ A 1\n.equ A 2\n"), "t.s:2:6: symbol 'A' is already defined");
  EXPECT_EQ(
      AsmError(".bogus\n"),
      "t.s:1:1: unknown directive '.bogus'; expected one of .text .equ .data .uops .random .expect .end .for .endfor");
  EXPECT_EQ(AsmError(".end\n"), "t.s:1:1: .end without an open segment");
  EXPECT_EQ(AsmError(".data a 0x100 i8\n 1\n"), "t.s:1: segment 'a' is not closed by .end");
  EXPECT_EQ(AsmError(".data a 0x100 f32\n.end\n"),
            "t.s:1:15: unknown element type 'f32'; expected i8 u8 i16 u16 i32 u32");
  EXPECT_EQ(AsmError(".data a 0x101 i32\n.end\n"), "t.s:1:9: address 0x101 is not aligned to i32 elements");
  EXPECT_EQ(AsmError(".data a 0x100 i8\n 1, 200\n.end\n"), "t.s:2:5: value 200 does not fit i8 [-128, 127]");
  EXPECT_EQ(AsmError(".data a 0x100 i8\n 1 2\n.end\n"), "t.s:2:4: expected ',', found '2'");
  EXPECT_EQ(AsmError(".uops k 0x100\n dst=1 bogus=2\n.end\n"),
            "t.s:2:8: unknown uop field 'bogus'; expected dst src wgt");
  EXPECT_EQ(AsmError(".uops k 0x100\n dst=99999\n.end\n"), "t.s:2: uop field 'dst' = 99999 does not fit in 11 bits");
  EXPECT_EQ(AsmError(".text 0x104\n"), "t.s:1:1: .text address 260 is not a non-negative multiple of 16");
  EXPECT_EQ(AsmError(".random r 0x100 i8 count=4 seed=1 min=5 max=2\n"),
            "t.s:1:35: random range [5, 2] is empty or outside i8");
  EXPECT_EQ(AsmError(".random r 0x100 i8 count=4\n"), "t.s:1:1: .random needs seed=");
  EXPECT_EQ(AsmError(".random r 0x100 i8 count=4 seed=1 size=3\n"),
            "t.s:1:35: unknown .random argument 'size'; expected count seed min max");
  EXPECT_EQ(AsmError(".data a 0x100 i8\n1,2,3,4\n.end\n.data b 0x102 u8\n9\n.end\n"),
            "t.s: data segment 'a' [0x100, 0x104) overlaps data segment 'b' [0x102, 0x103)");
  EXPECT_EQ(AsmError(".data a 0x0 i8\n1\n.end\nFINISH\n"),
            "t.s: the instruction stream [0x0, 0x10) overlaps data segment 'a' [0x0, 0x1)");
  EXPECT_EQ(AsmError(".data a 0x3ffffffff i8\n1\n.end\n"),
            "t.s: segment 'a' [0x3ffffffff, 0x400000000) is outside DRAM (1073741824 bytes)");
}

// Issue 15, finding 3: deeply nested input is an error, not a stack overflow;
// loops and generated data are bounded before the work is done.
TEST(AssemblerErrors, BoundedNestingAndExpansion) {
  auto line = [](const std::string& expr) { return "ALU op=add use_imm imm=" + expr + " uop_bgn=0 uop_end=1\n"; };
  EXPECT_EQ(AsmError(line(std::string(3000, '(') + "1" + std::string(3000, ')'))),
            "t.s:1:280: expression nested more than 256 levels deep");
  EXPECT_EQ(AsmError(line(std::string(100000, '-') + "1")), "t.s:1:280: expression nested more than 256 levels deep");
  EXPECT_EQ(AsmError(line(std::string(100000, '~') + "1")), "t.s:1:280: expression nested more than 256 levels deep");
  std::string chain = "1";
  for (int i = 0; i < 100000; ++i) chain += "+1";
  EXPECT_EQ(AsmError(line(chain)), "t.s:1:535: expression nested more than 256 levels deep");
  std::string calls;
  for (int i = 0; i < 3000; ++i) calls += "min(1,";
  EXPECT_NE(AsmError(line(calls + "1" + std::string(3000, ')'))).find("nested more than 256 levels deep"),
            std::string::npos);
  // Within the bound: 201 nested levels and a 256-term sum evaluate.
  HwConfig cfg = Default();
  std::string sum = "0";
  for (int i = 0; i < 255; ++i) sum += "+(" + std::to_string(i % 2) + ")";
  auto ok = Assemble(
      cfg, line(std::string(100, '(') + std::string(101, '-') + "7" + std::string(100, ')')) + line(sum) + "FINISH\n",
      "t.s");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->insns[0].imm, -7);
  EXPECT_EQ(ok->insns[1].imm, 127);
  // INT64_MIN negates (wrapping, like + - *) without undefined behaviour.
  EXPECT_EQ(AsmError(".equ m -(1 << 63)\n.equ n -m\n" + line("n")),
            "t.s:3:1: field 'imm' = -9223372036854775808 does not fit in signed 16 bits");
  // .for: nesting depth, the total expansion and overflowing ranges are bounded.
  std::string nest;
  for (int i = 0; i < 17; ++i) nest += ".for v" + std::to_string(i) + ", 0, 1\n";
  for (int i = 0; i < 17; ++i) nest += ".endfor\n";
  EXPECT_EQ(AsmError(nest), "t.s:17:1: .for loops nest more than 16 deep");
  EXPECT_EQ(AsmError(".for a, 0, 1000000\n.for b, 0, 1000000\nFINISH\n.endfor\n.endfor\n"),
            "t.s:3: the source expands (through .for) to more than 2097152 tokens");
  EXPECT_EQ(AsmError(".for a, -(1 << 62), 1 << 62\n.endfor\n"),
            "t.s:1:1: .for range [-4611686018427387904, 4611686018427387904) has too many iterations (at most 2^20)");
  EXPECT_EQ(AsmError(".for a, -(1 << 63), (1 << 63) - 1\n.endfor\n"),
            "t.s:1:1: .for range [-9223372036854775808, 9223372036854775807) has too many iterations (at most 2^20)");
  // .random data is checked against DRAM before it is generated.
  HwConfig tiny = LoadConfigOrDie("configs/tiny.json");  // 16 MiB of DRAM
  auto two =
      Assemble(tiny, ".random r 0x1000 i8 count=10000000 seed=1\n.random s 0x2000 i8 count=10000000 seed=1\n", "t.s");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), "t.s:2:1: .random segment 's' does not fit in DRAM (16777216 bytes)");
  EXPECT_EQ(two.status().code(), StatusCode::kResourceExhausted);  // what tests skip examples on
  EXPECT_EQ(AsmError(".random r 0x40000000 i8 count=1 seed=1\n"),
            "t.s:1:1: .random segment 'r' does not fit in DRAM (1073741824 bytes)");
}

TEST(ProgramObjectErrors, CorruptionIsReported) {
  HwConfig cfg = Default();
  auto p = AssembleFile(cfg, "examples/programs/gemm_small.s");
  ASSERT_TRUE(p.ok());
  std::vector<uint8_t> good = Bytes(cfg, *p);
  auto err = [&](std::vector<uint8_t> b) {
    auto r = ParseProgramObject(cfg, b, "x.bin");
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  std::vector<uint8_t> b = good;
  b[0] = 'X';
  EXPECT_EQ(err(b), "x.bin: not a Tessera program object (bad magic)");
  b = good;
  b[8] = 9;
  EXPECT_EQ(err(b), "x.bin: program object version 9 is not supported (expected 1)");
  b = good;
  b.resize(50);
  EXPECT_NE(err(b).find("x.bin: truncated program object"), std::string::npos);
  b = good;
  b.push_back(0);
  EXPECT_EQ(err(b), "x.bin: 1 trailing bytes after the last segment");
  b = good;
  b[40] = 7;  // first instruction's opcode byte
  EXPECT_EQ(err(b), "x.bin: instruction 0: unknown opcode 7");
  HwConfig tiny = LoadConfigOrDie("configs/tiny.json");
  auto r = ParseProgramObject(tiny, good, "x.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("assembled for a config with isa fingerprint"), std::string::npos);
}

}  // namespace
}  // namespace tessera
