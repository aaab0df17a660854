// Cycle counts derived by hand from the timing contract (docs/microarch.md),
// and the simulator's faults. Default config: L=32, B=16, N_out=8, F=16,
// T_setup=2, P_gemm=4, P_alu=3.
#include "sim/cycle_sim.h"

#include <gtest/gtest.h>

#include <functional>

#include "isa/asm.h"
#include "isa/config.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/trace.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct SimRun {
  Status status;
  CycleStats stats;
  std::vector<InsnTiming> timing;  // by instruction index
};

SimRun RunSim(const std::string& text, CycleOptions opts = {}, const char* config = "configs/default.json",
              bool compute_overlap = false, bool serial = false,
              const std::function<void(HwConfig&)>& tweak = nullptr) {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  cfg.compute_overlap = compute_overlap ? 1 : 0;
  cfg.serial = serial ? 1 : 0;
  if (tweak) {
    tweak(cfg);
    EXPECT_TRUE(ValidateHwConfig(cfg, "tweak").ok());
  }
  auto prog = Assemble(cfg, text, "t.s");
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  CycleSim sim(cfg, &dram);
  opts.record_instructions = true;
  SimRun r;
  r.status = sim.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), opts);
  r.stats = sim.stats();
  r.timing.resize(prog->insns.size(), InsnTiming{-1, Module::kLoad, -1, -1});
  for (const InsnTiming& t : r.stats.instructions) r.timing[t.index] = t;
  return r;
}

void ExpectCategoriesSum(const CycleStats& s) {
  for (int u = 0; u < regs::kNumUnits; ++u) EXPECT_LE(s.unit(static_cast<regs::Unit>(u)).total(), s.cycles());
}

TEST(CycleSim, SingleLoad) {
  // Fetch: 2 instructions (32 B, 2 beats) accepted in cycle 0, data 32..33, arrive in 34.
  // LOAD dispatched 34, starts 35, burst ready 37, data 69..72, ends 73; FINISH 73..74.
  SimRun r = RunSim("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4 push_next\nFINISH pop_prev\n");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.stats.cycles(), 74);
  EXPECT_EQ(r.timing[0].start, 35);
  EXPECT_EQ(r.timing[0].end, 73);
  EXPECT_EQ(r.timing[1].start, 73);
  // load: 35 cycles waiting for its instruction, 2 setup + 4 beats busy, 32 waiting on memory, 1 idle.
  EXPECT_EQ(r.stats.unit(regs::Unit::kLoad).wait_queue, 35);
  EXPECT_EQ(r.stats.unit(regs::Unit::kLoad).busy, 6);
  EXPECT_EQ(r.stats.unit(regs::Unit::kLoad).wait_memory, 32);
  EXPECT_EQ(r.stats.counters.idle(regs::Unit::kLoad), 1);
  EXPECT_EQ(r.stats.unit(regs::Unit::kCompute).wait_token, 73 - 36);
  EXPECT_EQ(r.stats.unit(regs::Unit::kFetch).busy, 2);
  EXPECT_EQ(r.stats.unit(regs::Unit::kFetch).wait_memory, 34);
  ExpectCategoriesSum(r.stats);
}

TEST(CycleSim, PaddingIsWrittenBeforeTheBursts) {
  // rows = 3, cols = 3, data 2 x 2: P = 5 padding entries. Two 32-byte rows (2 beats each).
  SimRun r = RunSim(
      "LOAD mem=inp sram=0 dram=0x1000 y_size=2 x_size=2 x_stride=3 y_pad0=1 x_pad1=1 push_next\nFINISH pop_prev\n");
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // start 35, R0 = 35 + 2 + 5 = 42; burst 0 accepted 42, data 74..75; burst 1 accepted 43,
  // data max(75, 76) = 76..77, completes 78.
  EXPECT_EQ(r.timing[0].start, 35);
  EXPECT_EQ(r.timing[0].end, 78);
  EXPECT_EQ(r.stats.cycles(), 79);
  EXPECT_EQ(r.stats.unit(regs::Unit::kLoad).busy, 2 + 5 + 4);
  EXPECT_EQ(r.stats.unit(regs::Unit::kLoad).wait_memory, 78 - 35 - 11);
}

