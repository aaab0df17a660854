// The SystemC model against `sim` through the register protocol: on random
// valid programs of every bundled config and on every example program, the
// `systemc` device must leave DRAM bit-identical and report the same
// counters (cycles, per-module stall categories, traffic, bursts) as the
// `sim` device. Both devices are reused across programs, so scratchpads and
// DRAM carry over identically. A failing case is written as a replayable
// assembly file (path in the message). TESSERA_SYSTEMC_SEEDS sets the number
// of random programs per config.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "tests/support/device_diff.h"
#include "tests/support/random_isa.h"
#include "tests/support/random_program.h"

namespace tessera {
namespace {

int SeedsPerConfig() {
  const char* env = std::getenv("TESSERA_SYSTEMC_SEEDS");
  return env ? std::atoi(env) : 130;
}

std::string Replay(const HwConfig& cfg, const Program& p, const std::string& config_path, const std::string& tag) {
  return testing::WriteReplay(TESSERA_TEST_OUTPUT_DIR, "systemc_vs_sim_failure_" + cfg.name + "_" + tag, cfg, p,
                              config_path, "systemc|sim");
}

void ExpectSame(const testing::DeviceOutcome& sim, const testing::DeviceOutcome& sc, const std::string& replay) {
  testing::ExpectSameOutcome(sim, sc, "sim", "systemc", replay);
}

class SystemcVsSim : public ::testing::TestWithParam<std::string> {};

TEST_P(SystemcVsSim, RandomValidPrograms) {
  const std::string config_path = GetParam();
  HwConfig cfg = testing::LoadConfigOrDie(config_path);
  testing::DevicePair pair(cfg, "sim", "systemc");
  ASSERT_TRUE(pair.ok());
  int ran = 0;
  for (int seed = 0; seed < SeedsPerConfig(); ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    testing::DeviceOutcome sim, sc;
    pair.Run(p, &sim, &sc);
    const std::string replay = Replay(cfg, p, config_path, "seed" + std::to_string(seed));
    ASSERT_TRUE(sim.status.ok()) << sim.status.ToString() << "\n" << replay;
    ExpectSame(sim, sc, replay);
    if (::testing::Test::HasFailure()) return;
    ++ran;
  }
  EXPECT_EQ(ran, SeedsPerConfig());
}

TEST(SystemcVsSimExamples, EveryExampleProgramOnEveryConfig) {
  int n = 0;
  for (const std::string& c : testing::BundledConfigPaths()) {
    HwConfig cfg = testing::LoadConfigOrDie(c);
    testing::DevicePair pair(cfg, "sim", "systemc");
    ASSERT_TRUE(pair.ok());
    for (const auto& e : std::filesystem::directory_iterator("examples/programs")) {
      if (e.path().extension() != ".s") continue;
      auto p = AssembleFile(cfg, e.path().string());
      if (testing::TooBigForSmallDram(cfg, p.status())) continue;
      ASSERT_TRUE(p.ok()) << p.status().ToString();
      testing::DeviceOutcome sim, sc;
      pair.Run(*p, &sim, &sc);
      ASSERT_TRUE(sim.status.ok()) << e.path() << " on " << cfg.name << ": " << sim.status.ToString();
      ExpectSame(sim, sc, e.path().string() + " -c " + c);
      ++n;
    }
  }
  EXPECT_GE(n, 5 * 4);
}

// Command queues and token channels of depth 2: dispatch blocks on full
// queues and modules hold completed instructions whose pushes do not fit,
// every cycle — the phase order of the SystemC model's delta cycles (a pop
// in phase 3 frees a slot for phase 4's dispatch of the same cycle, and for
// phase 2's push only in the next) against sim's. Programs that deadlock on
// such depths must fail the same way on both.
TEST(SystemcVsSimSmallQueues, RandomProgramsOnDepthTwo) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  cfg.command_queue_depth = 2;
  cfg.token_queue_depth = 2;
  testing::DevicePair pair(cfg, "sim", "systemc");
  ASSERT_TRUE(pair.ok());
  int ok = 0;
  int64_t dispatch_blocked = 0;  // fetch cycles with a full command queue
  for (int seed = 0; seed < 60; ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    testing::DeviceOutcome sim, sc;
    pair.Run(p, &sim, &sc);
    const std::string replay = Replay(cfg, p, "configs/tiny.json (depths 2)", "depth2_seed" + std::to_string(seed));
    if (sim.status.ok()) {
      ExpectSame(sim, sc, replay);
      dispatch_blocked += sim.counters.unit(regs::Unit::kFetch).wait_queue;
      ++ok;
    } else {
      ASSERT_FALSE(sc.status.ok()) << replay;
      EXPECT_EQ(sim.device_status.error_code, sc.device_status.error_code) << replay;
      EXPECT_EQ(sim.device_status.error_insn, sc.device_status.error_insn) << replay;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(ok, 30) << "most programs still run with depth-2 queues";
  EXPECT_GT(dispatch_blocked, 0) << "the programs fill the command queues";
  std::printf("depth 2: %d of 60 programs ran, fetch waited %lld cycles on full queues\n", ok,
              static_cast<long long>(dispatch_blocked));
}

// The compute module's two pipes (timing.compute_overlap = 1; the generator
// sets ovl on some blocks' first GEMM, ALU or LOAD acc/acc8), also with depth-2 queues, where
// the per-queue push order and held pipes matter.
// Random programs on `cfg` (described as `what` in replays, tagged `tag`):
// sim and systemc agree, or both fault alike where programs `may_deadlock`.
void CompareRandomPrograms(const HwConfig& cfg, const std::string& what, const std::string& tag, bool may_deadlock) {
  testing::DevicePair pair(cfg, "sim", "systemc");
  ASSERT_TRUE(pair.ok());
  for (int seed = 0; seed < std::max(1, SeedsPerConfig() / 4); ++seed) {
    Program p = testing::RandomValidProgram(cfg, static_cast<uint64_t>(seed));
    testing::DeviceOutcome sim, sc;
    pair.Run(p, &sim, &sc);
    const std::string replay = Replay(cfg, p, what, tag + "_seed" + std::to_string(seed));
    if (sim.status.ok()) {
      ExpectSame(sim, sc, replay);
    } else {
      ASSERT_TRUE(may_deadlock) << sim.status.ToString() << "\n" << replay;
      ASSERT_FALSE(sc.status.ok()) << replay;
      EXPECT_EQ(sim.device_status.error_code, sc.device_status.error_code) << replay;
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_P(SystemcVsSim, RandomProgramsWithComputeOverlap) {
  const std::string config_path = GetParam();
  for (const int depth : {0, 2}) {
    HwConfig cfg = testing::LoadConfigOrDie(config_path);
    cfg.compute_overlap = 1;
    if (depth > 0) cfg.command_queue_depth = cfg.token_queue_depth = depth;
    CompareRandomPrograms(cfg, config_path + " (timing.compute_overlap 1, queue depths " + std::to_string(depth) + ")",
                          "overlap_d" + std::to_string(depth), depth > 0);
    if (::testing::Test::HasFailure()) return;
  }
}

// queues.serial: the SystemC model's fetch dispatches on the same cycles as sim's.
TEST_P(SystemcVsSim, RandomProgramsOnASerialCore) {
  const std::string config_path = GetParam();
  HwConfig cfg = testing::LoadConfigOrDie(config_path);
  cfg.serial = 1;
  CompareRandomPrograms(cfg, config_path + " (queues.serial 1)", "serial", false);
}

INSTANTIATE_TEST_SUITE_P(EveryConfig, SystemcVsSim, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera
