// The reference simulator end to end, and every fault it must catch.
#include "sim/ref.h"

#include <gtest/gtest.h>

#include "isa/asm.h"
#include "isa/config.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct Outcome {
  Status run, expect;
  DeviceCounters stats;
};

Outcome RunText(const std::string& text, const char* config = "configs/default.json", bool compute_overlap = false,
                bool serial = false) {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  cfg.compute_overlap = compute_overlap ? 1 : 0;
  cfg.serial = serial ? 1 : 0;
  auto prog = Assemble(cfg, text, "t.s");
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  RefSim ref(cfg, &dram);
  Outcome o;
  o.run = ref.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()));
  o.expect = CheckExpectations(*prog, dram);
  o.stats = ref.stats();
  return o;
}

const char* kUop = ".uops k 0x1000\n dst=0 src=0 wgt=0\n.end\n";

TEST(Ref, ExampleGemmMatchesItsExpectations) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto prog = AssembleFile(cfg, "examples/programs/gemm_small.s");
  ASSERT_TRUE(prog.ok()) << prog.status().ToString();
  Dram dram(cfg.dram_size_bytes);
  ASSERT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  RefSim ref(cfg, &dram);
  Status s = ref.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()));
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(CheckExpectations(*prog, dram).ok());
  EXPECT_EQ(ref.stats().macs, 4 * 256);
  EXPECT_EQ(ref.stats().insns_by_opcode[static_cast<int>(Opcode::kGemm)], 2);
  EXPECT_EQ(ref.stats().insn_fetch_bytes, 9 * 16);
}

TEST(Ref, ExpectationMismatchIsReported) {
  Outcome o = RunText(".text 0x100\n.expect e 0x0 i8\n 1, 2\n.end\nFINISH\n");
  ASSERT_TRUE(o.run.ok());
  EXPECT_EQ(o.expect.message(),
            "2 element(s) differ from the expected DRAM contents:\n  e[0] at 0x0: expected 1, got 0\n  e[1] at "
            "0x1: expected 2, got 0");
}

TEST(RefFaults, DeadlockNamesEachQueueAndTheTokens) {
  Outcome o = RunText("LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 pop_next\nFINISH pop_prev\n");
  EXPECT_EQ(o.run.message(),
            "deadlock: no module can make progress\n"
            "  load:    next #0 LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 pop_next; waits for a "
            "token on compute->load (empty)\n"
            "  compute: next #1 FINISH pop_prev; waits for a token on load->compute (empty)\n"
            "  store:   idle (command queue empty)\n"
            "  fetch:   2 of 2 instructions fetched\n"
            "  tokens:  load->compute 0, compute->load 0, compute->store 0, store->compute 0");
}

TEST(RefFaults, MissingTokenIsARaceReadAfterWrite) {
  Outcome o = RunText(std::string(kUop) +
                      "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
                      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1\n"
                      "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
                      "FINISH\n");
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_EQ(o.run.message(),
            "race on inp entry 0: instruction 2 (GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1) on the compute module "
            "reads it, but the write by instruction 0 (LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1) "
            "on the load module is not ordered before it by a dependency token");
}

TEST(RefFaults, MissingTokenIsARaceWriteAfterRead) {
  // compute reads inp 0, then load overwrites it without waiting for compute.
  Outcome o = RunText(std::string(kUop) +
                      "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 push_next\n"
                      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1\n"
                      "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 pop_prev\n"
                      "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
                      "FINISH\n");
  // The ref runs load before compute each round, so the second LOAD executes first: compute's
  // GEMM then reads an entry written by an unordered LOAD.
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("race on inp entry 0"), std::string::npos) << o.run.message();
}

TEST(RefFaults, StoreBeforeComputeIsARaceOnOut) {
  Outcome o = RunText(std::string(kUop) +
                      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1\n"
                      "ALU op=mov use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
                      "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 push_prev\n"
                      "FINISH pop_next\n");
  EXPECT_NE(o.run.message().find("race on out entry 0: instruction 2 (STORE"), std::string::npos) << o.run.message();
  EXPECT_NE(o.run.message().find("on the store module reads it, but the write by instruction 1 (ALU"),
            std::string::npos);
}

// Overlap (ovl, sim/timing.h): an ALU with ovl may run beside the GEMM before
// it, so it must not touch that GEMM's rows nor its accumulator bank (default:
// 2048 entries, banks [0, 1024) and [1024, 2048)), and a token it pushes does
// not cover that GEMM. Uop 1 is in the second bank, uop 2 in the first.
const char* kOverlapUops =
    ".uops k 0x1000\n dst=0 src=0 wgt=0\n dst=1024 src=0 wgt=0\n dst=8 src=0 wgt=0\n.end\n"
    "LOAD mem=uop sram=0 dram=k y_size=1 x_size=3 x_stride=3\n"
    "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n";

TEST(Ref, OverlapOnDisjointRowsIsNoRace) {
  Outcome o = RunText(std::string(kOverlapUops) +
                          "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 ovl\n"
                          "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 ovl\n"
                          "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_TRUE(o.run.ok()) << o.run.ToString();
}

TEST(RefFaults, OverlapOnTheGemmRowsIsARace) {
  Outcome o = RunText(std::string(kOverlapUops) +
                          "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_EQ(o.run.message(),
            "race on acc entry 0: instruction 2 (ALU uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 op=add imm=1 use_imm "
            "ovl) on the compute module's ALU pipe reads it, but the write by instruction 1 (GEMM uop_bgn=0 uop_end=1 "
            "iter_out=1 iter_in=1) on its GEMM pipe may overlap it: an instruction with ovl must not touch the rows of "
            "the older instruction on the other pipe");
}

TEST(Ref, OvlIsIgnoredWithoutComputeOverlap) {
  Outcome o = RunText(std::string(kOverlapUops) +
                      "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 ovl\n"
                      "FINISH\n");
  EXPECT_TRUE(o.run.ok()) << o.run.ToString();
}

TEST(RefFaults, OverlappedGemmAfterAnAluOnItsRowsIsARace) {
  // The GEMM may start beside the ALU before it (the ALU's rows are the GEMM's: write after write).
  Outcome o = RunText(std::string(kOverlapUops) +
                          "ALU op=mov use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 reset\n"
                          "GEMM uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 reset ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("race on acc entry 1024: instruction 3 (GEMM"), std::string::npos) << o.run.message();
}

TEST(RefFaults, OverlapOnDisjointRowsOfOneBankIsABankConflict) {
  // Rows 0 and 8 are disjoint but share the first bank's ports.
  Outcome o = RunText(std::string(kOverlapUops) +
                          "ALU op=add use_imm imm=1 uop_bgn=2 uop_end=3 iter_out=1 iter_in=1 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_EQ(o.run.message(),
            "bank conflict: instruction 2 (ALU uop_bgn=2 uop_end=3 iter_out=1 iter_in=1 op=add imm=1 use_imm ovl) with "
            "ovl on the compute module's ALU pipe touches accumulator bank 0 (rows 0 .. 1023), and so does instruction "
            "1 (GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1) on its GEMM pipe, which it may overlap: an instruction "
            "with ovl and the older one on the other pipe must use different halves of the accumulator");
}

TEST(Ref, LoadWithOvlInTheOtherBankIsNoRace) {
  // LOAD acc/acc8 runs on the ALU pipe: with ovl beside the GEMM (bank 0) when it writes bank 1.
  Outcome o = RunText(std::string(kOverlapUops) +
                          "LOAD mem=acc8 sram=1024 dram=0x2000 y_size=1 x_size=4 x_stride=4 ovl\n"
                          "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_TRUE(o.run.ok()) << o.run.ToString();
}

TEST(RefFaults, LoadWithOvlIntoTheGemmsBankIsABankConflict) {
  // Row 8 is not the GEMM's row 0, but both are in the first bank.
  Outcome o = RunText(std::string(kOverlapUops) +
                          "LOAD mem=acc sram=8 dram=0x2000 y_size=1 x_size=2 x_stride=2 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_EQ(o.run.message(),
            "bank conflict: instruction 2 (LOAD mem=acc sram=8 dram=0x2000 y_size=1 x_size=2 x_stride=2 ovl) with ovl "
            "on the compute module's ALU pipe touches accumulator bank 0 (rows 0 .. 1023), and so does instruction 1 "
            "(GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=1) on its GEMM pipe, which it may overlap: an instruction "
            "with ovl and the older one on the other pipe must use different halves of the accumulator");
}

TEST(RefFaults, GemmWithOvlBesideALoadIntoItsBankIsABankConflict) {
  // The GEMM may start beside the LOAD before it (a one-pipe instruction on the ALU pipe).
  Outcome o = RunText(std::string(kOverlapUops) +
                          "LOAD mem=acc sram=1030 dram=0x2000 y_size=1 x_size=2 x_stride=2\n"
                          "GEMM uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("bank conflict: instruction 3 (GEMM"), std::string::npos) << o.run.message();
  EXPECT_NE(o.run.message().find("and so does instruction 2 (LOAD mem=acc"), std::string::npos) << o.run.message();
}

TEST(RefFaults, LoadWithOvlOnTheGemmRowsIsARace) {
  Outcome o = RunText(std::string(kOverlapUops) +
                          "LOAD mem=acc sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 ovl\n"
                          "FINISH\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("race on acc entry 0: instruction 2 (LOAD mem=acc"), std::string::npos)
      << o.run.message();
}

TEST(RefFaults, TokenOfAnOverlappingAluDoesNotCoverTheGemmBesideIt) {
  Outcome o = RunText(std::string(kOverlapUops) +
                          "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=1 iter_in=1 ovl push_next\n"
                          "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\n"
                          "FINISH pop_next\n",
                      "configs/default.json", true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("race on out entry 0: instruction 3 (STORE"), std::string::npos) << o.run.message();
  EXPECT_NE(o.run.message().find("the write by instruction 1 (GEMM"), std::string::npos) << o.run.message();
}

TEST(RefFaults, ExtraTokenIsUnbalancedAtFinish) {
  Outcome o = RunText(std::string(kUop) +
                      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1 push_next\n"
                      "FINISH\n");
  EXPECT_EQ(o.run.message(),
            "unbalanced dependency tokens at FINISH: 1 token(s) left unconsumed (load->compute 0, compute->load 0, "
            "compute->store 1, store->compute 0)");
}

TEST(RefFaults, WorkLeftBehindFinish) {
  Outcome o = RunText("STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev\nFINISH\n");
  EXPECT_EQ(o.run.message(),
            "#0 STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev is the store module's last "
            "instruction and pushes no token towards compute (push_prev=0): it is not ordered before FINISH "
            "(instruction 1); a dependency token is missing before FINISH");
  // Ordered before FINISH, but its token is never popped: FINISH retires while it waits.
  o = RunText("STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\nFINISH\n");
  EXPECT_EQ(o.run.message(),
            "FINISH (instruction 1) retired while the store module still had 1 instruction(s) queued, next #0 STORE "
            "mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev push_prev: a dependency token is "
            "missing before FINISH");
}

TEST(RefFaults, FinishPlacement) {
  EXPECT_EQ(RunText("FINISH\nFINISH\n").run.message(),
            "instruction 0: FINISH before the end of the stream (2 instructions)");
  EXPECT_EQ(RunText("LOAD mem=inp sram=0 dram=0 y_size=0 x_size=0 x_stride=0\n").run.message(),
            "instruction 0 (LOAD mem=inp sram=0 dram=0x0): the stream must end with FINISH");
}

TEST(RefFaults, BoundsErrorsCarryTheInstructionIndex) {
  Outcome o = RunText("LOAD mem=wgt sram=1020 dram=0x2000 y_size=1 x_size=8 x_stride=8\nFINISH\n");
  EXPECT_EQ(o.run.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(o.run.message(),
            "instruction 0 (LOAD mem=wgt sram=1020 dram=0x2000 y_size=1 x_size=8 x_stride=8): scratchpad range [1020, "
            "1028) is outside the wgt scratchpad (1024 entries)");
}

TEST(RefFaults, UndecodableInstructionInDram) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Dram dram(cfg.dram_size_bytes);
  uint8_t words[32] = {};
  words[0] = static_cast<uint8_t>(Opcode::kFinish);
  words[16] = 6;  // opcode 6 does not exist
  ASSERT_TRUE(dram.Write(0x40, words, sizeof(words)).ok());
  RefSim ref(cfg, &dram);
  EXPECT_EQ(ref.Run(0x50, 1).message(), "instruction 0 at DRAM 0x50: unknown opcode 6");
  EXPECT_EQ(ref.Run(cfg.dram_size_bytes - 16, 2).message(),
            "fetching instruction 1: DRAM read [0x40000000, 0x40000010) is outside DRAM of 1073741824 bytes");
}

TEST(RefFaults, FullCommandQueueDeadlock) {
  // tiny: command queues hold 16. 17 stores wait for compute, whose pushes come after them in the stream.
  std::string text = ".uops k 0x1000\n dst=0 src=0 wgt=0\n.end\n";
  for (int i = 0; i < 17; ++i) text += "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev\n";
  text += "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1\n";
  for (int i = 0; i < 17; ++i) text += "ALU op=mov use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 push_next\n";
  text += "FINISH\n";
  Outcome o = RunText(text, "configs/tiny.json");
  EXPECT_NE(o.run.message().find("fetch:   16 of 36 instructions fetched (blocked: the next instruction's command "
                                 "queue is full)"),
            std::string::npos)
      << o.run.message();
}

// A compute instruction waits for a token a younger load instruction pushes:
// the decoupled core runs it, a serial core (queues.serial) cannot.
TEST(RefFaults, TokenFromAYoungerInstructionDeadlocksASerialCore) {
  const std::string text = std::string(kUop) +
                           "LOAD mem=uop sram=0 dram=k y_size=1 x_size=1 x_stride=1\n"
                           "ALU op=mov use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 pop_prev\n"
                           "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 push_next\n"
                           "FINISH\n";
  EXPECT_TRUE(RunText(text).run.ok());
  Outcome o = RunText(text, "configs/default.json", false, true);
  EXPECT_EQ(o.run.code(), StatusCode::kAborted);
  EXPECT_NE(o.run.message().find("compute: next #1 ALU"), std::string::npos) << o.run.message();
  EXPECT_NE(o.run.message().find("fetch:   2 of 4 instructions fetched (blocked: the serial core dispatches one "
                                 "instruction at a time, in stream order)"),
            std::string::npos)
      << o.run.message();
}

TEST(RefFaults, TimeoutIsDeadlineExceeded) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto prog = AssembleFile(cfg, "examples/programs/gemm_heavy.s");
  ASSERT_TRUE(prog.ok());
  Dram dram(cfg.dram_size_bytes);
  ASSERT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  RefSim ref(cfg, &dram);
  RefOptions opts;
  opts.timeout_ms = 1;  // the GEMMs alone take several ms
  Status s = ref.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), opts);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_EQ(s.message().rfind("timeout: ", 0), 0u) << s.message();
}

// Issue 15, finding 7: ref had no watchdog at all, and its timeout was only
// checked between instructions; one GEMM of 2^41 iterations ran for hours.
TEST(RefFaults, TimeoutHoldsInsideAHugeInstruction) {
  EXPECT_EQ(RefOptions{}.timeout_ms, 60000);  // the default host-time limit
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto prog = Assemble(cfg, "GEMM uop_bgn=0 uop_end=8192 iter_out=2047 iter_in=2047\nFINISH\n", "t.s");
  ASSERT_TRUE(prog.ok()) << prog.status().ToString();
  Dram dram(cfg.dram_size_bytes);
  ASSERT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  RefSim ref(cfg, &dram);
  RefOptions opts;
  opts.timeout_ms = 100;
  Status s = ref.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), opts);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_EQ(s.message().rfind("timeout: the host-time limit passed in instruction 0 (GEMM", 0), 0u) << s.message();
}

TEST(Ref, FullTokenQueueStallsAndResumes) {
  // tiny: token queues hold 16; compute pushes 20 before the store drains them. ALU i
  // writes accumulator entry i; STORE i stores it (4-byte tiles on tiny).
  std::string text = ".uops k 0x1000\n";
  for (int i = 0; i < 20; ++i) text += " dst=" + std::to_string(i) + "\n";
  text += ".end\nLOAD mem=uop sram=0 dram=k y_size=1 x_size=20 x_stride=20\n";
  for (int i = 0; i < 20; ++i)
    text += "ALU op=mov use_imm imm=" + std::to_string(i) + " uop_bgn=" + std::to_string(i) +
            " uop_end=" + std::to_string(i + 1) + " iter_out=1 iter_in=1 push_next\n";
  for (int i = 0; i < 20; ++i)
    text += "STORE mem=out sram=" + std::to_string(i) + " dram=" + std::to_string(0x3000 + 4 * i) +
            " y_size=1 x_size=1 x_stride=1 pop_prev" + std::string(i == 19 ? " push_prev" : "") + "\n";
  text += "FINISH pop_next\n.expect e 0x3000 i8\n";
  for (int i = 0; i < 20; ++i)
    text += std::to_string(i) + "," + std::to_string(i) + "," + std::to_string(i) + "," + std::to_string(i) + "\n";
  text += ".end\n";
  Outcome o = RunText(text, "configs/tiny.json");
  EXPECT_TRUE(o.run.ok()) << o.run.ToString();
  EXPECT_TRUE(o.expect.ok()) << o.expect.ToString();
}

}  // namespace
}  // namespace tessera
