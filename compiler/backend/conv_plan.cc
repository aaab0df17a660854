#include "compiler/backend/conv_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

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
  return fmt::format("n {} ic {} oc {} groups {} in {}x{} out {}x{} kernel {}x{} stride {}x{} pad {},{}", n, ic, oc,
                     groups, ih, iw, oh, ow, kh, kw, sh, sw, pt, pl);
}

std::string ConvTiling::ToString() const {
  return fmt::format(
      "tile {} oc blocks x {} ic blocks x {}x{} pixels ({} tiles: {} oc x {} ic x {}x{} spatial){}; "
      "predicted {} cycles ({} GEMM)",
      tob, tib, th, tw, tiles, oc_tiles, ic_tiles, h_tiles, w_tiles, weights_resident ? ", weights resident" : "",
      predicted_cycles, predicted_gemm_cycles);
}

StatusOr<ConvBlocking> BlockConv(const HwConfig& cfg, const ConvGeometry& g) {
  if (g.groups < 1 || g.ic % g.groups || g.oc % g.groups)
    return InvalidArgumentError("convolution ({}): channels are not divisible by groups", g.ToString());
  ConvBlocking b;
  b.nb = CeilDiv(g.n, cfg.batch);
  b.icb = CeilDiv(g.ic, cfg.block_in);
  b.ocb = CeilDiv(g.oc, cfg.block_out);
  if (g.groups == 1) {
    b.ibpo = b.icb;
  } else if (g.groups == g.ic && g.ic == g.oc && cfg.block_in == cfg.block_out) {
    b.depthwise = true;
    b.ibpo = 1;
  } else {
    return UnimplementedError(
        "convolution ({}): grouped convolutions other than depthwise (groups = channels) are not tensorized",
        g.ToString());
  }
  return b;
}

ScratchpadSplit SplitScratchpads(const HwConfig& cfg, int64_t tob) {
  ScratchpadSplit s;
  s.inp_half = cfg.inp_entries / 2;
  s.wgt_all = cfg.wgt_entries;
  s.wgt_half = cfg.wgt_entries / 2;
  s.acc_params = 2 * tob;
  s.acc_half = std::max<int64_t>(0, (cfg.acc_entries - s.acc_params) / 2);
  s.uop_total = cfg.uop_entries;
  return s;
}

int64_t DmaLoadCycles(const HwConfig& cfg, int64_t rows, int64_t row_bytes, int64_t pad_entries) {
  const int64_t beats = rows * CeilDiv(row_bytes, cfg.dram_bytes_per_cycle);
  const int64_t data = rows > 0 && row_bytes > 0 ? cfg.dram_latency_cycles + beats : 0;
  return std::max<int64_t>(1, cfg.dma_setup_cycles + pad_entries + data);
}

int64_t FetchStartupCycles(const HwConfig& cfg) {
  // The first block of up to 8 instructions: latency, its beats, one dispatch.
  const int64_t block = std::min<int64_t>(8, cfg.fetch_buffer) * kInsnBytes;
  return cfg.dram_latency_cycles + CeilDiv(block, cfg.dram_bytes_per_cycle) + 1;
}

int64_t DmaStoreCycles(const HwConfig& cfg, int64_t rows, int64_t row_bytes, int64_t entries) {
  const int64_t beats = rows * CeilDiv(row_bytes, cfg.dram_bytes_per_cycle);
  // The out scratchpad is read one entry per cycle ahead of the bursts; the
  // last response arrives L cycles after the last beat.
  return std::max<int64_t>(1, cfg.dma_setup_cycles + std::max(beats, entries) + cfg.dram_latency_cycles);
}

