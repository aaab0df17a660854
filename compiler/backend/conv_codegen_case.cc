// Random conv cases, their plain-loop references and device runs for the conv
// code generator's tests (conv_codegen_case.h).
#include "compiler/backend/conv_codegen_case.h"

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

namespace tessera::backend::conv_test {

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
  FillData(rng, &c);
  c.shift = static_cast<int>(U(36, 44));
  if (U(0, 1)) c.lo = 0;  // fused ReLU (MULSHRC)
  return c;
}

ConvEpilogue EpilogueOf(const Case& c) {
  ConvEpilogue e = ConvEpilogue::ForRange(c.lo, c.hi);
  e.max_pool = c.pool;
  e.residual_passes = c.add ? ConvEpilogue::ResidualPasses(c.alo, c.ahi) : 0;
  return e;
}

void FillData(std::mt19937_64& rng, Case* c, bool params) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const ConvGeometry& g = c->g;
  c->x.resize(static_cast<size_t>(g.n * g.ic * g.ih * g.iw));
  c->w.resize(static_cast<size_t>(g.oc * (g.ic / g.groups) * g.kh * g.kw));
  for (auto& v : c->x) v = static_cast<int8_t>(U(-128, 127));
  for (auto& v : c->w) v = static_cast<int8_t>(U(-127, 127));
  if (!params) return;
  c->bias.clear(), c->mult.clear();
  for (int64_t m = 0; m < g.oc; ++m) {
    c->bias.push_back(U(-50000, 50000));
    c->mult.push_back(U(1 << 29, (int64_t{1} << 31) - 1));
  }
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
  FillData(rng, &c);
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
  FillData(rng, &c, false);  // (its oc, and so RandomCase's parameters, stay)
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

StatusOr<Result> RunOnDevice(const HwConfig& cfg, const std::string& target, const Case& c) {
  const ConvEpilogue e = EpilogueOf(c);
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

}  // namespace tessera::backend::conv_test
