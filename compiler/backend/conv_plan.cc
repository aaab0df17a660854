#include "compiler/backend/conv_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

#include "compiler/backend/conv_estimate.h"
#include "compiler/backend/shuffle_codegen.h"
#include "isa/base/math.h"
#include "isa/config.h"
#include "isa/isa.h"

namespace tessera::backend {
namespace {

bool FitsBits(int64_t v, int bits) { return v >= 0 && (bits >= 63 || v < (int64_t{1} << bits)); }

// Candidate values for a tile extent in [1, n]: powers of two, divisors of n
// near them, and n itself.
std::vector<int64_t> Candidates(int64_t n, int64_t cap) {
  std::set<int64_t> c;
  n = std::max<int64_t>(1, std::min(n, cap));
  for (int64_t p = 1; p <= n; p *= 2) c.insert(p);
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0 && (d <= 64 || d == n)) c.insert(d);
  c.insert(n);
  return {c.begin(), c.end()};
}

}  // namespace

std::string ConvGeometry::ToString() const {
  return fmt::format("n {} ic {} oc {} groups {} in {}x{} out {}x{} kernel {}x{} stride {}x{}{} pad {},{}", n, ic, oc,
                     groups, ih, iw, oh, ow, kh, kw, sh, sw,
                     dh != 1 || dw != 1 ? fmt::format(" dilation {}x{}", dh, dw) : "", pt, pl);
}

std::string ConvTiling::ToString() const {
  return fmt::format(
      "tile {} oc blocks x {} ic blocks x {}x{} pixels ({} tiles: {} oc x {} ic x {}x{} spatial){}; "
      "estimated {} cycles ({} GEMM)",
      tob, tib, th, tw, tiles, oc_tiles, ic_tiles, h_tiles, w_tiles, weights_resident ? ", weights resident" : "",
      estimated_cycles, gemm_cycles);
}

StatusOr<ConvBlocking> BlockConv(const HwConfig& cfg, const ConvGeometry& g) {
  if (g.groups < 1 || g.ic % g.groups || g.oc % g.groups)
    return InvalidArgumentError("convolution ({}): channels are not divisible by groups", g.ToString());
  ConvBlocking b;
  b.nb = CeilDiv(g.n, cfg.batch);
  b.icb = CeilDiv(g.ic, cfg.block_in);
  b.ocb = CeilDiv(g.oc, cfg.block_out);
  const int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  if (g.groups == 1) {
    b.ibpo = b.icb;
  } else if (g.ic == g.oc && cfg.block_in == cfg.block_out && cfg.block_in % icg == 0) {
    b.depthwise = true;
    b.ibpo = 1;
  } else if (icg % cfg.block_in == 0 && ocg % cfg.block_out == 0) {
    b.ibpo = icg / cfg.block_in;
    b.group_ocb = ocg / cfg.block_out;
  } else {
    return UnimplementedError(
        "convolution ({}): groups of {} input / {} output channels are neither block-diagonal (in = out channels, "
        "a group dividing {}) nor whole blocks of {}",
        g.ToString(), icg, ocg, cfg.block_in, cfg.block_in);
  }
  return b;
}

ScratchpadSplit SplitScratchpads(const HwConfig& cfg, int64_t tob, bool residual_add) {
  ScratchpadSplit s;
  s.inp_half = cfg.inp_entries / 2;
  s.wgt_all = cfg.wgt_entries;
  s.wgt_half = cfg.wgt_entries / 2;
  s.acc_params = 2 * tob + (residual_add ? 3 : 0);
  s.acc_half = std::max<int64_t>(0, (cfg.acc_entries - s.acc_params) / 2);
  if (cfg.compute_overlap != 0) {  // [params | half 0] [params copy | half 1], one bank each
    s.acc_copy = cfg.acc_entries / 2;
    s.acc_half = std::max<int64_t>(0, s.acc_copy - s.acc_params);
  }
  s.acc_base[0] = s.acc_params;
  s.acc_base[1] = s.acc_copy >= 0 ? s.acc_copy + s.acc_params : s.acc_params + s.acc_half;
  s.uop_total = cfg.uop_entries;
  return s;
}

