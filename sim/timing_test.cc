// The closed forms of sim/timing.h against the rules they are built from: the
// ALU operand rule in closed form against iterating it, and DmaAlone /
// FirstStartCycle against `sim` running a single DMA on random shapes.
#include "sim/timing.h"

#include <gtest/gtest.h>

#include <random>

#include "isa/asm.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

TEST(Timing, AluLoopCyclesMatchesTheOperandRule) {
  // Full lanes (tiny: 1 pass) and one lane over 4 elements (ice40-up5k: 4
  // passes, a multiply's alu.mul_cycles each).
  for (const char* path : {"configs/tiny.json", "configs/ice40-up5k.json"}) {
    auto cfg = LoadHwConfig(path);
    ASSERT_TRUE(cfg.ok()) << cfg.status().ToString();
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 2000; ++trial) {
      const int64_t outer = 1 + rng() % 5, inner = 1 + rng() % 5, uops = 1 + rng() % 4;
      const int64_t src_out = rng() % 4, src_in = rng() % 3;
      std::vector<int64_t> src(static_cast<size_t>(uops));
      for (auto& s : src) s = rng() % 4;
      const bool reads = rng() % 4 != 0;
      const AluOp op = rng() % 2 ? AluOp::kMulShr : AluOp::kAdd;
      int64_t want = 0, prev = timing::kNoSource;
      for (int64_t i = 0; i < outer; ++i)
        for (int64_t j = 0; j < inner; ++j)
          for (int64_t u = 0; u < uops; ++u) {
            const int64_t s = src[static_cast<size_t>(u)] + i * src_out + j * src_in;
            want += timing::AluIterationCycles(*cfg, op, reads, s, prev);
            prev = s;
          }
      EXPECT_EQ(timing::AluLoopCycles(*cfg, op, reads, outer, inner, src.data(), uops, src_out, src_in), want)
          << path << " trial " << trial;
    }
  }
}

// The lanes rule: V / L passes, V / L - 1 cycles more per iteration; with
// alu.mul_cycles k, a multiply's passes take k cycles each: V / L x k - 1 more.
TEST(Timing, AluLanesAddPassesPerIteration) {
  auto cfg = LoadHwConfig("configs/default.json");  // 16 elements
  ASSERT_TRUE(cfg.ok());
  const int64_t src = 5;
  for (int k : {1, 4, 32})
    for (int lanes : {0, 16, 8, 4, 1})
      for (AluOp op : {AluOp::kAdd, AluOp::kMul, AluOp::kMulShr, AluOp::kMulShrClip, AluOp::kMax}) {
        cfg->alu_lanes = lanes;
        cfg->alu_mul_cycles = k;
        ASSERT_TRUE(ValidateHwConfig(*cfg, "test").ok());
        const int64_t passes = lanes == 0 ? 1 : 16 / lanes;
        const bool mul = op == AluOp::kMul || op == AluOp::kMulShr || op == AluOp::kMulShrClip;
        const int64_t extra = passes * (mul ? k : 1) - 1;
        EXPECT_EQ(timing::AluPasses(*cfg), passes);
        EXPECT_EQ(timing::AluIterationCycles(*cfg, op, true, 3, timing::kNoSource), 2 + extra) << lanes << " " << k;
        EXPECT_EQ(timing::AluIterationCycles(*cfg, op, true, 3, 3), 1 + extra) << lanes << " " << k;
        EXPECT_EQ(timing::AluIterationCycles(*cfg, op, false, 3, 2), 1 + extra) << lanes << " " << k;
        // 2 x 3 iterations, all reading row 5: one 2-cycle read, then the operand register.
        EXPECT_EQ(timing::AluLoopCycles(*cfg, op, true, 2, 3, &src, 1, 0, 0), 7 + 6 * extra) << lanes << " " << k;
      }
}

struct Timed {
  int64_t start = 0, end = 0, cycles = 0;
};

Timed RunOne(const HwConfig& cfg, const std::string& text) {
  auto prog = Assemble(cfg, text, "t.s");
  EXPECT_TRUE(prog.ok()) << prog.status().ToString() << "\n" << text;
  if (!prog.ok()) return {};
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  CycleSim sim(cfg, &dram);
  CycleOptions o;
  o.record_instructions = true;
  o.compute_data = false;
  Status st = sim.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), o);
  EXPECT_TRUE(st.ok()) << st.ToString() << "\n" << text;
  Timed t;
  for (const InsnTiming& i : sim.stats().instructions)
    if (i.index == 0) t.start = i.start, t.end = i.end;
  t.cycles = sim.stats().cycles();
  return t;
}

// A single LOAD or STORE (with FINISH waiting for it) against DmaAlone.
TEST(Timing, DmaAloneMatchesSim) {
  for (const char* path : {"configs/default.json", "configs/tiny.json", "configs/large.json"}) {
    const HwConfig cfg = testing::LoadConfigOrDie(path);
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 150; ++trial) {
      const bool write = trial % 2;
      const MemType mem = write ? MemType::kOut : trial % 3 == 0 ? MemType::kAcc : MemType::kInp;
      const int64_t elem = cfg.ElementBytes(mem);
      const int64_t y = rng() % 12, x = rng() % 40, stride = x + rng() % 300;
      const int64_t yp0 = rng() % 3, yp1 = rng() % 3, xp0 = rng() % 3, xp1 = rng() % 3;
      const int64_t dram = (0x10000 + static_cast<int64_t>(rng() % 20000)) / elem * elem;  // bytes
      const std::string text = fmt::format(
          "{} mem={} sram=0 dram={} y_size={} x_size={} x_stride={} y_pad0={} y_pad1={} x_pad0={} x_pad1={} {}\n"
          "FINISH {}\n",
          write ? "STORE" : "LOAD", FindMemType(static_cast<int64_t>(mem))->name, dram, y, x,
          std::max<int64_t>(stride, 1), yp0, yp1, xp0, xp1,
          write                  ? "push_prev"
          : mem == MemType::kAcc ? ""
                                 : "push_next",
          write                  ? "pop_next"
          : mem == MemType::kAcc ? ""
                                 : "pop_prev");
      const Timed t = RunOne(cfg, text);
      timing::DmaShape d;
      d.write = write;
      d.addr = static_cast<uint64_t>(dram);
      d.pitch = static_cast<uint64_t>(std::max<int64_t>(stride, 1) * elem);
      if (write) {
        d.rows = x + xp0 + xp1 > 0 ? y + yp0 + yp1 : 0;
        d.row_bytes = static_cast<uint64_t>((x + xp0 + xp1) * elem);
        d.y_pad0 = yp0, d.data_rows = y, d.data_cols = x;
      } else {
        d.rows = x > 0 ? y : 0;
        d.row_bytes = static_cast<uint64_t>(x * elem);
        d.padding = timing::LoadPaddingEntries(yp0, y, yp1, xp0, x, xp1);
      }
      EXPECT_EQ(timing::DmaAlone(cfg, d).cycles, t.end - t.start) << path << "\n" << text;
      EXPECT_EQ(timing::FirstStartCycle(cfg, 2), t.start) << path;
    }
  }
}

}  // namespace
}  // namespace tessera
