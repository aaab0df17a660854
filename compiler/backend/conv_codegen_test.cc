// Randomized convolution and dense shapes compiled with the tiler and the conv
// code generator, run through the runtime on `ref` (race detector on) and
// `sim`, and compared bit for bit with a plain-loop reference that uses the
// same requantization arithmetic (isa/alu.h).
#include "compiler/backend/conv_codegen.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "compiler/backend/cost_model.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/weight_tiles.h"
#include "driver/registry.h"
#include "isa/alu.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "runtime/runtime.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

struct Case {
  ConvGeometry g;
  bool dense = false;  // [N, K] x [K, M] as a 1x1 conv over N rows
  std::vector<int8_t> x, w;
  std::vector<int64_t> bias, mult;
  int shift = 0;
  int64_t lo = -128, hi = 127;
  bool pool = false;  // a 3x3/2 max pool (padding 1) fused into the epilogue
  // A residual qadd fused into the epilogue: y = qadd(conv, res).
  bool add = false;
  std::vector<int8_t> res;
  int64_t ma = 0, mb = 0, alo = -128, ahi = 127;
  int sa = 0, sb = 0, post = 0;
  bool sparse = false;  // pass the zero weight tiles to the tiler and codegen (weight_tiles.h)
};

Case RandomCase(std::mt19937_64& rng, bool dense) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c;
  ConvGeometry& g = c.g;
  c.dense = dense;
  if (dense) {
    g.n = 1;
    g.ih = g.oh = U(1, 40);  // rows
    g.iw = g.ow = 1;
    g.ic = U(1, 70);
    g.oc = U(1, 70);
  } else {
    g.n = U(1, 2);
    g.kh = std::vector<int64_t>{1, 3, 5, 7}[U(0, 3)];
    g.kw = U(0, 3) == 0 ? std::vector<int64_t>{1, 3, 5}[U(0, 2)] : g.kh;
    g.sh = U(1, 3), g.sw = U(1, 3);
    g.pt = U(0, g.kh / 2), g.pl = U(0, g.kw / 2);
    g.ih = U(std::max<int64_t>(1, g.kh - 2 * g.pt), 14), g.iw = U(std::max<int64_t>(1, g.kw - 2 * g.pl), 14);
    g.oh = (g.ih + 2 * g.pt - g.kh) / g.sh + 1, g.ow = (g.iw + 2 * g.pl - g.kw) / g.sw + 1;
    if (U(0, 4) == 0) {
      g.ic = g.oc = g.groups = U(1, 40);  // depthwise
    } else {
      g.ic = U(1, 40), g.oc = U(1, 40);
    }
  }
  const int64_t icg = g.ic / g.groups;
  c.x.resize(static_cast<size_t>(g.n * g.ic * g.ih * g.iw));
  c.w.resize(static_cast<size_t>(g.oc * icg * g.kh * g.kw));
  for (auto& v : c.x) v = static_cast<int8_t>(U(-128, 127));
  for (auto& v : c.w) v = static_cast<int8_t>(U(-127, 127));
  for (int64_t m = 0; m < g.oc; ++m) {
    c.bias.push_back(U(-50000, 50000));
    c.mult.push_back(U(1 << 29, (int64_t{1} << 31) - 1));
  }
  c.shift = static_cast<int>(U(36, 44));
  if (U(0, 1)) c.lo = 0;  // fused ReLU (MULSHRC)
  return c;
}

// A grouped convolution whose groups are either whole channel blocks of the
// config (independent group GEMMs) or divide a block with in = out channels
// (block-diagonal weight tiles), and/or a dilated one.
Case RandomGroupedCase(std::mt19937_64& rng, int64_t block, bool grouped, bool dilated) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c = RandomCase(rng, false);
  ConvGeometry& g = c.g;
  if (grouped) {
    if (U(0, 1)) {  // block-diagonal
      g.groups = U(1, 3) * (block / 2), g.ic = g.oc = g.groups * std::vector<int64_t>{1, 2, block / 2}[U(0, 2)];
    } else {
      g.groups = U(2, 3), g.ic = g.groups * block * U(1, 2), g.oc = g.groups * block * U(1, 3);
    }
  } else {
    g.groups = 1;
  }
  if (dilated) {
    g.dh = U(1, 4), g.dw = U(0, 2) ? g.dh : U(1, 3);
    g.pt = U(0, std::min<int64_t>(7, g.ekh() / 2)), g.pl = U(0, std::min<int64_t>(7, g.ekw() / 2));
    const int64_t h0 = std::max<int64_t>(1, g.ekh() - 2 * g.pt), w0 = std::max<int64_t>(1, g.ekw() - 2 * g.pl);
    g.ih = U(h0, std::max<int64_t>(h0, 16)), g.iw = U(w0, std::max<int64_t>(w0, 16));
    g.oh = (g.ih + 2 * g.pt - g.ekh()) / g.sh + 1, g.ow = (g.iw + 2 * g.pl - g.ekw()) / g.sw + 1;
  }
  c.x.resize(static_cast<size_t>(g.n * g.ic * g.ih * g.iw));
  c.w.resize(static_cast<size_t>(g.oc * (g.ic / g.groups) * g.kh * g.kw));
  for (auto& v : c.x) v = static_cast<int8_t>(U(-128, 127));
  for (auto& v : c.w) v = static_cast<int8_t>(U(-127, 127));
  c.bias.clear(), c.mult.clear();
  for (int64_t m = 0; m < g.oc; ++m) {
    c.bias.push_back(U(-50000, 50000));
    c.mult.push_back(U(1 << 29, (int64_t{1} << 31) - 1));
  }
  return c;
}

// A convolution whose even-sized result feeds a fused 3x3/2 max pool.
Case RandomPoolCase(std::mt19937_64& rng) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c = RandomCase(rng, false);
  ConvGeometry& g = c.g;
  g.groups = 1, g.ic = U(1, 40), g.sh = g.sw = U(1, 2), g.pt = g.kh / 2, g.pl = g.kw / 2;
  g.oh = 2 * U(1, 12), g.ow = 2 * U(1, 12);
  if (U(0, 2) == 0) g.oh = g.ow = 2 * U(14, 28);  // several row tiles
  g.ih = (g.oh - 1) * g.sh + g.kh - 2 * g.pt, g.iw = (g.ow - 1) * g.sw + g.kw - 2 * g.pl;
  c.x.resize(static_cast<size_t>(g.n * g.ic * g.ih * g.iw));
  c.w.resize(static_cast<size_t>(g.oc * g.ic * g.kh * g.kw));
  for (auto& v : c.x) v = static_cast<int8_t>(U(-128, 127));
  for (auto& v : c.w) v = static_cast<int8_t>(U(-127, 127));
  c.pool = true;
  return c;
}

// A convolution whose result is added (qadd) to another tensor of its shape.
Case RandomAddCase(std::mt19937_64& rng) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Case c = RandomCase(rng, false);
  const ConvGeometry& g = c.g;
  c.add = true;
  c.res.resize(static_cast<size_t>(g.n * g.oc * g.oh * g.ow));
  for (auto& v : c.res) v = static_cast<int8_t>(U(-128, 127));
  c.ma = U(1 << 29, (int64_t{1} << 31) - 1), c.mb = U(1 << 29, (int64_t{1} << 31) - 1);
  c.sa = static_cast<int>(U(20, 26)), c.sb = static_cast<int>(U(20, 26)), c.post = static_cast<int>(U(4, 8));
  if (U(0, 1)) c.alo = 0;  // ReLU after the add (MULSHRC by ones)
  return c;
}

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

// qadd as the CPU reference computes it (compiler/exec/quant_kernels.cc).
std::vector<int8_t> QAdd(const Case& c, const std::vector<int8_t>& a) {
  std::vector<int8_t> y(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t t = alu::Apply(AluOp::kMulShr, a[i], c.ma, c.sa, 32);
    t = alu::Apply(AluOp::kAdd, t, alu::Apply(AluOp::kMulShr, c.res[i], c.mb, c.sb, 32), 0, 32);
    t = alu::Apply(AluOp::kShr, t, c.post, 0, 32);
    y[i] = static_cast<int8_t>(std::min(std::max(t, c.alo), c.ahi));
  }
  return y;
}

// Max pool 3x3, stride 2, padding 1 of [n][c][h][w] (h, w even).
std::vector<int8_t> MaxPool(const std::vector<int8_t>& y, int64_t n, int64_t c, int64_t h, int64_t w) {
  std::vector<int8_t> p(static_cast<size_t>(n * c * (h / 2) * (w / 2)));
  for (int64_t b = 0; b < n * c; ++b)
    for (int64_t r = 0; r < h / 2; ++r)
      for (int64_t q = 0; q < w / 2; ++q) {
        int8_t m = -128;
        for (int64_t i = 2 * r - 1; i <= 2 * r + 1; ++i)
          for (int64_t j = 2 * q - 1; j <= 2 * q + 1; ++j)
            if (i >= 0 && i < h && j >= 0 && j < w) m = std::max(m, y[(b * h + i) * w + j]);
        p[(b * (h / 2) + r) * (w / 2) + q] = m;
      }
  return p;
}

