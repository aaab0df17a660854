// Differential tests of the engines on random valid programs, on every config:
//   ref (with the race detector) accepts the program;
//   sim leaves DRAM bit-identical to ref;
//   sim's event skipping gives the same timeline as visiting every cycle;
//   timing does not depend on data (timing-only run = same cycles);
//   every module's cycle categories sum to the total.
// A failing case is written as a replayable assembly file (path in the message).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "isa/asm.h"
#include "isa/config.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "tests/support/random_isa.h"
#include "tests/support/random_program.h"

namespace tessera {
namespace {

int SeedsPerConfig() {
  const char* env = std::getenv("TESSERA_FUZZ_SEEDS");
  return env ? std::atoi(env) : 150;
}

std::string Replay(const HwConfig& cfg, const Program& p, const std::string& config_path, uint64_t seed) {
  std::string path =
      std::string(TESSERA_TEST_OUTPUT_DIR) + "/sim_vs_ref_failure_" + cfg.name + "_" + std::to_string(seed) + ".s";
  std::ofstream(path) << Disassemble(cfg, p);
  return "replay: tessera exec " + path + " -c " + config_path + " --target ref|sim" +
         (cfg.compute_overlap ? " (with timing.compute_overlap set to 1 in the config)" : "") +
         (cfg.serial ? " (with queues.serial set to 1 in the config)" : "");
}

struct SimResult {
  Status status;
  CycleStats stats;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> dram;
};

SimResult RunCycle(const HwConfig& cfg, const Program& p, CycleOptions opts) {
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, p, &dram).ok());
  CycleSim sim(cfg, &dram);
  opts.record_instructions = true;
  SimResult r{sim.Run(p.text_addr, static_cast<int64_t>(p.insns.size()), opts), sim.stats(), dram.Segments()};
  return r;
}

class SimVsRef : public ::testing::TestWithParam<std::string> {};

// With `overlap`, the config's timing.compute_overlap is 1 (the generator sets
// ovl on some blocks' first GEMM, ALU or LOAD acc/acc8); returns the programs that took fewer
// cycles than with it off in *faster.
void CheckRandomPrograms(const std::string& config_path, bool overlap, int seeds, int* faster) {
  HwConfig cfg = testing::LoadConfigOrDie(config_path);
  HwConfig serial = cfg;
  cfg.compute_overlap = overlap ? 1 : 0;
  for (int seed = 0; seed < seeds; ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    Dram ref_dram(cfg.dram_size_bytes);
    ASSERT_TRUE(LoadProgram(cfg, p, &ref_dram).ok());
    RefSim ref(cfg, &ref_dram);
    Status rs = ref.Run(p.text_addr, static_cast<int64_t>(p.insns.size()));
    ASSERT_TRUE(rs.ok()) << "the generator made an invalid program: " << rs.ToString() << "\n"
                         << Replay(cfg, p, config_path, seed);

    SimResult fast = RunCycle(cfg, p, {});
    ASSERT_TRUE(fast.status.ok()) << fast.status.ToString() << "\n" << Replay(cfg, p, config_path, seed);
    ASSERT_TRUE(fast.dram == ref_dram.Segments()) << "sim and ref DRAM differ; " << Replay(cfg, p, config_path, seed);
    // The functional counters are the same on both engines (only the timed ones differ).
    EXPECT_TRUE(fast.stats.counters.Untimed() == ref.stats()) << Replay(cfg, p, config_path, seed);

    CycleOptions every;
    every.visit_every_cycle = true;
    SimResult slow = RunCycle(cfg, p, every);
    ASSERT_TRUE(slow.status.ok()) << slow.status.ToString();
    ASSERT_EQ(fast.stats.cycles(), slow.stats.cycles()) << Replay(cfg, p, config_path, seed);
    ASSERT_EQ(fast.stats.instructions.size(), slow.stats.instructions.size());
    for (size_t i = 0; i < fast.stats.instructions.size(); ++i) {
      ASSERT_EQ(fast.stats.instructions[i].start, slow.stats.instructions[i].start)
          << Replay(cfg, p, config_path, seed);
      ASSERT_EQ(fast.stats.instructions[i].end, slow.stats.instructions[i].end) << Replay(cfg, p, config_path, seed);
    }
    EXPECT_TRUE(fast.stats.counters == slow.stats.counters) << Replay(cfg, p, config_path, seed);
    for (int u = 0; u < regs::kNumUnits; ++u)
      EXPECT_GE(fast.stats.counters.idle(static_cast<regs::Unit>(u)), 0) << Replay(cfg, p, config_path, seed);

    CycleOptions timing;
    timing.compute_data = false;
    SimResult t = RunCycle(cfg, p, timing);
    ASSERT_TRUE(t.status.ok()) << t.status.ToString();
    // Timing-only runs skip the data but count exactly the same events.
    EXPECT_TRUE(t.stats.counters == fast.stats.counters) << Replay(cfg, p, config_path, seed);
    if (overlap) {
      serial.compute_overlap = 0;
      SimResult s = RunCycle(serial, p, {});
      EXPECT_TRUE(s.dram == fast.dram) << Replay(cfg, p, config_path, seed);
      *faster += fast.stats.cycles() < s.stats.cycles();
    }
  }
}

