// Randomized convolution and dense shapes compiled with the tiler and the conv
// code generator, run through the runtime on `ref` (race detector on) and
// `sim`, and compared bit for bit with a plain-loop reference that uses the
// same requantization arithmetic (isa/alu.h).
#include <gtest/gtest.h>

#include <random>

#include "compiler/backend/conv_codegen_case.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

using namespace conv_test;

// kGroups / kDilation: grouped / dilated convolutions (RandomGroupedCase).
enum class Fused { kNone, kPool, kAdd, kGroups, kDilation };

// `overlap`: with timing.compute_overlap (epilogues beside the next tile's
// GEMM; ref's race detector checks the compiler's ovl promise).
// `skip_thirds`: how many thirds of the cases may not fit the scratchpads
// (-1: a third when fused, none otherwise; ice40-up5k's 32-tile weight halves
// often do not hold a random layer's tiles).
void Check(const std::string& config, const std::string& target, int cases, uint64_t seed, Fused fused = Fused::kNone,
           bool overlap = false, int skip_thirds = -1) {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  cfg.compute_overlap = overlap ? 1 : 0;
  std::mt19937_64 rng(seed);
  int skipped = 0, ovl = 0, ovl_acc = 0, ovl_acc8 = 0;
  for (int i = 0; i < cases; ++i) {
    Case c = fused == Fused::kPool       ? RandomPoolCase(rng)
             : fused == Fused::kAdd      ? RandomAddCase(rng)
             : fused == Fused::kGroups   ? RandomGroupedCase(rng, cfg.block_in, true, i % 3 == 2)
             : fused == Fused::kDilation ? RandomGroupedCase(rng, cfg.block_in, i % 3 == 2, true)
                                         : RandomCase(rng, i % 4 == 3);
    if (i % 5 == 4) {  // clamps MULSHRC cannot express: MULSHR, MAX, MIN (SHR, MAX, MIN after an add)
      c.lo = -3, c.hi = 100;
      c.alo = -100, c.ahi = 90;
    }
    // The tiles must fit; the partitioner keeps the op apart (or on the CPU) otherwise.
    if (!PlanConv(cfg, c.g, EpilogueOf(c)).ok()) {
      ++skipped;
      continue;
    }
    auto r = RunOnDevice(cfg, target, c);
    ASSERT_TRUE(r.ok()) << config << " " << target << " case " << i << " (" << c.g.ToString()
                        << "): " << r.status().ToString();
    const std::vector<int8_t> want = c.dense  ? DenseReference(c)
                                     : c.pool ? MaxPool(Reference(c), c.g.n, c.g.oc, c.g.oh, c.g.ow)
                                     : c.add  ? QAdd(c, Reference(c))
                                              : Reference(c);
    ASSERT_EQ(r->y, want) << config << " " << target << " case " << i << ": " << c.g.ToString()
                          << (c.dense ? " (dense)" : "");
    // The requantization is one MULSHRC pass where it can clamp (not after a
    // fused add, whose operands' MULSHRs stay); the add's SHR and clamp too.
    const bool one_pass = alu::MulShrClipImm(c.shift, c.lo, c.hi).has_value();
    const bool add_one_pass = c.add && ConvEpilogue::ResidualPasses(c.alo, c.ahi) == 1;
    EXPECT_EQ(r->alu_insns.count(AluOp::kMulShrClip) > 0, one_pass || add_one_pass) << config << " case " << i;
    const bool mulshr = r->alu_insns.count(AluOp::kMulShr) > 0, shr = r->alu_insns.count(AluOp::kShr) > 0;
    EXPECT_EQ(mulshr, c.add || !one_pass) << config << " case " << i;
    EXPECT_EQ(shr, c.add && !add_one_pass) << config << " case " << i;
    ovl += r->ovl_insns;
    ovl_acc += r->ovl_acc_loads;
    ovl_acc8 += r->ovl_acc8_loads;
    if (!overlap || c.pool) {
      EXPECT_EQ(r->ovl_insns, 0) << config << " case " << i;
    }
    // The cost model times the same stream without data: the cycles sim counts.
    if (r->counters.cycles > 0) {
      EXPECT_EQ(r->predicted.cycles, r->counters.cycles) << config << " case " << i << ": " << c.g.ToString();
    }
    // On a serial core the tiler's estimate adds up every instruction's cycles (not their dispatch: within 15%).
    if (cfg.serial != 0) {
      EXPECT_NEAR(r->tiling.estimated_cycles, r->predicted.cycles, r->predicted.cycles * 3 / 20)
          << config << " case " << i << ": " << c.g.ToString();
    }
  }
  EXPECT_LE(skipped, cases * (skip_thirds >= 0 ? skip_thirds : fused != Fused::kNone ? 1 : 0) / 3) << config;
  if (overlap && fused != Fused::kPool) {
    EXPECT_GT(ovl, 0) << config;
    EXPECT_GT(ovl_acc, 0) << config;  // a bank's parameter rows beside the other bank's GEMM
  }
  // The residual tile beside the previous tile's GEMM.
  EXPECT_EQ(ovl_acc8 > 0, overlap && fused == Fused::kAdd) << config;
}

TEST(ConvCodegen, RandomShapesOnRefDefault) { Check("configs/default.json", "ref", 40, 1); }
TEST(ConvCodegen, RandomShapesOnSimDefault) { Check("configs/default.json", "sim", 15, 2); }
TEST(ConvCodegen, RandomShapesOnRefTiny) { Check("configs/tiny.json", "ref", 30, 3); }
TEST(ConvCodegen, RandomShapesOnRefLarge) { Check("configs/large.json", "ref", 15, 4); }
TEST(ConvCodegen, RandomShapesOnSimPynq) { Check("configs/pynq-z1.json", "sim", 10, 5); }
TEST(ConvCodegen, RandomShapesOnSimIce40Serial) {
  Check("configs/ice40-up5k.json", "sim", 30, 41, Fused::kNone, false, 2);
}
// A 3x3/2 max pool fused into the epilogue (conv_pool.h): conv, requantize,
// pool in plain loops against the pooled tile on the device.
TEST(ConvCodegen, FusedMaxPoolOnRefDefault) { Check("configs/default.json", "ref", 25, 6, Fused::kPool); }
TEST(ConvCodegen, FusedMaxPoolOnSimDefault) { Check("configs/default.json", "sim", 10, 7, Fused::kPool); }
TEST(ConvCodegen, FusedMaxPoolOnRefTiny) { Check("configs/tiny.json", "ref", 12, 8, Fused::kPool); }
// Grouped convolutions (block-diagonal and independent group GEMMs) and dilated ones.
TEST(ConvCodegen, GroupedOnRefDefault) { Check("configs/default.json", "ref", 30, 12, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnSimDefault) { Check("configs/default.json", "sim", 12, 13, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnRefTiny) { Check("configs/tiny.json", "ref", 20, 14, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnRefLarge) { Check("configs/large.json", "ref", 10, 15, Fused::kGroups); }
TEST(ConvCodegen, DilatedOnRefDefault) { Check("configs/default.json", "ref", 30, 16, Fused::kDilation); }
TEST(ConvCodegen, DilatedOnSimDefault) { Check("configs/default.json", "sim", 12, 17, Fused::kDilation); }
TEST(ConvCodegen, DilatedOnRefTiny) { Check("configs/tiny.json", "ref", 20, 18, Fused::kDilation); }

// A residual qadd fused into the epilogue (fuse_conv_add.h) against conv,
// requantize, qadd in plain loops.
TEST(ConvCodegen, FusedAddOnRefDefault) { Check("configs/default.json", "ref", 25, 9, Fused::kAdd); }
TEST(ConvCodegen, FusedAddOnSimDefault) { Check("configs/default.json", "sim", 10, 10, Fused::kAdd); }
TEST(ConvCodegen, OverlapOnRefDefault) { Check("configs/default.json", "ref", 20, 21, Fused::kNone, true); }
TEST(ConvCodegen, OverlapOnSimDefault) { Check("configs/default.json", "sim", 8, 22, Fused::kNone, true); }
TEST(ConvCodegen, OverlapOnRefTiny) { Check("configs/tiny.json", "ref", 15, 23, Fused::kNone, true); }
TEST(ConvCodegen, OverlapFusedAddOnSimTiny) { Check("configs/tiny.json", "sim", 6, 25, Fused::kAdd, true); }
TEST(ConvCodegen, OverlapFusedAddOnRefTiny) { Check("configs/tiny.json", "ref", 10, 26, Fused::kAdd, true); }
TEST(ConvCodegen, OverlapFusedMaxPoolOnRefTiny) { Check("configs/tiny.json", "ref", 8, 27, Fused::kPool, true); }
TEST(ConvCodegen, OverlapGroupedOnRefTiny) { Check("configs/tiny.json", "ref", 12, 28, Fused::kGroups, true); }
TEST(ConvCodegen, FusedAddOnRefTiny) { Check("configs/tiny.json", "ref", 12, 11, Fused::kAdd); }

}  // namespace
}  // namespace tessera::backend