std::vector<int8_t> Reference(const Case& c) {
  const ConvGeometry& g = c.g;
  const int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  std::vector<int8_t> y(static_cast<size_t>(g.n * g.oc * g.oh * g.ow));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t m = 0; m < g.oc; ++m)
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          int64_t acc = 0;
          const int64_t grp = m / ocg;
          for (int64_t ci = 0; ci < icg; ++ci)
            for (int64_t i = 0; i < g.kh; ++i)
              for (int64_t j = 0; j < g.kw; ++j) {
                const int64_t ih = oh * g.sh - g.pt + i * g.dh, iw = ow * g.sw - g.pl + j * g.dw;
                if (ih < 0 || ih >= g.ih || iw < 0 || iw >= g.iw) continue;
                acc += int64_t{c.x[((n * g.ic + grp * icg + ci) * g.ih + ih) * g.iw + iw]} *
                       c.w[((m * icg + ci) * g.kh + i) * g.kw + j];
              }
          y[((n * g.oc + m) * g.oh + oh) * g.ow + ow] =
              static_cast<int8_t>(alu::Requantize(acc, c.bias[m], c.mult[m], c.shift, c.lo, c.hi, 32));
        }
  return y;
}

// Dense: x is [rows][K] and w [M][K], both row-major; y is [rows][M].
std::vector<int8_t> DenseReference(const Case& c) {
  const int64_t rows = c.g.ih, k = c.g.ic, m = c.g.oc;
  std::vector<int8_t> y(static_cast<size_t>(rows * m));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t o = 0; o < m; ++o) {
      int64_t acc = 0;
      for (int64_t i = 0; i < k; ++i) acc += int64_t{c.x[r * k + i]} * c.w[o * k + i];
      y[r * m + o] = static_cast<int8_t>(alu::Requantize(acc, c.bias[o], c.mult[o], c.shift, c.lo, c.hi, 32));
    }
  return y;
}

struct Result {
  std::vector<int8_t> y;
  DeviceCounters counters, predicted;
  std::map<AluOp, int> alu_insns;             // ALU instructions of the recording by operation
  int ovl_insns = 0;                          // instructions with ovl
  int ovl_acc_loads = 0, ovl_acc8_loads = 0;  // of them, LOAD acc (parameter rows) and acc8 (residual)
  ConvTiling tiling;
};

StatusOr<Result> RunOnDevice(const HwConfig& cfg, const std::string& target, const Case& c) {
  ConvEpilogue e = ConvEpilogue::ForRange(c.lo, c.hi);
  e.max_pool = c.pool;
  e.residual_passes = c.add ? ConvEpilogue::ResidualPasses(c.alo, c.ahi) : 0;
  TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg, c.g));
  const ConvGeometry& g = c.g;
  const WeightTileMask nonzero =
      c.sparse ? NonzeroWeightTiles(cfg, WeightPackingOf(g, blocks), c.w.data()) : WeightTileMask{};
  TSR_ASSIGN_OR_RETURN(ConvTiling tiling, PlanConv(cfg, c.g, e, nonzero));
  std::vector<uint8_t> x, w = PackConvWeights(cfg, g, blocks, c.w.data());
  std::vector<uint8_t> p = PackChannelParams(cfg, g.oc, c.bias, c.mult);
  const int64_t f = c.pool ? 2 : 1;
  ActShape in_shape{g.n, g.ic, g.ih, g.iw}, out_shape{g.n, g.oc, g.oh / f, g.ow / f};
  if (c.dense) {
    // Rows are packed as [rows][K blocks]: an [N, K] tensor with H = W = 1.
    in_shape = ActShape{g.ih, g.ic, 1, 1};
    out_shape = ActShape{g.oh, g.oc, 1, 1};
  }
  x = PackActivation(cfg, in_shape, c.x.data());
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(target, cfg));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> rt, Runtime::Create(std::move(dev)));
  TSR_ASSIGN_OR_RETURN(Buffer bx, rt->Alloc(x.size(), "x"));
  TSR_ASSIGN_OR_RETURN(Buffer bw, rt->Alloc(w.size(), "w"));
  TSR_ASSIGN_OR_RETURN(Buffer bp, rt->Alloc(p.size(), "params"));
  TSR_ASSIGN_OR_RETURN(Buffer by, rt->Alloc(ActBytes(cfg, out_shape), "y"));
  TSR_RETURN_IF_ERROR(rt->CopyIn(bx, x.data(), x.size()));
  TSR_RETURN_IF_ERROR(rt->CopyIn(bw, w.data(), w.size()));
  TSR_RETURN_IF_ERROR(rt->CopyIn(bp, p.data(), p.size()));
  std::vector<Buffer> bufs = {bx, bw, bp, by};
  std::vector<uint8_t> res, addp = PackBroadcastRows(cfg, 3, {c.ma, c.mb, 1});
  if (c.add) {
    res = PackActivation(cfg, out_shape, c.res.data());
    TSR_ASSIGN_OR_RETURN(Buffer br, rt->Alloc(res.size(), "res"));
    TSR_ASSIGN_OR_RETURN(Buffer ba, rt->Alloc(addp.size(), "add params"));
    TSR_RETURN_IF_ERROR(rt->CopyIn(br, res.data(), res.size()));
    TSR_RETURN_IF_ERROR(rt->CopyIn(ba, addp.data(), addp.size()));
    bufs.push_back(br), bufs.push_back(ba);
  }

  Stream s(cfg, "conv");
  TSR_ASSIGN_OR_RETURN(Slot sx, s.DeclareSlot("x", x.size()));
  TSR_ASSIGN_OR_RETURN(Slot sw, s.DeclareSlot("w", w.size()));
  TSR_ASSIGN_OR_RETURN(Slot sp, s.DeclareSlot("params", p.size()));
  TSR_ASSIGN_OR_RETURN(Slot sy, s.DeclareSlot("y", by.bytes()));
  ConvCodegen cg;
  cg.name = "conv";
  cg.geo = g;
  cg.blocks = blocks;
  cg.tiling = tiling;
  cg.nonzero = nonzero;
  if (c.dense) {
    cg.in = ActView{sx, 0, 0, 1, blocks.icb};  // row r, block b at r * K blocks + b
    cg.out = ActView{sy, 0, 0, 1, blocks.ocb};
  } else {
    cg.in = NchwView(sx, blocks.icb, g.ih, g.iw);
    cg.out = NchwView(sy, blocks.ocb, g.oh / f, g.ow / f);
  }
  cg.weights = sw, cg.params = sp;
  cg.shift = c.shift, cg.act_min = c.lo, cg.act_max = c.hi;
  if (c.add) {
    TSR_ASSIGN_OR_RETURN(Slot sr, s.DeclareSlot("res", res.size()));
    TSR_ASSIGN_OR_RETURN(cg.add_params, s.DeclareSlot("add params", addp.size()));
    cg.residual = NchwView(sr, blocks.ocb, g.oh, g.ow);
    cg.add_shift_conv = c.sa, cg.add_shift_res = c.sb, cg.add_post_shift = c.post;
    cg.add_min = c.alo, cg.add_max = c.ahi;
  }
  TSR_RETURN_IF_ERROR(EmitConv(s, cfg, cg));
  TSR_ASSIGN_OR_RETURN(Recording rec, s.Finish());
  Result r;
  r.tiling = tiling;
  for (const auto& piece : rec.pieces)
    for (const Word128& word : piece) {
      TSR_ASSIGN_OR_RETURN(Instruction in, Decode(cfg, word));
      if (in.op() == Opcode::kAlu) ++r.alu_insns[in.alu()];
      r.ovl_insns += in.ovl != 0;
      if (in.ovl && in.op() == Opcode::kLoad) ++(in.mem_type() == MemType::kAcc ? r.ovl_acc_loads : r.ovl_acc8_loads);
    }
  TSR_ASSIGN_OR_RETURN(r.predicted, PredictRecording(cfg, rec));
  TSR_ASSIGN_OR_RETURN(Executable exe, rt->Load(rec));
  TSR_RETURN_IF_ERROR(exe.BindAll(bufs));
  TSR_RETURN_IF_ERROR(exe.Run());
  std::vector<uint8_t> packed(by.bytes());
  TSR_RETURN_IF_ERROR(rt->CopyOut(by, packed.data(), packed.size()));
  r.y.resize(static_cast<size_t>(out_shape.Elements()));
  UnpackActivation(cfg, out_shape, packed.data(), r.y.data());
  r.counters = exe.counters();
  return r;
}

// kGroups / kDilation: grouped / dilated convolutions (RandomGroupedCase).
enum class Fused { kNone, kPool, kAdd, kGroups, kDilation };

