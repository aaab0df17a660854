// The Verilated RTL against `sim` through the register protocol, to the cycle:
// on random valid programs of every config the build Verilated
// (TESSERA_RTL_CONFIGS: every bundled config by default) and on every example
// program, the `rtl` device must leave DRAM bit-identical, report the same
// counters (cycles, every per-module stall category, traffic, bursts) and
// give every instruction the same start and End cycle as `sim`. A failure
// prints the first instruction whose span differs, from both sides, and
// writes the program as a replayable assembly file (path in the message).
// TESSERA_RTL_SEEDS sets the number of random programs per config (default
// 200; the slow test runs 2,000). Also: the register map after reset (every
// register's reset value and access rule, isa/regs.def) and the message for
// a config without a model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "sim/timing.h"
#include "tests/support/device_diff.h"
#include "tests/support/random_isa.h"
#include "tests/support/random_program.h"

namespace tessera {
namespace {

int SeedsPerConfig() {
  const char* env = std::getenv("TESSERA_RTL_SEEDS");
  return env ? std::atoi(env) : 200;
}

std::string Replay(const HwConfig& cfg, const Program& p, const std::string& config_path, const std::string& tag) {
  return testing::WriteReplay(TESSERA_TEST_OUTPUT_DIR, "rtl_vs_sim_failure_" + cfg.name + "_" + tag, cfg, p,
                              config_path, "rtl|sim");
}

// Odd seeds move the uop table by `shift` uops (its region is 4 KiB apart
// from the next), so the uop LOADs start inside a beat; with `gap` > 0 the
// table is also loaded as two rows `gap` uops apart in DRAM (the gap holds
// zeros). The load engine's sub-beat path then starts from every slot of a
// beat and steps rows by a pitch that is not a multiple of the beat.
// Returns the uop LOADs moved (a table too large to move is left alone).
struct Unaligned {
  int loads = 0, split_loads = 0;
};
Unaligned UnalignUops(Program* p, int shift, int gap) {
  Unaligned u;
  for (Segment& s : p->segments) {
    if (s.kind != Segment::Kind::kUops) continue;
    const int64_t n = static_cast<int64_t>(s.bytes.size() / 4), half = n / 2;
    const bool split = gap > 0 && n >= 2 && n % 2 == 0;
    if (s.bytes.size() + 4 * static_cast<size_t>(shift + (split ? gap : 0)) > 0x1000) continue;
    s.addr += 4 * static_cast<uint64_t>(shift);
    if (split) s.bytes.insert(s.bytes.begin() + 4 * half, 4 * static_cast<size_t>(gap), uint8_t{0});
    for (Instruction& in : p->insns) {
      if (in.op() != Opcode::kLoad || in.mem_type() != MemType::kUop) continue;
      in.dram += shift;
      ++u.loads;
      if (split) {
        in.y_size = 2;
        in.x_size = half;
        in.x_stride = half + gap;
        ++u.split_loads;
      }
    }
  }
  return u;
}

// Whether two compute instructions of a run overlap in time (the two pipes, timing.compute_overlap).
bool ComputeSpansOverlap(const std::vector<testing::InsnSpan>& spans) {
  const int compute = 1 + static_cast<int>(Module::kCompute);
  int64_t last_end = -1;
  for (const testing::InsnSpan& s : spans) {  // by stream index: compute issues in order
    if (s.track != compute) continue;
    if (s.start < last_end) return true;
    last_end = std::max(last_end, s.end);
  }
  return false;
}

// Whether a compute LOAD ran beside a GEMM (ovl on a LOAD acc/acc8).
bool LoadBesideGemm(const Program& p, const std::vector<testing::InsnSpan>& spans) {
  const int compute = 1 + static_cast<int>(Module::kCompute);
  auto op = [&](const testing::InsnSpan& s) { return p.insns[static_cast<size_t>(s.index)].op(); };
  for (const testing::InsnSpan& l : spans)
    if (l.track == compute && op(l) == Opcode::kLoad)
      for (const testing::InsnSpan& g : spans)
        if (g.track == compute && op(g) == Opcode::kGemm && g.start < l.end && l.start < g.end) return true;
  return false;
}

class RtlVsSim : public ::testing::TestWithParam<std::string> {};

TEST_P(RtlVsSim, RandomValidPrograms) {
  const std::string config_path = GetParam();
  HwConfig cfg = testing::LoadConfigOrDie(config_path);
  testing::DevicePair pair(cfg, "sim", "rtl");
  ASSERT_TRUE(pair.ok());
  int ran = 0, unaligned = 0, split = 0, overlapped = 0, load_beside = 0;
  int64_t alu_iterations = 0;
  for (int seed = 0; seed < SeedsPerConfig(); ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    for (const Instruction& in : p.insns)
      if (in.op() == Opcode::kAlu) alu_iterations += timing::GemmIterations(in);
    if (seed % 2 == 1) {
      const Unaligned u = UnalignUops(&p, 1 + seed / 2 % 7, seed % 4 == 3 ? 1 + seed / 4 % 3 : 0);
      unaligned += u.loads;
      split += u.split_loads;
    }
    testing::DeviceOutcome sim, rtl;
    pair.Run(p, &sim, &rtl);
    const std::string replay = Replay(cfg, p, config_path, "seed" + std::to_string(seed));
    ASSERT_TRUE(sim.status.ok()) << sim.status.ToString() << "\n" << replay;
    testing::ExpectSameOutcome(sim, rtl, "sim", "rtl", replay);
    if (::testing::Test::HasFailure()) return;
    ++ran;
    overlapped += ComputeSpansOverlap(rtl.spans);
    load_beside += LoadBesideGemm(p, rtl.spans);
  }
  EXPECT_EQ(ran, SeedsPerConfig());
  // With timing.compute_overlap some programs ran a GEMM beside an ALU or a
  // LOAD (ovl); without, or on the serial core (one instruction at a time), none.
  if (cfg.compute_overlap == 0 || cfg.serial != 0) {
    EXPECT_EQ(overlapped, 0);
  } else if (SeedsPerConfig() >= 20) {
    EXPECT_GT(overlapped, 0);
    EXPECT_GT(load_beside, 0);
  }
  // The ALU ran many iterations (on ice40-up5k: its one lane's passes, alu.lanes).
  // (~50 a program: 10,299 over the 200 default seeds on ice40-up5k.)
  if (SeedsPerConfig() >= 20) {
    EXPECT_GT(alu_iterations, 20 * SeedsPerConfig()) << cfg.name;
  }
  // The unaligned and two-row uop LOADs above did run (with enough seeds).
  if (SeedsPerConfig() >= 8) {
    EXPECT_GT(unaligned, 0);
    EXPECT_GT(split, 0);
  }
}

TEST_P(RtlVsSim, EveryExampleProgram) {
  const std::string config_path = GetParam();
  HwConfig cfg = testing::LoadConfigOrDie(config_path);
  testing::DevicePair pair(cfg, "sim", "rtl");
  ASSERT_TRUE(pair.ok());
  // A small config (ice40-up5k: 128 KiB of DRAM, 1 KiB scratchpads) runs
  // the examples that assemble for it (one: the others' data does not fit).
  int n = 0, too_big = 0;
  for (const auto& e : std::filesystem::directory_iterator("examples/programs")) {
    if (e.path().extension() != ".s") continue;
    auto p = AssembleFile(cfg, e.path().string());
    if (testing::TooBigForSmallDram(cfg, p.status())) {
      ++too_big;
      continue;
    }
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    testing::DeviceOutcome sim, rtl;
    pair.Run(*p, &sim, &rtl);
    ASSERT_TRUE(sim.status.ok()) << e.path() << " on " << cfg.name << ": " << sim.status.ToString();
    testing::ExpectSameOutcome(
        sim, rtl, "sim", "rtl",
        "replay: tessera exec " + e.path().string() + " -c " + config_path + " --target rtl|sim");
    ++n;
  }
  EXPECT_GE(n + too_big, 5);
  if (n == 0) GTEST_SKIP() << "no example program fits the DRAM of config " << cfg.name;
}

// The compute module's two pipes (docs/microarch.md "Overlap", its worked
// examples): two ALUs with ovl beside a GEMM, in the other accumulator bank;
// the ALUs push into the same queue (compute -> store) in the same cycle as
// the GEMM in one variant, and the younger waits for the older in another.
// Then a LOAD acc8 with ovl beside a GEMM (on the ALU pipe), also pushing,
// and a GEMM with ovl beside an older LOAD acc.
TEST_P(RtlVsSim, OverlapExamples) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  if (cfg.compute_overlap == 0) GTEST_SKIP() << cfg.name << ": timing.compute_overlap is 0";
  if (cfg.serial != 0) GTEST_SKIP() << cfg.name << ": the serial core runs nothing beside anything";
  testing::DevicePair pair(cfg, "sim", "rtl");
  ASSERT_TRUE(pair.ok());
  const int64_t bank1 = cfg.acc_entries / 2;
  const std::string uops = fmt::format(
      ".uops k 0x1000\n dst=0 src=0 wgt=0\n dst={} src={} wgt=0\n.end\n"
      "LOAD mem=uop sram=0 dram=k y_size=1 x_size=2 x_stride=2\n",
      bank1, bank1);
  auto finish = [](const std::string& tail) { return tail + "FINISH" + (tail.empty() ? "" : " pop_next") + "\n"; };
  // The GEMM outlasts both ALUs at any alu.lanes (each ALU iteration takes AluPasses cycles or more).
  auto alus = [&](const std::string& gemm_flags, const std::string& alu_flags, const std::string& tail) {
    return uops +
           fmt::format(
               "GEMM uop_bgn=0 uop_end=1 iter_out={} iter_in=10 {}\n"
               "ALU op=add use_imm imm=1 uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 ovl\n"
               "ALU op=add uop_bgn=1 uop_end=2 iter_out=5 iter_in=1 ovl {}\n",
               2 * timing::AluPasses(cfg), gemm_flags, alu_flags) +
           finish(tail);
  };
  auto load_beside = [&](int64_t gemm_iter_out, const std::string& gemm_flags, const std::string& load_flags,
                         const std::string& tail) {
    return uops +
           fmt::format(
               "GEMM uop_bgn=0 uop_end=1 iter_out={} iter_in=10 {}\n"
               "LOAD mem=acc8 sram={} dram=0x2000 y_size=1 x_size=4 x_stride=4 ovl {}\n",
               gemm_iter_out, gemm_flags, bank1, load_flags) +
           finish(tail);
  };
  const std::string store =
      "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev\n"
      "STORE mem=out sram=0 dram=0x3000 y_size=1 x_size=1 x_stride=1 pop_prev push_prev\n";
  const bool dflt = cfg.name == "default";
  struct Case {
    std::string text;
    int64_t cycles;          // -1: not checked here (sim's, as long as rtl agrees)
    int64_t older, younger;  // stream indices: the younger starts beside the older
    bool held;               // the younger ends first (pushing into the older's queue: it waits)
  } cases[] = {
      // 1 GEMM, 2 and 3 the ALUs (both on the ALU pipe); sim's rule for the
      // held push is pinned by CycleSim.AYoungerPushWaitsForTheOlderPipeOnTheSameQueue.
      {alus("", "", ""), dflt ? 98 : -1, 1, 3, false},
      {alus("push_next", "push_next", store), -1, 1, 3, true},
      {alus("reset push_next", "push_next", store), -1, 1, 3, true},
      // 1 GEMM, 2 the LOAD (CycleSim.LoadWithOvlRunsBesideTheGemm).
      {load_beside(2, "", "", ""), dflt ? 112 : -1, 1, 2, false},
      {load_beside(8, "push_next", "push_next", store), -1, 1, 2, true},
      // 1 the LOAD (no ovl), 2 the GEMM with ovl in the other bank.
      {uops + fmt::format("LOAD mem=acc sram={} dram=0x2000 y_size=1 x_size=4 x_stride=4\n", bank1) +
           "GEMM uop_bgn=0 uop_end=1 iter_out=1 iter_in=10 ovl\nFINISH\n",
       -1, 1, 2, true},
  };
  for (const Case& c : cases) {
    auto p = Assemble(cfg, c.text, "overlap.s");
    ASSERT_TRUE(p.ok()) << p.status().ToString() << "\n" << c.text;
    testing::DeviceOutcome sim, rtl;
    pair.Run(*p, &sim, &rtl);
    ASSERT_TRUE(sim.status.ok()) << sim.status.ToString() << "\n" << c.text;
    testing::ExpectSameOutcome(sim, rtl, "sim", "rtl", c.text);
    EXPECT_TRUE(ComputeSpansOverlap(rtl.spans)) << c.text;
    auto span = [&](int64_t index) {
      for (const testing::InsnSpan& sp : rtl.spans)
        if (sp.index == index) return sp;
      ADD_FAILURE() << "no span for instruction " << index;
      return testing::InsnSpan{};
    };
    const testing::InsnSpan older = span(c.older), younger = span(c.younger);
    EXPECT_LT(younger.start, older.end) << c.text;
    if (c.held) {
      EXPECT_LT(younger.end, older.end) << c.text;
    }
    if (c.cycles >= 0) {
      EXPECT_EQ(rtl.counters.cycles, c.cycles) << c.text;
    }
  }
}

// Empty transfers (no rows, or no columns) move nothing; the engines must
// not act on the next instruction's fields (the serial core's DMA engines
// read the held instruction, not a copy). Random programs draw them now and
// then; these put each kind right before a real one.
TEST_P(RtlVsSim, EmptyTransfersThenRealOnes) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  testing::DevicePair pair(cfg, "sim", "rtl");
  ASSERT_TRUE(pair.ok());
  for (const char* empty : {"y_size=0 x_size=1", "y_size=2 x_size=0"}) {
    const std::string text = fmt::format(
        "STORE mem=out sram=0 dram=0x3000 {0} x_stride=4\n"
        "LOAD mem=inp sram=0 dram=0x2000 {0} x_stride=4\n"
        "LOAD mem=inp sram=1 dram=0x2000 y_size=2 x_size=3 x_stride=4 push_next\n"
        "STORE mem=out sram=0 dram=0x3000 y_size=2 x_size=3 x_stride=4 push_prev\n"
        "FINISH pop_prev pop_next\n",
        empty);
    auto p = Assemble(cfg, text, "empty.s");
    ASSERT_TRUE(p.ok()) << p.status().ToString() << "\n" << text;
    testing::DeviceOutcome sim, rtl;
    pair.Run(*p, &sim, &rtl);
    ASSERT_TRUE(sim.status.ok()) << sim.status.ToString() << "\n" << text;
    testing::ExpectSameOutcome(sim, rtl, "sim", "rtl", text);
  }
}