TEST(CycleSim, UnalignedAndBoundaryCrossingBursts) {
  // 8 uops (32 B) from 0x1004: one burst of ceil((4 + 32) / 16) = 3 beats. Compute starts
  // it in 35, ready 37, data 69..71, ends 72; FINISH 72..73.
  SimRun a = RunSim("LOAD mem=uop sram=0 dram=0x1004 y_size=1 x_size=8 x_stride=8\nFINISH\n");
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.timing[0].end, 72);
  EXPECT_EQ(a.stats.cycles(), 73);
  // 32 B from 0x1ff0 cross 0x2000: two 1-beat bursts accepted in 37 and 38, completing 70 and 71.
  SimRun b = RunSim("LOAD mem=uop sram=0 dram=0x1ff0 y_size=1 x_size=8 x_stride=8\nFINISH\n");
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(b.timing[0].end, 71);
  EXPECT_EQ(b.stats.unit(regs::Unit::kCompute).busy, 2 + 2 + 1);  // setup + 2 beats, FINISH
}

// A chain through every module: LOAD uop, LOAD inp, GEMM, ALU, STORE, FINISH.
constexpr const char* kChain =
    "LOAD mem=uop sram=0 dram=0x1000 y_size=1 x_size=1 x_stride=1\n"                      // 0 compute
    "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=2 x_stride=2 push_next\n"            // 1 load
    "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=5 pop_prev\n"                            // 2 compute
    "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=3 iter_in=1 push_next\n"       // 3 compute
    "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\n"  // 4 store
    "FINISH pop_next\n";                                                                  // 5 compute

TEST(CycleSim, LoadGemmStoreChain) {
  // Fetch: 8 instructions accepted in 0 (8 beats, data 32..39, arrive 40), the 9th... (here 6 in total:
  // 96 B, 6 beats, data 32..37, arrive 38). Dispatch 38..43.
  SimRun r = RunSim(kChain);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // 0: dispatched 38, starts 39, burst (4 B) ready 41, accepted 41, data 73, completes 74.
  EXPECT_EQ(r.timing[0].start, 39);
  EXPECT_EQ(r.timing[0].end, 74);
  // 1: dispatched 39, starts 40, ready 42; compute's request wins cycle 41, load's is accepted 42:
  // data max(74, 74) = 74..75 (32 B), completes 76.
  EXPECT_EQ(r.timing[1].start, 40);
  EXPECT_EQ(r.timing[1].end, 76);
  // 2: compute free at 74, token at 76: starts 76, I = 10, ends 76 + 10 + 4 = 90.
  EXPECT_EQ(r.timing[2].start, 76);
  EXPECT_EQ(r.timing[2].end, 90);
  // 3: immediate ALU, 3 iterations: 90 + 3 + 3 = 96.
  EXPECT_EQ(r.timing[3].start, 90);
  EXPECT_EQ(r.timing[3].end, 96);
  // 4: starts 96, out read from 98, burst ready 98 + 1 = 99: write data 99, response 99 + 1 + 32 = 132.
  EXPECT_EQ(r.timing[4].start, 96);
  EXPECT_EQ(r.timing[4].end, 132);
  // 5: FINISH 132..133.
  EXPECT_EQ(r.timing[5].start, 132);
  EXPECT_EQ(r.stats.cycles(), 133);
  ExpectCategoriesSum(r.stats);
}