// `overlap`: with timing.compute_overlap (epilogues beside the next tile's
// GEMM; ref's race detector checks the compiler's ovl promise).
void Check(const std::string& config, const std::string& target, int cases, uint64_t seed, Fused fused = Fused::kNone,
           bool overlap = false) {
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
    // The tiles must fit (ice40-up5k's 32-tile weight halves: often not); the
    // partitioner keeps the op apart (or on the CPU) otherwise.
    if (fused != Fused::kNone || cfg.serial != 0) {
      ConvEpilogue e = ConvEpilogue::ForRange(c.lo, c.hi);
      e.max_pool = c.pool;
      e.residual_passes = c.add ? ConvEpilogue::ResidualPasses(c.alo, c.ahi) : 0;
      if (!PlanConv(cfg, c.g, e).ok()) {
        ++skipped;
        continue;
      }
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
  EXPECT_LE(skipped, cfg.serial != 0 ? cases * 2 / 3 : cases / 3) << config;
  if (overlap && fused != Fused::kPool) {
    EXPECT_GT(ovl, 0) << config;
    EXPECT_GT(ovl_acc, 0) << config;  // a bank's parameter rows beside the other bank's GEMM
  }
  // The residual tile beside the previous tile's GEMM.
  EXPECT_EQ(ovl_acc8 > 0, overlap && fused == Fused::kAdd) << config;
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
      c.x.resize(static_cast<size_t>(c.g.n * c.g.ic * c.g.ih * c.g.iw));
      c.w.resize(static_cast<size_t>(c.g.oc * (c.g.ic / c.g.groups) * c.g.kh * c.g.kw));
      for (auto& v : c.x) v = static_cast<int8_t>(rng() % 256 - 128);
      for (auto& v : c.w) v = static_cast<int8_t>(rng() % 255 - 127);
      c.bias.clear(), c.mult.clear();
      for (int64_t m = 0; m < c.g.oc; ++m) {
        c.bias.push_back(static_cast<int64_t>(rng() % 100001) - 50000);
        c.mult.push_back((int64_t{1} << 29) + static_cast<int64_t>(rng() % (int64_t{1} << 30)));
      }
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

TEST(ConvCodegen, RandomShapesOnRefDefault) { Check("configs/default.json", "ref", 40, 1); }
TEST(ConvCodegen, RandomShapesOnSimDefault) { Check("configs/default.json", "sim", 15, 2); }
TEST(ConvCodegen, RandomShapesOnRefTiny) { Check("configs/tiny.json", "ref", 30, 3); }
TEST(ConvCodegen, RandomShapesOnRefLarge) { Check("configs/large.json", "ref", 15, 4); }
TEST(ConvCodegen, RandomShapesOnSimPynq) { Check("configs/pynq-z1.json", "sim", 10, 5); }
TEST(ConvCodegen, RandomShapesOnSimIce40Serial) { Check("configs/ice40-up5k.json", "sim", 30, 41); }
// A 3x3/2 max pool fused into the epilogue (conv_pool.h): conv, requantize,
// pool in plain loops against the pooled tile on the device.
TEST(ConvCodegen, FusedMaxPoolOnRefDefault) { Check("configs/default.json", "ref", 25, 6, Fused::kPool); }
TEST(ConvCodegen, FusedMaxPoolOnSimDefault) { Check("configs/default.json", "sim", 10, 7, Fused::kPool); }
TEST(ConvCodegen, FusedMaxPoolOnRefTiny) { Check("configs/tiny.json", "ref", 12, 8, Fused::kPool); }
// A residual qadd fused into the epilogue (fuse_conv_add.h) against conv,
// requantize, qadd in plain loops.
// Grouped convolutions (block-diagonal and independent group GEMMs) and dilated ones.
TEST(ConvCodegen, GroupedOnRefDefault) { Check("configs/default.json", "ref", 30, 12, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnSimDefault) { Check("configs/default.json", "sim", 12, 13, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnRefTiny) { Check("configs/tiny.json", "ref", 20, 14, Fused::kGroups); }
TEST(ConvCodegen, GroupedOnRefLarge) { Check("configs/large.json", "ref", 10, 15, Fused::kGroups); }
TEST(ConvCodegen, DilatedOnRefDefault) { Check("configs/default.json", "ref", 30, 16, Fused::kDilation); }
TEST(ConvCodegen, DilatedOnSimDefault) { Check("configs/default.json", "sim", 12, 17, Fused::kDilation); }
TEST(ConvCodegen, DilatedOnRefTiny) { Check("configs/tiny.json", "ref", 20, 18, Fused::kDilation); }

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
