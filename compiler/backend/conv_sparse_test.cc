// Block-sparse weights through the tiler and the conv code generator: zero
// weight tiles skipped on `ref` and `sim`, outputs bit for bit the dense run's
// and the plain-loop reference's, GEMM iterations and weight loads counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compiler/backend/conv_codegen_case.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/weight_tiles.h"
#include "isa/config.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

using namespace conv_test;

// Zeroes whole [BO][BI] weight tiles of `c` (each with probability 1/2, and
// sometimes every tile of an output block or of an input block) and marks it sparse.
void ZeroWeightTiles(const HwConfig& cfg, std::mt19937_64& rng, Case* c) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const ConvGeometry& g = c->g;
  const ConvBlocking b = BlockConv(cfg, g).value();
  const int64_t icg = g.ic / g.groups, kk = g.kh * g.kw, BO = cfg.block_out, BI = cfg.block_in;
  const bool diag = b.depthwise;  // block-diagonal: one tile per oc block and tap
  const int64_t ocb = b.ocb, ibpo = b.ibpo;
  const int64_t dead_ob = U(0, 3) == 0 ? U(0, ocb - 1) : -1, dead_j = U(0, 3) == 0 ? U(0, ibpo - 1) : -1;
  for (int64_t ob = 0; ob < ocb; ++ob)
    for (int64_t j = 0; j < ibpo; ++j)
      for (int64_t k = 0; k < kk; ++k) {
        if (ob != dead_ob && j != dead_j && U(0, 1)) continue;
        for (int64_t o = ob * BO; o < std::min(g.oc, ob * BO + BO); ++o)
          for (int64_t i = diag ? 0 : j * BI; i < (diag ? icg : std::min(icg, j * BI + BI)); ++i)
            c->w[static_cast<size_t>((o * icg + i) * kk + k)] = 0;
      }
  c->sparse = true;
}

// Block-sparse weights: the same outputs with and without skipping the zero
// weight tiles; skipping multiplies and (resident weights) loads only the
// non-zero tiles, plus one tile for an output-channel tile that has none.
void CheckSparse(const std::string& config, const std::string& target, int cases, uint64_t seed, bool overlap) {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  cfg.compute_overlap = overlap ? 1 : 0;
  std::mt19937_64 rng(seed);
  int64_t skipped_tiles = 0;
  for (int i = 0; i < cases; ++i) {
    Case c = i % 3 == 2 ? RandomGroupedCase(rng, cfg.block_in, true, false) : RandomCase(rng, i % 4 == 3);
    if (i % 3 != 2) {  // several channel blocks
      std::uniform_int_distribution<int64_t> ch(1, 5 * cfg.block_in);
      c.g.ic = c.g.oc = ch(rng), c.g.groups = c.g.groups > 1 ? c.g.ic : 1;
      if (c.g.groups == 1) c.g.oc = ch(rng);
      if (c.dense) c.g.oh = c.g.ih;
      FillData(rng, &c);
    }
    ZeroWeightTiles(cfg, rng, &c);
    Case dense = c;
    dense.sparse = false;
    auto r = RunOnDevice(cfg, target, c);
    auto d = RunOnDevice(cfg, target, dense);
    ASSERT_TRUE(r.ok() && d.ok()) << config << " case " << i << " (" << c.g.ToString() << "): " << r.status().ToString()
                                  << d.status().ToString();
    const std::vector<int8_t> want = c.dense ? DenseReference(c) : Reference(c);
    ASSERT_EQ(r->y, want) << config << " " << target << " case " << i << ": " << c.g.ToString();
    ASSERT_EQ(d->y, want) << config << " " << target << " case " << i << ": " << c.g.ToString();
    // GEMM iterations: every weight tile (dense), or the non-zero ones plus
    // one for each oc tile without any (sparse); each over every output pixel.
    const ConvBlocking b = BlockConv(cfg, c.g).value();
    const WeightTileMask nz = NonzeroWeightTiles(cfg, WeightPackingOf(c.g, b), c.w.data());
    const int64_t tiles = b.ocb * b.ibpo * c.g.kh * c.g.kw, per_ob = tiles / b.ocb;
    const int64_t nonzero = nz.empty() ? tiles : std::count(nz.begin(), nz.end(), 1);
    int64_t empty_oc_tiles = 0;
    for (int64_t ob0 = 0; !nz.empty() && ob0 < b.ocb; ob0 += r->tiling.tob)
      empty_oc_tiles +=
          std::count(nz.begin() + ob0 * per_ob, nz.begin() + std::min(b.ocb, ob0 + r->tiling.tob) * per_ob, 1) == 0;
    const int64_t pixels = b.nb * c.g.oh * c.g.ow;
    EXPECT_EQ(d->counters.gemm_iterations, tiles * pixels) << config << " case " << i;
    EXPECT_EQ(r->counters.gemm_iterations, (nonzero + empty_oc_tiles) * pixels) << config << " case " << i;
    const int64_t wgt_bytes = r->counters.load_bytes_by_mem[static_cast<size_t>(MemType::kWgt)];
    if (r->tiling.weights_resident) {
      EXPECT_EQ(wgt_bytes, (nonzero + empty_oc_tiles) * cfg.wgt_tile_bytes) << config << " case " << i;
    }
    skipped_tiles += tiles - nonzero;
    if (r->counters.cycles > 0) {
      EXPECT_EQ(r->predicted.cycles, r->counters.cycles) << config << " case " << i << ": " << c.g.ToString();
    }
  }
  EXPECT_GT(skipped_tiles, 0) << config;
}

TEST(ConvCodegen, ZeroWeightTilesOnRefDefault) { CheckSparse("configs/default.json", "ref", 20, 31, false); }
TEST(ConvCodegen, ZeroWeightTilesOnSimDefault) { CheckSparse("configs/default.json", "sim", 10, 32, true); }
TEST(ConvCodegen, ZeroWeightTilesOnRefTiny) { CheckSparse("configs/tiny.json", "ref", 15, 33, true); }

}  // namespace
}  // namespace tessera::backend