// queues.serial (docs/microarch.md "Serial"): LoadGemmStoreChain's stream,
// each instruction dispatched in the cycle the one before it pushed.
TEST(CycleSim, SerialDispatchesOneInstructionAtATime) {
  SimRun r = RunSim(kChain, {}, "configs/default.json", false, true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // 0: dispatched 38 (the stream arrives 38), starts 39, ends 74 (as decoupled).
  EXPECT_EQ(r.timing[0].start, 39);
  EXPECT_EQ(r.timing[0].end, 74);
  // 1: dispatched 74, starts 75, burst ready 77, data 109..110, completes 111 (decoupled: 40..76).
  EXPECT_EQ(r.timing[1].start, 75);
  EXPECT_EQ(r.timing[1].end, 111);
  // 2: GEMM 112 + 10 + 4 = 126; 3: ALU 127 + 3 + 3 = 133; 4: STORE 134 + 36 = 170; 5: FINISH 171..172.
  EXPECT_EQ(r.timing[2].start, 112);
  EXPECT_EQ(r.timing[2].end, 126);
  EXPECT_EQ(r.timing[3].start, 127);
  EXPECT_EQ(r.timing[3].end, 133);
  EXPECT_EQ(r.timing[4].start, 134);
  EXPECT_EQ(r.timing[4].end, 170);
  EXPECT_EQ(r.timing[5].start, 171);
  EXPECT_EQ(r.stats.cycles(), 172);
  // Fetch waits on the core from the first dispatch to the last (one cycle busy per dispatch).
  EXPECT_EQ(r.stats.unit(regs::Unit::kFetch).busy, 6);
  ExpectCategoriesSum(r.stats);
}

// alu.mul_cycles (docs/microarch.md "ALU"): LoadGemmStoreChain's stream with
// 4 lanes over the 16 elements (4 passes) and k = 4: a multiply's passes take
// 4 cycles each, other operations' 1.
TEST(CycleSim, MultiplyPassesTakeMulCycles) {
  const auto lanes4_k4 = [](HwConfig& c) {
    c.alu_lanes = 4;
    c.alu_mul_cycles = 4;
  };
  std::string mul = kChain;
  const std::string add_insn = "ALU op=add use_imm imm=1 ", mulshr_insn = "ALU op=mulshr imm=2 ";
  mul.replace(mul.find(add_insn), add_insn.size(), mulshr_insn);
  SimRun r = RunSim(mul, {}, "configs/default.json", false, false, lanes4_k4);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // 0..2 as in LoadGemmStoreChain: the GEMM ends 90.
  EXPECT_EQ(r.timing[2].end, 90);
  // 3: mulshr reading source row 0 in all 3 iterations: (2 + 4 x 4 - 1) + 2 x (1 + 4 x 4 - 1)
  //    = 17 + 32 = 49 cycles, then P_alu 3: 90 + 49 + 3 = 142.
  EXPECT_EQ(r.timing[3].start, 90);
  EXPECT_EQ(r.timing[3].end, 142);
  // 4: STORE 142 + 36 = 178; 5: FINISH 178..179.
  EXPECT_EQ(r.timing[4].end, 178);
  EXPECT_EQ(r.stats.cycles(), 179);
  // The add (immediate, 3 iterations) is not a multiply: 3 x (1 + 4 - 1) + 3 = 15 cycles, 90..105.
  SimRun a = RunSim(kChain, {}, "configs/default.json", false, false, lanes4_k4);
  ASSERT_TRUE(a.status.ok()) << a.status.ToString();
  EXPECT_EQ(a.timing[3].start, 90);
  EXPECT_EQ(a.timing[3].end, 105);
  ExpectCategoriesSum(r.stats);
}

TEST(CycleSimFaults, TokenFromAYoungerInstructionDeadlocksASerialCore) {
  const char* text =
      "LOAD mem=uop sram=0 dram=0x1000 y_size=1 x_size=1 x_stride=1\n"
      "ALU op=mov use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 pop_prev\n"
      "LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 push_next\n"
      "FINISH\n";
  EXPECT_TRUE(RunSim(text).status.ok());
  SimRun r = RunSim(text, {}, "configs/default.json", false, true);
  EXPECT_EQ(r.status.code(), StatusCode::kAborted);
  EXPECT_NE(r.status.message().find("fetch:   2 of 4 instructions dispatched (blocked: the serial core dispatches "
                                    "one instruction at a time, in stream order)"),
            std::string::npos)
      << r.status.message();
}

// The compute module's two pipes (sim/timing.h, docs/microarch.md "Overlap").
// Fetch: 5 instructions (80 B) accepted in 0, data 32..36, arrive 37, dispatch
// 37..41. The uop LOAD starts 38, its burst is accepted 40: data 72, ends 73.
// The GEMM (20 iterations) runs 73..97.
std::string OverlapProgram(const char* alu2, const char* alu3) {
  return std::string(
             ".uops k 0x1000\n dst=0 src=0 wgt=0\n dst=1024 src=0 wgt=0\n.end\n"
             "LOAD mem=uop sram=0 dram=k y_size=1 x_size=2 x_stride=2\n"
             "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=10\n"
             "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 ") +
         alu2 + "\nALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 " + alu3 + "\nFINISH\n";
}

TEST(CycleSim, AluWithOvlRunsBesideTheGemm) {
  SimRun r = RunSim(OverlapProgram("ovl", "ovl"), {}, "configs/default.json", true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.timing[0].end, 73);
  EXPECT_EQ(r.timing[1].start, 73);
  EXPECT_EQ(r.timing[1].end, 73 + 20 + 4);
  // One start per cycle: 74, 5 iterations + P_alu = 8 cycles; the next on the free ALU pipe.
  EXPECT_EQ(r.timing[2].start, 74);
  EXPECT_EQ(r.timing[2].end, 82);
  EXPECT_EQ(r.timing[3].start, 82);
  EXPECT_EQ(r.timing[3].end, 90);
  // FINISH takes both pipes: after the GEMM.
  EXPECT_EQ(r.timing[4].start, 97);
  EXPECT_EQ(r.stats.cycles(), 98);
  // Busy: the LOAD's setup + beat, the GEMM (the ALUs beside it count once), FINISH.
  EXPECT_EQ(r.stats.unit(regs::Unit::kCompute).busy, 3 + 24 + 1);
  ExpectCategoriesSum(r.stats);
}

TEST(CycleSim, AluWithoutOvlWaitsForBothPipes) {
  SimRun r = RunSim(OverlapProgram("ovl", ""), {}, "configs/default.json", true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.timing[2].start, 74);
  EXPECT_EQ(r.timing[3].start, 97);
  EXPECT_EQ(r.timing[3].end, 105);
  EXPECT_EQ(r.stats.cycles(), 106);
  EXPECT_EQ(r.stats.unit(regs::Unit::kCompute).busy, 3 + 24 + 8 + 1);
  ExpectCategoriesSum(r.stats);
  // Without ovl, or on a config without timing.compute_overlap: 73 + 24 + 8 + 8 + 1.
  for (const bool on : {true, false}) {
    SimRun serial = RunSim(OverlapProgram(on ? "" : "ovl", on ? "" : "ovl"), {}, "configs/default.json", on);
    ASSERT_TRUE(serial.status.ok()) << serial.status.ToString();
    EXPECT_EQ(serial.stats.cycles(), 73 + 24 + 8 + 8 + 1);
    ExpectCategoriesSum(serial.stats);
  }
}

// LOAD acc/acc8 runs on the ALU pipe: with ovl (into the other bank) it
// starts beside the GEMM in the next cycle. Fetch: 4 instructions (64 B),
// one cycle earlier than OverlapProgram's: the uop LOAD ends 72, the GEMM
// runs 72..96, the LOAD from 73: R0 75, data 107..110, ends 111.
std::string LoadBesideProgram(const char* ovl) {
  return std::string(
             ".uops k 0x1000\n dst=0 src=0 wgt=0\n.end\n"
             "LOAD mem=uop sram=0 dram=k y_size=1 x_size=2 x_stride=2\n"
             "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=10\n"
             "LOAD mem=acc8 sram=1024 dram=0x2000 y_size=1 x_size=4 x_stride=4 ") +
         ovl + "\nFINISH\n";
}

TEST(CycleSim, LoadWithOvlRunsBesideTheGemm) {
  SimRun r = RunSim(LoadBesideProgram("ovl"), {}, "configs/default.json", true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.timing[1].start, 72);
  EXPECT_EQ(r.timing[1].end, 96);
  EXPECT_EQ(r.timing[2].start, 73);
  EXPECT_EQ(r.timing[2].end, 111);
  EXPECT_EQ(r.stats.cycles(), 112);
  // The LOAD's 23 cycles beside the GEMM come from its wait on memory (32 of
  // its 38; busy: setup and 4 beats): busy = 3 + 24 + 6 + 1, wait_memory = (35 - 3) + (32 - 23).
  EXPECT_EQ(r.stats.unit(regs::Unit::kCompute).busy, 3 + 24 + 6 + 1);
  EXPECT_EQ(r.stats.unit(regs::Unit::kCompute).wait_memory, 32 + 9);
  ExpectCategoriesSum(r.stats);
  // Without ovl it waits for the GEMM: 96, R0 98, data 130..133, ends 134.
  SimRun serial = RunSim(LoadBesideProgram(""), {}, "configs/default.json", true);
  ASSERT_TRUE(serial.status.ok()) << serial.status.ToString();
  EXPECT_EQ(serial.timing[2].start, 96);
  EXPECT_EQ(serial.stats.cycles(), 135);
  EXPECT_EQ(serial.stats.unit(regs::Unit::kCompute).busy, 3 + 24 + 6 + 1);
}

TEST(CycleSim, AYoungerPushWaitsForTheOlderPipeOnTheSameQueue) {
  // GEMM (bank 0) and the first ALU (bank 1) both push to store. The ALU ends
  // first but pushes after the GEMM, holding the ALU pipe: the second ALU
  // starts as the GEMM ends.
  const char* text =
      ".uops k 0x1000\n dst=0 src=0 wgt=0\n dst=1024 src=0 wgt=0\n.end\n"
      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=2 x_stride=2\n"
      "GEMM uop_bgn=0 uop_end=1 iter_out=2 iter_in=10 push_next\n"
      "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 ovl push_next\n"
      "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 ovl\n"
      "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev\n"
      "STORE mem=out sram=1024 dram=0x3010 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\n"
      "FINISH pop_next\n";
  SimRun r = RunSim(text, {}, "configs/default.json", true);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  // (7 instructions: fetched 2 cycles later than above, everything shifts by 2.)
  EXPECT_EQ(r.timing[1].start, 75);
  EXPECT_EQ(r.timing[1].end, 99);
  EXPECT_EQ(r.timing[2].start, 76);
  EXPECT_EQ(r.timing[2].end, 84);
  EXPECT_EQ(r.timing[3].start, 99);
  EXPECT_EQ(r.timing[4].start, 99);  // both tokens arrive in 99
  ExpectCategoriesSum(r.stats);
}

TEST(CycleSim, AluVectorOperandCostsASecondReadUnlessRepeated) {
  // uops: (dst 0, src 5), (dst 1, src 5), (dst 2, src 6); iter_out 2 with src_out 0.
  // Source sequence 5 5 6 5 5 6: misses at 1st, 3rd, 4th, 6th -> 4*2 + 2*1 = 10 cycles + 3.
  const char* text =
      ".uops k 0x1000\n dst=0 src=5\n dst=1 src=5\n dst=2 src=6\n.end\n"
      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=3 x_stride=3\n"
      "ALU op=add uop_bgn=0 uop_end=3 iter_out=2 iter_in=1\n"
      "ALU op=add use_imm imm=3 uop_bgn=0 uop_end=3 iter_out=2 iter_in=1\n"
      "FINISH\n";
  SimRun r = RunSim(text);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.timing[1].end - r.timing[1].start, 10 + 3);
  EXPECT_EQ(r.timing[2].end - r.timing[2].start, 6 + 3);
}

// The same 4-iteration loop, serialized and double-buffered. Each LOAD moves 8 input
// tiles (128 B, 8 beats): 2 setup + 32 latency + 8 beats = 42 cycles. Each GEMM runs
// 8 x 12 = 96 iterations: 100 cycles. The first LOAD starts in cycle 41 (the first 8
// instructions arrive in 40). Serialized: 41 + 4 * (42 + 100) + 1 = 610. Double-buffered:
// every LOAD after the first hides behind a GEMM: 41 + 42 + 4 * 100 + 1 = 484. The
// contract predicts the difference: 3 hidden LOADs = 126 cycles.
std::string Loop(bool double_buffered) {
  std::string s;
  auto load = [&](int i, bool pop) {
    int base = double_buffered ? (i % 2) * 8 : 0;
    s += "LOAD mem=inp sram=" + std::to_string(base) + " dram=" + std::to_string(0x10000 + i * 128) +
         " y_size=1 x_size=8 x_stride=8 push_next" + (pop ? " pop_next" : "") + "\n";
  };
  auto gemm = [&](int i, bool push) {
    int src = double_buffered ? (i % 2) * 8 : 0;
    s += "GEMM uop_bgn=0 uop_end=12 iter_out=8 iter_in=1 src_out=1 dst_out=0 pop_prev" +
         std::string(push ? " push_prev" : "") + " uop_end=12\n";
    (void)src;
  };
  (void)gemm;
  auto g = [&](int i, bool push) {
    int src = double_buffered ? (i % 2) * 8 : 0;
    s += "GEMM uop_bgn=" + std::to_string(src == 0 ? 0 : 12) + " uop_end=" + std::to_string(src == 0 ? 12 : 24) +
         " iter_out=8 iter_in=1 src_out=1 pop_prev" + (push ? " push_prev" : "") + "\n";
  };
  if (!double_buffered) {
    for (int i = 0; i < 4; ++i) {
      load(i, i > 0);
      g(i, i < 3);
    }
  } else {
    load(0, false);
    load(1, false);
    g(0, true);
    load(2, true);
    g(1, true);
    load(3, true);
    g(2, false);
    g(3, false);
  }
  s += "FINISH\n";
  // uops 0..11 read input entry 0 (+ outer loop), 12..23 entry 8; weights 0..11.
  s += ".uops k 0x1000\n";
  for (int b = 0; b < 2; ++b)
    for (int n = 0; n < 12; ++n)
      s += " dst=" + std::to_string(n) + " src=" + std::to_string(b * 8) + " wgt=" + std::to_string(n) + "\n";
  s += ".end\n";
  return s;
}