TEST_P(SimVsRef, RandomValidPrograms) {
  int faster = 0;
  CheckRandomPrograms(GetParam(), false, SeedsPerConfig(), &faster);
}

// The compute module's two pipes (timing.compute_overlap = 1): ref's race
// detector accepts the generator's ovl, sim agrees with ref and with itself,
// and some programs get faster.
TEST_P(SimVsRef, RandomValidProgramsWithOverlap) {
  int faster = 0;
  // About 2% of the generator's programs gain (their ovl blocks meet): all the seeds.
  CheckRandomPrograms(GetParam(), true, SeedsPerConfig(), &faster);
  // A serial core (queues.serial) runs nothing beside anything: ovl never helps.
  if (testing::LoadConfigOrDie(GetParam()).serial != 0) {
    EXPECT_EQ(faster, 0);
  } else if (SeedsPerConfig() >= 100) {  // (fewer seeds, e.g. TESSERA_FUZZ_SEEDS=10, may draw none)
    EXPECT_GT(faster, 0);
  }
}

// queues.serial (docs/microarch.md "Serial"): the generator's programs run on
// a serial core, sim agrees with ref, and no instruction starts before the
// one before it in the stream has ended.
TEST_P(SimVsRef, RandomValidProgramsOnASerialCore) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  cfg.serial = 1;
  for (int seed = 0; seed < std::max(1, SeedsPerConfig() / 3); ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    const std::string replay = Replay(cfg, p, GetParam(), seed);
    Dram ref_dram(cfg.dram_size_bytes);
    ASSERT_TRUE(LoadProgram(cfg, p, &ref_dram).ok());
    RefSim ref(cfg, &ref_dram);
    Status rs = ref.Run(p.text_addr, static_cast<int64_t>(p.insns.size()));
    ASSERT_TRUE(rs.ok()) << rs.ToString() << "\n" << replay;
    SimResult r = RunCycle(cfg, p, {});
    ASSERT_TRUE(r.status.ok()) << r.status.ToString() << "\n" << replay;
    ASSERT_TRUE(r.dram == ref_dram.Segments()) << "sim and ref DRAM differ; " << replay;
    std::vector<InsnTiming> by_index(r.stats.instructions.size());
    for (const InsnTiming& t : r.stats.instructions) by_index[static_cast<size_t>(t.index)] = t;
    for (size_t i = 1; i < by_index.size(); ++i)
      ASSERT_GE(by_index[i].start, by_index[i - 1].end + 1)
          << "instruction " << i << " starts before " << i - 1 << " has ended and pushed; " << replay;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryConfig, SimVsRef, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera
