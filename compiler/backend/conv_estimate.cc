#include "compiler/backend/conv_estimate.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "compiler/backend/conv_plan.h"
#include "compiler/backend/conv_pool.h"
#include "compiler/backend/shuffle_codegen.h"
#include "compiler/backend/weight_tiles.h"
#include "isa/config.h"
#include "sim/timing.h"

namespace tessera::backend {
namespace {

// DMA durations by shape, each computed once per estimate.
class DmaCosts {
 public:
  explicit DmaCosts(const HwConfig& cfg) : cfg_(cfg) {}
  // LOAD of `rows` rows of `row_bytes`, `pitch` apart, after `padding` entries.
  int64_t Load(int64_t rows, int64_t row_bytes, int64_t pitch, int64_t padding) {
    return Get(false, rows, row_bytes, pitch, padding);
  }
  // STORE of `rows` full data rows.
  int64_t Store(int64_t rows, int64_t row_bytes, int64_t pitch, int64_t cols) {
    return Get(true, rows, row_bytes, pitch, cols);
  }

 private:
  int64_t Get(bool write, int64_t rows, int64_t row_bytes, int64_t pitch, int64_t extra) {
    const auto key = std::make_tuple(write, rows, row_bytes, pitch, extra);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    timing::DmaShape d;
    d.write = write;
    d.pitch = static_cast<uint64_t>(pitch);
    d.row_bytes = static_cast<uint64_t>(row_bytes);
    d.rows = row_bytes > 0 ? rows : 0;
    if (write) {
      d.data_rows = rows, d.data_cols = extra;
    } else {
      d.padding = extra;
    }
    const int64_t c = timing::DmaAlone(cfg_, d).cycles;
    memo_.emplace(key, c);
    return c;
  }
  const HwConfig& cfg_;
  std::map<std::tuple<bool, int64_t, int64_t, int64_t, int64_t>, int64_t> memo_;
};

// How much of the window [start, start + len) lies inside [0, size).
int64_t Inside(int64_t start, int64_t len, int64_t size) {
  return std::max<int64_t>(0, std::min(size, start + len) - std::max<int64_t>(0, start));
}

}  // namespace

ConvEstimate EstimateConv(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b, const ConvTiling& t,
                          const ConvEpilogue& e, const std::vector<uint8_t>& nonzero) {
  DmaCosts dma(cfg);
  const int64_t kk = g.kh * g.kw;
  const int64_t E_in = cfg.inp_tile_bytes, E_w = cfg.wgt_tile_bytes, E_out = cfg.out_tile_bytes;
  const PixelShuffle& sh = t.shuffle;
  // Per spatial tile (ht, wt): output extent and the input window's inside
  // part; one input block's LOAD and one output block's STORE.
  struct Span {
    int64_t out, in, inside;
  };
  auto spans = [](int64_t tiles, int64_t tile, int64_t o, int64_t s, int64_t k, int64_t pad, int64_t size) {
    std::vector<Span> v(static_cast<size_t>(tiles));
    for (int64_t i = 0; i < tiles; ++i) {
      Span& x = v[static_cast<size_t>(i)];
      x.out = std::min(tile, o - i * tile);
      x.in = (x.out - 1) * s + k;
      x.inside = Inside(i * tile * s - pad, x.in, size);
    }
    return v;
  };
  const std::vector<Span> hs = spans(t.h_tiles, t.th, g.oh, g.sh, g.ekh(), g.pt, g.ih);
  const std::vector<Span> ws = spans(t.w_tiles, t.tw, g.ow, g.sw, g.ekw(), g.pl, g.iw);
  std::vector<int64_t> load1(hs.size() * ws.size()), store1(hs.size() * ws.size());
  for (size_t h = 0; h < hs.size(); ++h)
    for (size_t w = 0; w < ws.size(); ++w) {
      load1[h * ws.size() + w] =
          dma.Load(hs[h].inside, ws[w].inside * E_in, g.iw * E_in, hs[h].in * ws[w].in - hs[h].inside * ws[w].inside);
      store1[h * ws.size() + w] = dma.Store(hs[h].out, ws[w].out * E_out, g.ow * E_out, ws[w].out);
      if (sh.phases() > 1) {  // one shuffled block: the tile's window of the result
        const int64_t vr = Inside(int64_t(h) * t.th * sh.sh - sh.crop_h, hs[h].out * sh.sh, sh.oh);
        const int64_t vc = Inside(int64_t(w) * t.tw * sh.sw - sh.crop_w, ws[w].out * sh.sw, sh.ow);
        store1[h * ws.size() + w] = dma.Store(vr, vc * E_out, sh.ow * E_out, vc);
      }
    }
  // A shuffled tile's layout (shuffle_codegen.h) and its class: tiles of one
  // class share their kernels.
  std::vector<ShuffledTile> shuffled;
  std::vector<int64_t> layout;
  if (sh.phases() > 1) {
    std::map<std::vector<int64_t>, int64_t> classes;
    for (size_t h = 0; h < hs.size(); ++h)
      for (size_t w = 0; w < ws.size(); ++w) {
        shuffled.push_back(ShuffleTileOf(sh, int64_t(h) * t.th, hs[h].out, int64_t(w) * t.tw, ws[w].out));
        const ShuffledTile& st = shuffled.back();
        std::vector<int64_t> key = {hs[h].out, ws[w].out, st.window.h, st.window.w};
        for (const PhaseSpan& sp : st.spans) key.insert(key.end(), {sp.i0, sp.i1, sp.j0, sp.j1, sp.dst});
        layout.push_back(classes.emplace(key, int64_t(classes.size())).first->second);
      }
  }
  std::set<std::vector<int64_t>> seen_shuffle;  // a shuffled layer's kernels (their class and halves)
  auto uop_loads = [&](std::vector<int64_t> key, const std::vector<int64_t>& uops) {
    int64_t c = 0;
    if (seen_shuffle.insert(std::move(key)).second)
      for (int64_t n : uops) c += dma.Load(1, n * kUopBytes, n * kUopBytes, 0);
    return c;
  };
  // Uop kernels are loaded by the compute module on first use. A GEMM kernel
  // is fixed by its oc/ic tile (their sizes; with resident weights, their
  // offsets), whether its spatial tile is an edge one, and the buffer halves;
  // an ALU kernel by its oc tile's size, the edges and the accumulator half.
  const bool res = t.weights_resident;
  const int64_t ot_keys = res ? t.oc_tiles : 2, it_keys = res ? t.ic_tiles : 2;
  std::vector<uint8_t> seen_gemm(static_cast<size_t>(ot_keys * it_keys * 16)), seen_alu(3 * 2 * 8),
      seen_w(static_cast<size_t>(res ? t.oc_tiles * t.ic_tiles : 0));
  auto first_use = [](std::vector<uint8_t>& seen, int64_t key) {
    const bool fresh = !seen[static_cast<size_t>(key)];
    seen[static_cast<size_t>(key)] = 1;
    return fresh;
  };
  const int64_t alu_uop = dma.Load(1, kUopBytes, kUopBytes, 0);
  // ALU `op` over a tile's accumulator rows: `vec` reads one parameter row per output block.
  auto alu = [&](int64_t tob, int64_t pixels, bool vec, AluOp op) {
    const int64_t src = 0;
    return timing::AluCycles(cfg, timing::AluLoopCycles(cfg, op, vec, tob, pixels, &src, 1, vec ? 1 : 0, 0));
  };

  // Each oc tile's ic tiles; without a mask they depend on its width only.
  std::map<int64_t, std::vector<IcTile>> dense_ics;
  std::vector<IcTile> sparse_ics;
  auto ic_tiles = [&](int64_t ob0, int64_t tob) -> const std::vector<IcTile>& {
    if (!nonzero.empty()) return sparse_ics = IcTilesOf(b, t, kk, nonzero, ob0);
    auto it = dense_ics.find(tob);
    if (it == dense_ics.end()) it = dense_ics.emplace(tob, IcTilesOf(b, t, kk, nonzero, ob0)).first;
    return it->second;
  };

  const int64_t t0 = timing::FirstStartCycle(cfg, 4 * t.tiles + 8);
  std::vector<int64_t> gemm_end(static_cast<size_t>(t.tiles) + 1, 0);
  int64_t l_end = t0, c_prev = t0, s_end = t0, s_end_prev = t0, gemm_total = 0, idx = 0, otile = 0;
  int64_t busy = 0;  // every instruction's own cycles: a serial core's (queues.serial) run one at a time
  for (int64_t n = 0; n < b.nb; ++n)
    for (int64_t ot = 0; ot < t.oc_tiles; ++ot) {
      const int64_t ob0 = ot * t.tob, tob = std::min(t.tob, b.ocb - ob0), ot_edge = tob != t.tob;
      const std::vector<IcTile>& ics = ic_tiles(ob0, tob);
      std::vector<int64_t> sparse_w(ics.size(), 0);  // a sparse ic tile's weight LOADs
      for (size_t ic = 0; ic < ics.size(); ++ic)
        if (!ics[ic].all)
          for (const WeightRun& r : WeightRuns(ics[ic], b, kk, ob0, res))
            sparse_w[ic] += dma.Load(1, r.n * E_w, r.n * E_w, 0);
      std::vector<std::vector<int64_t>> phase_taps(ics.size());  // with a shuffle: each ic tile's taps per phase
      for (size_t ic = 0; ic < ics.size() && sh.phases() > 1; ++ic) {
        phase_taps[ic].assign(static_cast<size_t>(sh.phases()), 0);
        for (int64_t u : ics[ic].taps) ++phase_taps[ic][static_cast<size_t>(u / (ics[ic].tib * kk) % sh.phases())];
      }
      const int64_t params = dma.Load(2, tob * cfg.acc_tile_bytes, b.ocb * cfg.acc_tile_bytes, 0);  // parameter rows
      c_prev += params, busy += params;
      for (size_t ht = 0; ht < hs.size(); ++ht) {
        const int64_t th = hs[ht].out, h_edge = th != t.th;
        for (size_t wt = 0; wt < ws.size(); ++wt, ++otile) {
          const int64_t tw = ws[wt].out, w_edge = tw != t.tw, pixels = th * tw, aslot = otile % 2;
          const int64_t alu_key = ((ot_edge * 2 + h_edge) * 2 + w_edge) * 2 + aslot;
          int64_t out_ready = 0;
          for (size_t ic = 0; ic < ics.size(); ++ic, ++idx) {
            const IcTile& xt = ics[ic];
            const int64_t it = xt.j0 / t.tib, tib = xt.tib, slot = idx % 2;
            const bool first = ic == 0, last = ic + 1 == ics.size();
            // Load: one LOAD per input block read (the part outside the image is padding), then the weights.
            int64_t load = xt.reads * load1[ht * ws.size() + wt];
            const bool weights = !res || first_use(seen_w, ot * t.ic_tiles + it);  // resident: each chunk once
            if (weights && !xt.all) {                                              // the non-zero weight tiles' runs
              load += sparse_w[ic];
            } else if (!res) {
              load += dma.Load(tob, tib * kk * E_w, b.ibpo * kk * E_w, 0);
            } else if (weights) {
              load += tib == b.ibpo ? dma.Load(1, tob * tib * kk * E_w, tob * tib * kk * E_w, 0)
                                    : tob * dma.Load(1, tib * kk * E_w, tib * kk * E_w, 0);
            }
            l_end = std::max(l_end, idx >= 2 ? gemm_end[static_cast<size_t>(idx - 2)] : 0) + load;
            busy += load;
            // Compute: uop loads before the first instruction that waits for a token run ahead of it.
            const int64_t gemm_uops = static_cast<int64_t>(xt.taps.size());
            const int64_t gemm_key =
                (((res ? ot : ot_edge) * it_keys + (res ? it : tib != t.tib)) * 4 + h_edge * 2 + w_edge) * 4 +
                slot * 2 + aslot;
            int64_t gemm_uop = 0, alu_uops = 0, bias = 0, gemm = 0;
            ShuffleTileCost sc;  // with a shuffle: its phase kernels
            if (sh.phases() > 1) {
              const int64_t cls = layout[ht * ws.size() + wt];
              sc = ShuffleTileCostOf(cfg, sh, shuffled[ht * ws.size() + wt], tob, th, tw, phase_taps[ic]);
              gemm_uop = uop_loads({0, cls, slot, aslot, res ? ot : ot_edge, res ? it : tib != t.tib}, sc.gemm_uops);
              alu_uops = first ? uop_loads({1, cls, aslot}, sc.param_uops) : 0;
              bias = sc.param_cycles, gemm = sc.gemm_iterations;
            } else {
              gemm_uop =
                  first_use(seen_gemm, gemm_key) ? dma.Load(1, gemm_uops * kUopBytes, gemm_uops * kUopBytes, 0) : 0;
              alu_uops = first && first_use(seen_alu, alu_key) ? alu_uop : 0;
              bias = alu(tob, pixels, true, AluOp::kMov), gemm = gemm_uops * pixels;
            }
            int64_t c = c_prev + (first ? alu_uops : gemm_uop);
            int64_t x = std::max({c, l_end, first && otile >= 2 ? s_end_prev : int64_t{0}});
            const int64_t x0 = x - (c - c_prev);  // (the uop load before the wait)
            if (first) x += bias + gemm_uop;      // bias rows into the tile
            gemm_total += gemm;
            x += sh.phases() > 1 ? sc.gemm_cycles : timing::GemmCycles(cfg, gemm);
            gemm_end[static_cast<size_t>(idx)] = x;
            if (last) {  // [pool,] scale, then clamp
              int64_t outs = pixels;
              if (t.max_pool) {
                PoolTile pt;
                pt.tob = tob, pt.th = th, pt.tw = tw, pt.out = tob * pixels;
                if (ht > 0) pt.carry = 0, pt.carry_th = t.th;
                x += PoolPassCycles(cfg, pt);
                outs /= 4;
              }
              if (sh.phases() > 1) {  // its phase kernels, then one clamp over its window's rows
                const int64_t cls = layout[ht * ws.size() + wt];
                x += uop_loads({2, cls, aslot}, sc.param_uops) + sc.scale_cycles;
                if (e.clamp_passes > 0) x += uop_loads({3, cls, aslot}, {1}) + e.clamp_passes * sc.clamp_cycles;
              } else {
                x += (first_use(seen_alu, 16 + alu_key) ? alu_uop : 0) + alu(tob, outs, true, AluOp::kMulShr);
                if (e.clamp_passes > 0)
                  x += (first_use(seen_alu, 32 + alu_key) ? alu_uop : 0) +
                       e.clamp_passes * alu(tob, outs, false, AluOp::kMax);
              }
              if (t.residual_add) {  // the residual's acc8 load; MULSHR both; ADD; SHR and clamp (or MULSHRC)
                const int64_t one_row = 0;
                x += tob * dma.Load(th, tw * E_in, g.ow * E_in, 0) + 2 * alu(tob, pixels, true, AluOp::kMulShr) +
                     timing::AluCycles(
                         cfg, timing::AluLoopCycles(cfg, AluOp::kAdd, true, tob, pixels, &one_row, 1, pixels, 1)) +
                     (e.residual_passes == 1
                          ? timing::AluCycles(cfg, timing::AluLoopCycles(cfg, AluOp::kMulShrClip, true, tob, pixels,
                                                                         &one_row, 1, 0, 0))
                          : e.residual_passes * alu(tob, pixels, false, AluOp::kShr));
              }
            }
            busy += x - x0;
            c_prev = out_ready = x;
          }
          s_end_prev = s_end;
          const int64_t store =
              tob / sh.phases() *
              (t.max_pool ? dma.Store(th / 2, tw / 2 * E_out, g.ow / 2 * E_out, tw / 2) : store1[ht * ws.size() + wt]);
          s_end = std::max(s_end, out_ready) + store;
          busy += store;
        }
      }
    }
  // The last store's token reaches compute (a no-op carries the pop), then FINISH.
  ConvEstimate est;
  est.cycles = (cfg.serial != 0 ? t0 + busy : s_end) + cfg.dma_setup_cycles + timing::kFinishCycles;
  est.gemm_cycles = gemm_total;
  return est;
}

}  // namespace tessera::backend