// After reset every register reads its regs.def reset value; kW registers
// read as 0; kR registers ignore writes; kRW registers keep what is written.
TEST_P(RtlVsSim, RegisterResetValuesAndAccessRules) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  auto dev = OpenDevice("rtl", cfg);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  Device& d = **dev;
  for (const regs::RegInfo& r : regs::kRegs)
    EXPECT_EQ(d.ReadReg(r.offset), regs::ResetValue(r, cfg.isa_fingerprint)) << r.name;
  for (uint32_t i = 0; i < regs::kNumCounters; ++i)
    EXPECT_EQ(d.ReadReg64(regs::CounterOffset(i)), 0u) << regs::CounterRegisterName(i);
  for (const regs::RegInfo& r : regs::kRegs) {
    if (r.access == regs::Access::kW) continue;                          // CTRL: strobes, exercised by every run
    const uint32_t before = d.ReadReg(r.offset), pattern = 0x5A5A5000u;  // 4 KiB aligned for DRAM_BASE
    d.WriteReg(r.offset, pattern);
    if (r.access == regs::Access::kRW) {
      const uint32_t bits = r.offset == regs::kIrqEnable ? 1u : ~0u;  // IRQ_ENABLE has one bit (regs.def)
      EXPECT_EQ(d.ReadReg(r.offset), pattern & bits) << r.name;
      d.WriteReg(r.offset, before);
    } else {
      EXPECT_EQ(d.ReadReg(r.offset), before) << r.name << " is read-only";
    }
  }
  EXPECT_EQ(d.ReadReg(regs::kCtrl), 0u);
}

