// Every example program on every config: ref accepts it (race detector on),
// sim leaves the same DRAM, and the serialized and double-buffered matmul
// compute the same output while the double-buffered one takes fewer cycles.
#include <gtest/gtest.h>

#include <filesystem>

#include "isa/asm.h"
#include "isa/config.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct Ran {
  std::unique_ptr<Dram> dram;
  int64_t cycles = 0;
};

Ran RunBoth(const HwConfig& cfg, const std::string& path) {
  auto prog = AssembleFile(cfg, path);
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  Dram ref_dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &ref_dram).ok());
  RefSim ref(cfg, &ref_dram);
  Status rs = ref.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()));
  EXPECT_TRUE(rs.ok()) << path << " on " << cfg.name << ": " << rs.ToString();
  Ran r{std::make_unique<Dram>(cfg.dram_size_bytes), 0};
  EXPECT_TRUE(LoadProgram(cfg, *prog, r.dram.get()).ok());
  CycleSim sim(cfg, r.dram.get());
  Status ss = sim.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()));
  EXPECT_TRUE(ss.ok()) << path << " on " << cfg.name << ": " << ss.ToString();
  EXPECT_TRUE(r.dram->Segments() == ref_dram.Segments()) << path << " on " << cfg.name << ": sim and ref DRAM differ";
  EXPECT_TRUE(CheckExpectations(*prog, *r.dram).ok() || cfg.name != "default") << path;
  r.cycles = sim.stats().cycles();
  return r;
}

TEST(Examples, EveryProgramOnEveryConfigOnBothEngines) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("examples/programs")) {
    if (e.path().extension() != ".s") continue;
    for (const std::string& c : testing::BundledConfigPaths()) {
      const HwConfig cfg = testing::LoadConfigOrDie(c);
      if (testing::TooBigForSmallDram(cfg, AssembleFile(cfg, e.path().string()).status())) continue;
      RunBoth(cfg, e.path().string());
      ++n;
    }
  }
  EXPECT_GE(n, 5 * 4);
}

TEST(Examples, DoubleBufferingComputesTheSameProductFaster) {
  for (const std::string& c : testing::BundledConfigPaths()) {
    HwConfig cfg = testing::LoadConfigOrDie(c);
    if (!testing::HoldsBundledWorkloads(cfg)) continue;  // X, W and Y at up to 3 MiB
    Ran dbl = RunBoth(cfg, "examples/programs/matmul_double_buffered.s");
    Ran ser = RunBoth(cfg, "examples/programs/matmul_serialized.s");
    // Y: C chunks x R rows x NB tiles at 0x300000 (C = 8, R = 8, NB = 4 in both programs).
    const uint64_t bytes = 8 * 8 * 4 * static_cast<uint64_t>(cfg.out_tile_bytes);
    std::vector<uint8_t> a(bytes), b(bytes);
    ASSERT_TRUE(dbl.dram->Read(0x300000, a.data(), bytes).ok());
    ASSERT_TRUE(ser.dram->Read(0x300000, b.data(), bytes).ok());
    EXPECT_EQ(a, b) << c;
    EXPECT_NE(std::count(a.begin(), a.end(), 0), static_cast<long>(bytes)) << "output is all zero";
    EXPECT_LT(dbl.cycles, ser.cycles) << c;
  }
}

}  // namespace
}  // namespace tessera
