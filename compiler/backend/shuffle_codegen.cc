#include "compiler/backend/shuffle_codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "isa/config.h"
#include "sim/timing.h"

namespace tessera::backend {
namespace {

// The tile positions [q0, q0 + n) whose pixel (q * s + r) lies in [lo, lo + len): [*b, *e).
void PhaseRange(int64_t q0, int64_t n, int64_t s, int64_t r, int64_t lo, int64_t len, int64_t* b, int64_t* e) {
  *b = n, *e = 0;
  for (int64_t q = 0; q < n; ++q)
    if (const int64_t v = (q0 + q) * s + r; v >= lo && v < lo + len) *b = std::min(*b, q), *e = q + 1;
}

// One axis of a shuffled tile: conv positions [q0, q0 + n), stride s, crop
// `crop`, result extent `out`: the window [y0, y0 + h) and, per phase r of
// the axis, its positions [i0, i1) in the window and the first one's offset.
struct Axis {
  int64_t n = 0, y0 = 0, h = 0;
  std::vector<int64_t> i0, i1, off;
  // What the tile's kernels depend on (not where the window is).
  std::vector<int64_t> Key() const {
    std::vector<int64_t> k = {n, h};
    for (size_t r = 0; r < i0.size(); ++r) k.insert(k.end(), {i0[r], i1[r], off[r]});
    return k;
  }
};
Axis AxisOf(int64_t q0, int64_t n, int64_t s, int64_t crop, int64_t out) {
  Axis a;
  a.n = n;
  a.y0 = std::max<int64_t>(0, q0 * s - crop);
  a.h = std::min(out, (q0 + n) * s - crop) - a.y0;
  for (int64_t r = 0; r < s; ++r) {
    int64_t b = 0, e = 0;
    PhaseRange(q0, n, s, r - crop, a.y0, a.h, &b, &e);
    a.i0.push_back(b), a.i1.push_back(e), a.off.push_back((q0 + b) * s + r - crop - a.y0);
  }
  return a;
}

ShuffledTile TileOfAxes(const PixelShuffle& s, const Axis& rows, const Axis& cols) {
  ShuffledTile t;
  t.window = ShuffleWindow{rows.y0, rows.h, cols.y0, cols.h};
  for (int64_t p = 0; p < s.phases(); ++p) {
    const size_t r = static_cast<size_t>(p / s.sw), c = static_cast<size_t>(p % s.sw);
    const PhaseSpan sp{rows.i0[r], rows.i1[r], cols.i0[c], cols.i1[c], rows.off[r] * cols.h + cols.off[c]};
    t.whole = t.whole && sp.i0 == 0 && sp.i1 == rows.n && sp.j0 == 0 && sp.j1 == cols.n;
    t.spans.push_back(sp);
  }
  return t;
}

// The distinct axes of a layer's tiles along one axis (n conv positions in tiles of `tile`).
std::vector<Axis> DistinctAxes(int64_t n, int64_t tile, int64_t s, int64_t crop, int64_t out) {
  std::set<std::vector<int64_t>> seen;
  std::vector<Axis> v;
  for (int64_t q0 = 0; q0 < n; q0 += tile)
    if (Axis a = AxisOf(q0, std::min(tile, n - q0), s, crop, out); seen.insert(a.Key()).second) v.push_back(a);
  return v;
}

}  // namespace

ShuffledTile ShuffleTileOf(const PixelShuffle& s, int64_t oh0, int64_t th, int64_t ow0, int64_t tw) {
  return TileOfAxes(s, AxisOf(oh0, th, s.sh, s.crop_h, s.oh), AxisOf(ow0, tw, s.sw, s.crop_w, s.ow));
}

std::vector<PhaseGemm> PhaseGemms(const ShuffledTile& st, int64_t th, int64_t tw) {
  if (st.whole) return {PhaseGemm{-1, PhaseSpan{0, th, 0, tw, 0}}};
  std::vector<PhaseGemm> v;
  for (size_t p = 0; p < st.spans.size(); ++p)
    if (!st.spans[p].empty()) v.push_back(PhaseGemm{static_cast<int64_t>(p), st.spans[p]});
  return v;
}

int64_t ShuffleUops(const ConvTiling& t, int64_t oh, int64_t ow, int64_t gemm_uops) {
  const PixelShuffle& s = t.shuffle;
  int64_t uops = 0;
  for (const Axis& rows : DistinctAxes(oh, t.th, s.sh, s.crop_h, s.oh))
    for (const Axis& cols : DistinctAxes(ow, t.tw, s.sw, s.crop_w, s.ow)) {
      uops += gemm_uops;  // split over the phase GEMMs
      for (const PhaseSpan& sp : TileOfAxes(s, rows, cols).spans)
        uops += sp.empty() ? 0 : 2 * 2 * (sp.i1 - sp.i0);  // bias and scale, per accumulator half
    }
  return uops + 2;  // the clamp, per accumulator half
}

ShuffleTileCost ShuffleTileCostOf(const HwConfig& cfg, const PixelShuffle& s, const ShuffledTile& st, int64_t tob,
                                  int64_t th, int64_t tw, const std::vector<int64_t>& phase_taps) {
  ShuffleTileCost c;
  const int64_t phases = s.phases(), blocks = tob / phases;
  for (const PhaseGemm& pg : PhaseGemms(st, th, tw)) {
    int64_t taps = 0;
    for (int64_t p = 0; p < phases; ++p) taps += pg.phase < 0 || pg.phase == p ? phase_taps[static_cast<size_t>(p)] : 0;
    if (taps == 0) continue;
    const int64_t it = taps * pg.span.pixels();
    c.gemm_iterations += it, c.gemm_cycles += timing::GemmCycles(cfg, it);
    c.gemm_uops.push_back(taps);
  }
  for (const PhaseSpan& sp : st.spans) {
    if (sp.empty()) continue;
    const std::vector<int64_t> src(static_cast<size_t>(sp.i1 - sp.i0), 0);  // one parameter row per block
    for (const auto& [op, cycles] :
         {std::pair{AluOp::kMov, &c.param_cycles}, std::pair{AluOp::kMulShr, &c.scale_cycles}})
      *cycles += timing::AluCycles(
          cfg, timing::AluLoopCycles(cfg, op, true, blocks, sp.j1 - sp.j0, src.data(), sp.i1 - sp.i0, 1, 0));
    c.param_uops.push_back(sp.i1 - sp.i0);
  }
  const int64_t none = 0;
  c.clamp_cycles = timing::AluCycles(
      cfg, timing::AluLoopCycles(cfg, AluOp::kMax, false, blocks, st.window.h * st.window.w, &none, 1, 0, 0));
  return c;
}

StatusOr<std::vector<Kernel>> ShuffleCodegen::GemmKernels(const ConvTile& x, const TileRows& r) {
  const ConvGeometry& g = c_.geo;
  const PixelShuffle& s = c_.tiling.shuffle;
  const int64_t kk = g.kh * g.kw, phases = Phases();
  const ShuffledTile st = TileOf(x);
  const ShuffleWindow& w = st.window;
  std::vector<Kernel> ks;
  for (const PhaseGemm& pg : PhaseGemms(st, x.th, x.tw)) {
    const int64_t p = pg.phase;
    const PhaseSpan& sp = pg.span;
    std::vector<int64_t> taps;
    for (int64_t u : x.ic->taps)
      if (st.whole || u / (x.tib * kk) % phases == p) taps.push_back(u);
    if (taps.empty()) continue;
    const std::string key = fmt::format("gemm {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", p, x.tob, x.tib, x.slot,
                                        x.aslot, x.ob0, x.j0, x.in_w, x.in_h, sp.i0, sp.i1, sp.j0, sp.j1, sp.dst, w.h,
                                        w.w);  // the window's shape, not its area
    TSR_ASSIGN_OR_RETURN(Kernel k, kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kGemm, c_.name + " gemm");
      kb.Outer(sp.i1 - sp.i0, s.sh * w.w, g.sh * x.in_w, 0).Inner(sp.j1 - sp.j0, s.sw, g.sw, 0);
      for (int64_t u : taps) {
        const int64_t o = u / (x.tib * kk), j = u / kk % x.tib, i = u % kk / g.kw, k = u % g.kw;
        const int64_t wgt =
            c_.tiling.weights_resident ? ((x.ob0 + o) * c_.blocks.ibpo + x.j0 + j) * kk + i * g.kw + k : r.wgt + u;
        kb.Uop(r.acc + o / phases * w.h * w.w + (st.whole ? st.spans[static_cast<size_t>(o % phases)].dst : sp.dst),
               r.inp + j * x.in_h * x.in_w + (sp.i0 * g.sh + i * g.dh) * x.in_w + sp.j0 * g.sw + k * g.dw, wgt);
      }
      return kb.Build();
    }));
    ks.push_back(k);
  }
  return ks;
}

