// The end-of-stream token rule (docs/isa.md, "Dependency tokens") is one rule
// on every engine: random programs whose load, compute and store instructions
// may or may not hand a token to FINISH run on `ref` and `sim`, and both
// accept exactly the programs in which the last load and the last store push
// towards compute, whatever the timing (issue 15, finding 10: `ref` accepted
// some programs whose last LOAD was never waited for, `sim` accepted or
// refused them by whether that LOAD happened to end before FINISH).
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct RandomCase {
  std::string text;
  bool valid = true;  // what the rule says
  int64_t count = 0;
};

// Loads write inp/wgt, which compute never reads (no GEMM); compute writes
// acc/out rows 0..7, store reads out rows 16..23: no cross-module scratchpad
// access, so no program is racy and only the token rule decides. Instructions
// of the three modules are interleaved at random; ALU loops of random length
// and DMA of random size make the modules' end times vary.
RandomCase MakeCase(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  const int loads = pick(4), alus = pick(4), stores = pick(4);
  const bool load_token = loads > 0 && pick(2), store_token = stores > 0 && pick(2);
  RandomCase c;
  c.valid = (loads == 0 || load_token) && (stores == 0 || store_token);
  std::string head = ".text 0x1000\n.random D 0x100000 i8 count=4096 seed=" + std::to_string(pick(1000)) + "\n" +
                     ".uops one 0x2000\n  dst=0 src=0 wgt=0\n.end\n";
  std::vector<std::string> lines[kNumModules];
  for (int i = 0; i < loads; ++i) {
    const int x = 1 + pick(64);
    lines[0].push_back(fmt::format("LOAD mem={} sram={} dram=D y_size=1 x_size={} x_stride={}{}",
                                   pick(2) ? "inp" : "wgt", pick(8), x, x,
                                   i == loads - 1 && load_token ? " push_next" : ""));
  }
  lines[1].push_back("LOAD mem=uop sram=0 dram=one y_size=1 x_size=1 x_stride=1");
  for (int i = 0; i < alus; ++i)
    lines[1].push_back(
        fmt::format("ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out={} iter_in={}", 1 + pick(64), 1 + pick(64)));
  for (int i = 0; i < stores; ++i) {
    const int x = 1 + pick(8);
    lines[2].push_back(fmt::format("STORE mem=out sram=16 dram=0x200000 y_size=1 x_size={} x_stride={}{}", x, x,
                                   i == stores - 1 && store_token ? " push_prev" : ""));
  }
  std::string body;
  size_t next[kNumModules] = {};
  for (;;) {
    std::vector<int> left;
    for (int m = 0; m < kNumModules; ++m)
      if (next[m] < lines[m].size()) left.push_back(m);
    if (left.empty()) break;
    const int m = left[static_cast<size_t>(pick(static_cast<int>(left.size())))];
    body += lines[m][next[m]++] + "\n";
    ++c.count;
  }
  c.text = head + body + "FINISH" + (load_token ? " pop_prev" : "") + (store_token ? " pop_next" : "") + "\n";
  ++c.count;
  return c;
}

Status RunOn(const HwConfig& cfg, const Program& p, bool cycle) {
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, p, &dram).ok());
  const int64_t n = static_cast<int64_t>(p.insns.size());
  if (cycle) {
    CycleSim sim(cfg, &dram);
    CycleOptions o;
    o.max_cycles = 10000000;
    return sim.Run(p.text_addr, n, o);
  }
  RefSim ref(cfg, &dram);
  return ref.Run(p.text_addr, n);
}

TEST(TokenRule, RefAndSimAcceptTheSamePrograms) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  std::mt19937_64 rng(15);
  int valid = 0, invalid = 0, disagreements = 0;
  for (int k = 0; k < 400; ++k) {
    const RandomCase c = MakeCase(rng);
    auto p = Assemble(cfg, c.text, "case.s");
    ASSERT_TRUE(p.ok()) << p.status().ToString() << "\n" << c.text;
    const Status ref = RunOn(cfg, *p, false), sim = RunOn(cfg, *p, true);
    (c.valid ? valid : invalid)++;
    if (ref.ok() != sim.ok()) ++disagreements;
    EXPECT_EQ(ref.ok(), c.valid) << "case " << k << " on ref: " << ref.ToString() << "\n" << c.text;
    EXPECT_EQ(sim.ok(), c.valid) << "case " << k << " on sim: " << sim.ToString() << "\n" << c.text;
    if (c.valid) continue;
    // Refused for the rule, at FINISH, on both.
    const Fault want{static_cast<uint32_t>(regs::ErrorCode::kTokenError), static_cast<uint32_t>(c.count - 1)};
    EXPECT_TRUE(ref.fault() == want) << "case " << k << " on ref: " << ref.ToString();
    EXPECT_TRUE(sim.fault() == want) << "case " << k << " on sim: " << sim.ToString();
  }
  EXPECT_EQ(disagreements, 0) << "of 400 programs";
  // Both kinds are exercised.
  EXPECT_GT(valid, 100);
  EXPECT_GT(invalid, 100);
}

}  // namespace
}  // namespace tessera