TEST(CycleSim, DoubleBufferingHidesTheLoadsTheContractSays) {
  // The uop table is never loaded here: timing does not depend on uop contents for GEMM.
  SimRun serial = RunSim(Loop(false));
  SimRun dbl = RunSim(Loop(true));
  ASSERT_TRUE(serial.status.ok()) << serial.status.ToString();
  ASSERT_TRUE(dbl.status.ok()) << dbl.status.ToString();
  EXPECT_EQ(serial.timing[0].start, 41);
  EXPECT_EQ(serial.timing[0].end, 41 + 42);
  EXPECT_EQ(serial.stats.cycles(), 41 + 4 * (42 + 100) + 1);
  EXPECT_EQ(dbl.stats.cycles(), 41 + 42 + 4 * 100 + 1);
  EXPECT_EQ(serial.stats.cycles() - dbl.stats.cycles(), 3 * 42);
  // In the double-buffered loop the GEMMs run back to back.
  EXPECT_EQ(dbl.timing[4].start, dbl.timing[2].end);  // G1 right after G0
  EXPECT_EQ(dbl.timing[6].start, dbl.timing[4].end);
  EXPECT_EQ(dbl.timing[7].start, dbl.timing[6].end);
  ExpectCategoriesSum(serial.stats);
  ExpectCategoriesSum(dbl.stats);
}