StatusOr<std::vector<Kernel>> ShuffleCodegen::ParamKernels(const ConvTile& x, const char* what, int64_t src_row,
                                                           int64_t base) {
  const PixelShuffle& s = c_.tiling.shuffle;
  const ShuffledTile st = TileOf(x);
  const ShuffleWindow& w = st.window;
  std::vector<Kernel> ks;
  for (int64_t p = 0; p < Phases(); ++p) {
    const PhaseSpan& sp = st.spans[static_cast<size_t>(p)];
    if (sp.empty()) continue;
    const std::string key = fmt::format("alu {} {} {} {} {} {} {} {} {} {} {}", what, x.tob, base, src_row, p, sp.i0,
                                        sp.i1, sp.j1 - sp.j0, sp.dst, w.h, w.w);
    TSR_ASSIGN_OR_RETURN(Kernel k, kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " " + what);
      kb.Outer(x.tob / Phases(), w.h * w.w, Phases()).Inner(sp.j1 - sp.j0, s.sw, 0);
      for (int64_t i = sp.i0; i < sp.i1; ++i) kb.Uop(base + sp.dst + (i - sp.i0) * s.sh * w.w, src_row + p);
      return kb.Build();
    }));
    ks.push_back(k);
  }
  return ks;
}

int64_t ShuffleCodegen::Pixels(const ConvTile& x) const {
  const ShuffleWindow w = TileOf(x).window;
  return w.h * w.w;
}

Status ShuffleCodegen::Store(Stream& s, const ConvTile& x, int64_t acc) const {
  const ShuffleWindow w = TileOf(x).window;
  const ActView& out = c_.out;
  Dma2D d;
  d.y_size = w.h, d.x_size = w.w, d.x_stride = out.stride_h;
  for (int64_t b = 0; b < Blocks(x); ++b) {
    const int64_t elem =
        out.base + x.n * out.stride_n + (x.ob0 / Phases() + b) * out.stride_c + w.y0 * out.stride_h + w.x0;
    TSR_RETURN_IF_ERROR(s.Store(acc + b * w.h * w.w, out.slot, elem, d).WithContext(c_.name));
  }
  return OkStatus();
}

}  // namespace tessera::backend