Status CheckConvTiling(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b, ConvTiling* t) {
  const ScratchpadSplit sp = SplitScratchpads(cfg, t->tob);
  const int64_t kk = g.kh * g.kw;
  if (b.depthwise) t->tib = 1;
  t->in_blocks = b.depthwise ? t->tob : t->tib;
  t->in_h = (t->th - 1) * g.sh + g.kh;
  t->in_w = (t->tw - 1) * g.sw + g.kw;
  t->inp_entries = t->in_blocks * t->in_h * t->in_w;
  t->wgt_entries = t->tob * t->tib * kk;
  t->acc_entries = t->tob * t->th * t->tw;
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
  // Distinct GEMM uop images: per (input half, accumulator half[, weight offset]).
  const int64_t weight_variants = t->weights_resident ? t->oc_tiles * t->ic_tiles : 1;
  t->uops = 4 * weight_variants * t->wgt_entries + 16;  // + the ALU kernels' uops
  if (t->uops > sp.uop_total) return too_big("uop scratchpad", t->uops, sp.uop_total);
  // Loop factors and extents must fit their instruction fields.
  const int acc_bits = cfg.acc_idx_bits, src_bits = std::max(cfg.inp_idx_bits, cfg.acc_idx_bits);
  if (t->th >= (int64_t{1} << 14) || t->tw >= (int64_t{1} << 14) || !FitsBits(t->tw, acc_bits) ||
      !FitsBits(g.sh * t->in_w, src_bits) || !FitsBits(g.sw, src_bits) || !FitsBits(t->th * t->tw, acc_bits))
    return ResourceExhaustedError("convolution ({}): tile {}x{} overflows a loop field", g.ToString(), t->th, t->tw);
  // DMA: padding fields are 4 bits; rows and pitches 16 bits.
  const int64_t pb = std::max<int64_t>(0, (g.oh - 1) * g.sh + g.kh - g.pt - g.ih);
  const int64_t pr = std::max<int64_t>(0, (g.ow - 1) * g.sw + g.kw - g.pl - g.iw);
  if (g.pt > 15 || g.pl > 15 || pb > 15 || pr > 15)
    return UnimplementedError("convolution ({}): padding above 15 does not fit the DMA padding fields", g.ToString());
  if (g.iw > 65535 || g.ow > 65535 || b.ibpo * kk > 65535)
    return UnimplementedError("convolution ({}): a row pitch above 65535 elements", g.ToString());

  // Cost model: contract timings of each tile's instructions, then the
  // load/compute/store pipeline recurrence over the tiles in program order.
  const int64_t P = cfg.alu_pipeline_depth, G = cfg.gemm_pipeline_depth;
  std::vector<int64_t> c_end(t->tiles + 1, 0), gemm_end(t->tiles + 1, 0);
  int64_t l_end = 0, c_prev = 0, s_end_prev = 0, s_end_prev2 = 0, gemm_total = 0;
  if (t->weights_resident)
    l_end = DmaLoadCycles(cfg, 1, b.ocb * b.ibpo * kk * cfg.wgt_tile_bytes, 0);  // all weights, once
  int64_t idx = 0;
  for (int64_t n = 0; n < b.nb; ++n)
    for (int64_t ot = 0; ot < t->oc_tiles; ++ot) {
      const int64_t tob = std::min(t->tob, b.ocb - ot * t->tob);
      c_prev += DmaLoadCycles(cfg, 2, tob * cfg.acc_tile_bytes, 0);  // this oc tile's parameter rows
      for (int64_t ht = 0; ht < t->h_tiles; ++ht) {
        const int64_t th = std::min(t->th, g.oh - ht * t->th);
        for (int64_t wt = 0; wt < t->w_tiles; ++wt) {
          const int64_t tw = std::min(t->tw, g.ow - wt * t->tw);
          const int64_t pixels = th * tw;
          int64_t out_ready = 0;
          for (int64_t it = 0; it < t->ic_tiles; ++it, ++idx) {
            const int64_t tib = std::min(t->tib, b.ibpo - it * t->tib);
            const int64_t in_blocks = b.depthwise ? tob : tib;
            const int64_t rows = (th - 1) * g.sh + g.kh, cols = (tw - 1) * g.sw + g.kw;
            int64_t load = in_blocks * DmaLoadCycles(cfg, rows, cols * cfg.inp_tile_bytes, 0);
            if (!t->weights_resident) load += DmaLoadCycles(cfg, tob, tib * kk * cfg.wgt_tile_bytes, 0);
            const int64_t slot_free = idx >= 2 ? gemm_end[idx - 2] : 0;
            l_end = std::max(l_end, slot_free) + load;
            int64_t start = std::max(c_prev, l_end);
            int64_t compute = 0;
            if (it == 0) {
              start = std::max(start, s_end_prev2);  // accumulator half released by the store two tiles back
              compute += tob * pixels + tob + P;     // MOV bias rows into the tile
            }
            const int64_t gemm = tob * tib * kk * pixels;
            gemm_total += gemm;
            gemm_end[idx] = start + compute + gemm + G;
            compute += gemm + G;
            if (it == t->ic_tiles - 1) compute += (tob * pixels + tob + P) + 2 * (tob * pixels + P);  // requantize
            c_end[idx] = start + compute;
            c_prev = c_end[idx];
            out_ready = c_end[idx];
          }
          const int64_t store = tob * DmaStoreCycles(cfg, th, tw * cfg.out_tile_bytes, pixels);
          s_end_prev2 = s_end_prev;
          s_end_prev = std::max(s_end_prev, out_ready) + store;
        }
      }
    }
  t->predicted_cycles = s_end_prev + 1 + FetchStartupCycles(cfg);
  t->predicted_gemm_cycles = gemm_total;
  return OkStatus();
}

StatusOr<ConvTiling> PlanConv(const HwConfig& cfg, const ConvGeometry& g) {
  TSR_ASSIGN_OR_RETURN(ConvBlocking b, BlockConv(cfg, g));
  ConvTiling best;
  bool found = false;
  Status last = ResourceExhaustedError("convolution ({}): no tiling fits the scratchpads", g.ToString());
  const std::vector<int64_t> tobs = Candidates(b.ocb, 64),
                             tibs = b.depthwise ? std::vector<int64_t>{1} : Candidates(b.ibpo, 64);
  const std::vector<int64_t> tws = Candidates(g.ow, 16384);
  for (int64_t tob : tobs)
    for (int64_t tib : tibs)
      for (int64_t tw : tws) {
        const ScratchpadSplit sp = SplitScratchpads(cfg, tob);
        // The tallest tile that fits the input and accumulator halves, and a
        // shorter one that balances the last tile.
        const int64_t in_blocks = b.depthwise ? tob : tib;
        const int64_t in_w = (tw - 1) * g.sw + g.kw;
        if (in_blocks * g.kh * in_w > sp.inp_half || tob * tw > sp.acc_half) continue;
        int64_t th_max =
            std::min({g.oh, sp.acc_half / (tob * tw), ((sp.inp_half / (in_blocks * in_w)) - g.kh) / g.sh + 1});
        if (th_max < 1) continue;
        const int64_t h_tiles = CeilDiv(g.oh, th_max);
        for (int64_t th : {th_max, CeilDiv(g.oh, h_tiles)}) {
          ConvTiling t;
          t.tob = tob, t.tib = tib, t.th = th, t.tw = tw;
          Status s = CheckConvTiling(cfg, g, b, &t);
          if (!s.ok()) {
            last = s;
            continue;
          }
          if (!found || t.predicted_cycles < best.predicted_cycles) best = t, found = true;
        }
      }
  if (!found) return last;
  return best;
}

}  // namespace tessera::backend