INSTANTIATE_TEST_SUITE_P(ModelConfigs, RtlVsSim, ::testing::ValuesIn(testing::ConfigPathList(TESSERA_RTL_CONFIG_FILES)),
                         testing::ConfigParamName());

TEST(RtlBackend, ConfigWithoutAModelIsAClearError) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  cfg.name = "wider";
  cfg.dram_max_outstanding += 1;
  auto dev = OpenDevice("rtl", cfg);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), StatusCode::kNotFound);
  const std::string m = dev.status().message();
  EXPECT_NE(m.find("no Verilated model for config 'wider'"), std::string::npos) << m;
  EXPECT_NE(m.find("TESSERA_RTL_CONFIGS"), std::string::npos) << m;
  // A timing parameter the RTL implements is part of the match; the DRAM latency is the harness's.
  HwConfig deeper = testing::LoadConfigOrDie("configs/tiny.json");
  deeper.gemm_pipeline_depth += 1;
  EXPECT_EQ(OpenDevice("rtl", deeper).status().code(), StatusCode::kNotFound);
  HwConfig slower = testing::LoadConfigOrDie("configs/tiny.json");
  slower.dram_latency_cycles += 5;
  EXPECT_TRUE(OpenDevice("rtl", slower).ok());
}

}  // namespace
}  // namespace tessera