Status CheckConvTiling(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b, ConvTiling* t) {
  const ScratchpadSplit sp = SplitScratchpads(cfg, t->tob, t->residual_add);
  const int64_t kk = g.kh * g.kw;
  if (b.depthwise) t->tib = 1;
  if (b.group_ocb > 0 && b.group_ocb % t->tob)
    return InvalidArgumentError("convolution ({}): an oc tile of {} blocks spans two groups of {}", g.ToString(),
                                t->tob, b.group_ocb);
  const int64_t phases = t->shuffle.phases();
  if (phases > 1 && (t->tob % phases || b.ocb % phases || t->max_pool || t->residual_add || b.depthwise))
    return InvalidArgumentError("convolution ({}): a pixel shuffle needs oc tiles of whole {}-phase groups only",
                                g.ToString(), phases);
  t->in_blocks = b.depthwise ? t->tob : t->tib;
  t->in_h = (t->th - 1) * g.sh + g.ekh();
  t->in_w = (t->tw - 1) * g.sw + g.ekw();
  t->inp_entries = t->in_blocks * t->in_h * t->in_w;
  t->wgt_entries = t->tob * t->tib * kk;
  t->acc_entries = t->tob * t->th * t->tw;
  if (t->max_pool) {
    if (t->tw != g.ow || t->th % 2 || g.oh % 2 || g.ow % 2)
      return InvalidArgumentError("convolution ({}): a fused max pool needs tiles of whole, even rows", g.ToString());
    t->acc_entries += t->tob * (t->th / 2) * (g.ow / 2);  // the pooled outputs
  }
  if (t->residual_add) {
    if (t->max_pool) return InvalidArgumentError("convolution ({}): a fused pool and add", g.ToString());
    t->acc_entries *= 2;  // the residual operand's tile
  }
  t->oc_tiles = CeilDiv(b.ocb, t->tob);
  t->ic_tiles = CeilDiv(b.ibpo, t->tib);
  t->h_tiles = CeilDiv(g.oh, t->th);
  t->w_tiles = CeilDiv(g.ow, t->tw);
  t->tiles = b.nb * t->oc_tiles * t->h_tiles * t->w_tiles * t->ic_tiles;
  t->weights_resident = b.ocb * b.ibpo * kk <= sp.wgt_all;

  auto too_big = [&](const char* what, int64_t need, int64_t have) {
    return ResourceExhaustedError("convolution ({}): a tile needs {} {} entries, {} available", g.ToString(), need,
                                  what, have);
  };
  if (t->inp_entries > sp.inp_half) return too_big("input scratchpad (half)", t->inp_entries, sp.inp_half);
  if (!t->weights_resident && t->wgt_entries > sp.wgt_half)
    return too_big("weight scratchpad (half)", t->wgt_entries, sp.wgt_half);
  if (t->acc_entries > sp.acc_half) return too_big("accumulator scratchpad (half)", t->acc_entries, sp.acc_half);
  // Distinct GEMM uop images: per (input half, accumulator half[, weight offset]);
  // with a shuffle also per tile layout, and its ALU kernels a uop per phase row.
  const int64_t weight_variants = t->weights_resident ? t->oc_tiles * t->ic_tiles : 1;
  const int64_t gemm_uops = 4 * weight_variants * t->wgt_entries;
  t->uops = 16 + (phases > 1 ? ShuffleUops(*t, g.oh, g.ow, gemm_uops)
                             : gemm_uops + (t->max_pool ? 32 * t->tob : 0));  // + the ALU kernels' uops
  if (t->uops > sp.uop_total) return too_big("uop scratchpad", t->uops, sp.uop_total);
  // Loop factors and extents must fit their instruction fields.
  const int acc_bits = cfg.acc_idx_bits, src_bits = std::max(cfg.inp_idx_bits, cfg.acc_idx_bits);
  if (t->th >= (int64_t{1} << 14) || t->tw >= (int64_t{1} << 14) || !FitsBits(t->tw, acc_bits) ||
      !FitsBits(g.sh * t->in_w, src_bits) || !FitsBits(g.sw, src_bits) || !FitsBits(t->th * t->tw, acc_bits) ||
      !FitsBits(phases * t->th * t->tw, acc_bits) ||
      !FitsBits(t->shuffle.sw, cfg.layout.slot(Format::kGemm, FieldId::dst_in).width))
    return ResourceExhaustedError("convolution ({}): tile {}x{} overflows a loop field", g.ToString(), t->th, t->tw);
  // DMA: padding fields hold up to pad_max entries; rows and pitches 16 bits.
  const int64_t pad_max = DmaPadMax(cfg);
  const int64_t pb = std::max<int64_t>(0, (g.oh - 1) * g.sh + g.ekh() - g.pt - g.ih);
  const int64_t pr = std::max<int64_t>(0, (g.ow - 1) * g.sw + g.ekw() - g.pl - g.iw);
  if (std::max({g.pt, g.pl, pb, pr}) > pad_max)
    return UnimplementedError("convolution ({}): padding above {} does not fit the DMA padding fields", g.ToString(),
                              pad_max);
  if (g.iw > 65535 || g.ow > 65535 || b.ibpo * kk > 65535)
    return UnimplementedError("convolution ({}): a row pitch above 65535 elements", g.ToString());

  return OkStatus();
}

int64_t DmaPadMax(const HwConfig& cfg) {
  const int y = cfg.FieldWidth(kFields[static_cast<size_t>(FieldId::y_pad0)].width);
  const int x = cfg.FieldWidth(kFields[static_cast<size_t>(FieldId::x_pad0)].width);
  return (int64_t{1} << std::min(x, y)) - 1;
}

StatusOr<ConvTiling> PlanConv(const HwConfig& cfg, const ConvGeometry& g, const ConvEpilogue& e,
                              const WeightTileMask& nonzero) {
  TSR_ASSIGN_OR_RETURN(ConvBlocking b, BlockConv(cfg, g));
  ConvTiling best;
  bool found = false;
  Status last = ResourceExhaustedError("convolution ({}): no tiling fits the scratchpads", g.ToString());
  std::vector<int64_t> tobs = Candidates(b.group_ocb > 0 ? b.group_ocb : b.ocb, 64);
  if (b.group_ocb > 0)  // an oc tile stays inside one group
    tobs.erase(std::remove_if(tobs.begin(), tobs.end(), [&](int64_t t) { return b.group_ocb % t != 0; }), tobs.end());
  const int64_t phases = e.shuffle.phases();  // an oc tile holds whole phase groups
  tobs.erase(std::remove_if(tobs.begin(), tobs.end(), [&](int64_t t) { return t % phases != 0; }), tobs.end());
  const std::vector<int64_t> tibs = b.depthwise ? std::vector<int64_t>{1} : Candidates(b.ibpo, 64);
  const std::vector<int64_t> tws = e.max_pool ? std::vector<int64_t>{g.ow} : Candidates(g.ow, 16384);
  for (int64_t tob : tobs)
    for (int64_t tib : tibs)
      for (int64_t tw : tws) {
        const ScratchpadSplit sp = SplitScratchpads(cfg, tob, e.residual_passes > 0);
        // The tallest tile that fits the input and accumulator halves, and a
        // shorter one that balances the last tile.
        const int64_t in_blocks = b.depthwise ? tob : tib;
        const int64_t in_w = (tw - 1) * g.sw + g.ekw();
        if (in_blocks * g.ekh() * in_w > sp.inp_half || tob * tw > sp.acc_half) continue;
        // A fused pool keeps tw/4 pooled outputs per row besides the tile and
        // needs pairs of rows.
        const int64_t acc_row = e.max_pool ? tw + tw / 4 : e.residual_passes ? 2 * tw : tw;
        const int64_t row_step = e.max_pool ? 2 : 1;
        int64_t th_max =
            std::min({g.oh, sp.acc_half / (tob * acc_row), ((sp.inp_half / (in_blocks * in_w)) - g.ekh()) / g.sh + 1});
        th_max -= th_max % row_step;
        if (th_max < 1) continue;
        const int64_t h_tiles = CeilDiv(g.oh, th_max);
        for (int64_t th : {th_max, row_step * CeilDiv(CeilDiv(g.oh, row_step), h_tiles)}) {
          ConvTiling t;
          t.tob = tob, t.tib = tib, t.th = th, t.tw = tw, t.max_pool = e.max_pool;
          t.residual_add = e.residual_passes > 0;
          t.shuffle = e.shuffle;
          Status s = CheckConvTiling(cfg, g, b, &t);
          if (!s.ok()) {
            last = s;
            continue;
          }
          const ConvEstimate est = EstimateConv(cfg, g, b, t, e, nonzero);
          t.estimated_cycles = est.cycles, t.gemm_cycles = est.gemm_cycles;
          if (!found || t.estimated_cycles < best.estimated_cycles) best = t, found = true;
        }
      }
  if (!found) return last;
  return best;
}

}  // namespace tessera::backend