TEST(CycleSim, VisitingEveryCycleGivesTheSameTimeline) {
  for (bool db : {false, true}) {
    CycleOptions every;
    every.visit_every_cycle = true;
    SimRun a = RunSim(Loop(db)), b = RunSim(Loop(db), every);
    ASSERT_TRUE(a.status.ok() && b.status.ok());
    EXPECT_EQ(a.stats.cycles(), b.stats.cycles());
    for (size_t i = 0; i < a.timing.size(); ++i) {
      EXPECT_EQ(a.timing[i].start, b.timing[i].start) << i;
      EXPECT_EQ(a.timing[i].end, b.timing[i].end) << i;
    }
  }
}

TEST(CycleSimFaults, Deadlock) {
  SimRun r = RunSim("LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 pop_next\nFINISH pop_prev\n");
  EXPECT_EQ(r.status.code(), StatusCode::kAborted);
  EXPECT_EQ(r.status.message(),
            "deadlock in cycle 36: no module can make progress\n"
            "  load:    next #0 LOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 pop_next; waits for a "
            "token on compute->load (empty)\n"
            "  compute: next #1 FINISH pop_prev; waits for a token on load->compute (empty)\n"
            "  store:   idle (command queue empty)\n"
            "  fetch:   2 of 2 instructions dispatched\n"
            "  tokens:  load->compute 0, compute->load 0, compute->store 0, store->compute 0");
}

TEST(CycleSimFaults, Watchdog) {
  CycleOptions opts;
  opts.max_cycles = 50;
  SimRun r = RunSim("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4 push_next\nFINISH pop_prev\n", opts);
  EXPECT_EQ(r.status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status.message().find("watchdog: the run passed 50 cycles without finishing (2 of 2 instructions "
                                    "dispatched; load: executing #0 LOAD"),
            std::string::npos)
      << r.status.message();
}

// Issue 15, finding 7: a 64-byte program kept sim busy for hours despite
// --max-cycles 1000 (the watchdog was checked after the GEMM's data work).
TEST(CycleSimFaults, WatchdogStopsAHugeInstructionBeforeItsWork) {
  CycleOptions opts;
  opts.max_cycles = 1000;
  SimRun r = RunSim("GEMM uop_bgn=0 uop_end=8192 iter_out=2047 iter_in=2047\nFINISH\n", opts);
  EXPECT_EQ(r.status.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(r.status.message().find("watchdog: the run passes 1000 cycles without finishing: instruction 0 (GEMM) "
                                    "starts in cycle"),
            std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find("takes at least 34326192132"), std::string::npos) << r.status.message();
  ASSERT_TRUE(r.status.fault().has_value());
  EXPECT_EQ(r.status.fault()->code, static_cast<uint32_t>(regs::ErrorCode::kWatchdog));
}

TEST(CycleSimFaults, MissingTokenBeforeFinish) {
  // The end-of-stream rule (docs/isa.md) is checked first: it does not depend on timing.
  SimRun r = RunSim("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4\nFINISH\n");
  EXPECT_EQ(r.status.code(), StatusCode::kAborted);
  EXPECT_EQ(r.status.message(),
            "#0 LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4 is the load module's last instruction "
            "and pushes no token towards compute (push_next=0): it is not ordered before FINISH (instruction 1); a "
            "dependency token is missing before FINISH");
  // Ordered before FINISH by its push, which nothing pops: FINISH retires while it runs.
  r = RunSim("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4 push_next\nFINISH\n");
  EXPECT_NE(r.status.message().find("FINISH (instruction 1) retired in cycle 37 while the load module still had "
                                    "work"),
            std::string::npos)
      << r.status.message();
}

TEST(CycleSimFaults, UnbalancedTokens) {
  SimRun r = RunSim("LOAD mem=inp sram=0 dram=0x1000 y_size=1 x_size=4 x_stride=4 push_next\nFINISH\n");
  // FINISH ran before the LOAD's token arrived... the LOAD is still running: reported first.
  EXPECT_EQ(r.status.code(), StatusCode::kAborted);
  SimRun r2 = RunSim(
      ".uops k 0x1000\n dst=0\n.end\nALU op=mov use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 "
      "push_next\nFINISH\n");
  EXPECT_EQ(r2.status.message(),
            "unbalanced dependency tokens at FINISH: 1 token(s) left unconsumed (load->compute 0, compute->load 0, "
            "compute->store 1, store->compute 0)");
}

TEST(CycleSimFaults, BoundsErrorsLikeRef) {
  SimRun r = RunSim("LOAD mem=wgt sram=1020 dram=0x2000 y_size=1 x_size=8 x_stride=8\nFINISH\n");
  EXPECT_EQ(r.status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status.message(),
            "instruction 0 (LOAD mem=wgt sram=1020 dram=0x2000 y_size=1 x_size=8 x_stride=8): scratchpad range [1020, "
            "1028) is outside the wgt scratchpad (1024 entries)");
}

TEST(CycleSimFaults, BadStream) {
  EXPECT_EQ(RunSim("FINISH\nFINISH\n").status.message(),
            "instruction 0: FINISH before the end of the stream (2 instructions)");
}

TEST(CycleSim, TraceHasASpanPerInstruction) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  ChromeTrace trace(cfg.clock_mhz);
  CycleOptions opts;
  opts.trace = &trace;
  SimRun r = RunSim(Loop(true), opts);
  ASSERT_TRUE(r.status.ok());
  std::string json = trace.ToJson();
  EXPECT_NE(json.find(R"("name":"LOAD inp","ph":"X","pid":1,"tid":1,"ts":0.410,"dur":0.420)"), std::string::npos);
  EXPECT_NE(json.find(R"("name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"compute"})"), std::string::npos);
  EXPECT_NE(json.find(R"("name":"tokens load->compute","ph":"C")"), std::string::npos);
  size_t spans = 0;
  for (size_t p = json.find("\"ph\":\"X\""); p != std::string::npos; p = json.find("\"ph\":\"X\"", p + 1)) ++spans;
  EXPECT_EQ(spans, 9u);
}

}  // namespace
}  // namespace tessera
