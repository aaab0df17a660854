#include "compiler/backend/shuffle_codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "isa/config.h"

namespace tessera::backend {
namespace {

// The tile positions [q0, q0 + n) whose pixel (q * s + r) lies in [lo, lo + len): [*b, *e).
void PhaseRange(int64_t q0, int64_t n, int64_t s, int64_t r, int64_t lo, int64_t len, int64_t* b, int64_t* e) {
  *b = n, *e = 0;
  for (int64_t q = 0; q < n; ++q)
    if (const int64_t v = (q0 + q) * s + r; v >= lo && v < lo + len) *b = std::min(*b, q), *e = q + 1;
}

}  // namespace

ShuffledTile ShuffleTileOf(const PixelShuffle& s, int64_t oh0, int64_t th, int64_t ow0, int64_t tw) {
  ShuffledTile t;
  ShuffleWindow& w = t.window;
  w.y0 = std::max<int64_t>(0, oh0 * s.sh - s.crop_h);
  w.h = std::min(s.oh, (oh0 + th) * s.sh - s.crop_h) - w.y0;
  w.x0 = std::max<int64_t>(0, ow0 * s.sw - s.crop_w);
  w.w = std::min(s.ow, (ow0 + tw) * s.sw - s.crop_w) - w.x0;
  for (int64_t p = 0; p < s.phases(); ++p) {
    const int64_t rh = p / s.sw - s.crop_h, rw = p % s.sw - s.crop_w;
    PhaseSpan sp;
    PhaseRange(oh0, th, s.sh, rh, w.y0, w.h, &sp.i0, &sp.i1);
    PhaseRange(ow0, tw, s.sw, rw, w.x0, w.w, &sp.j0, &sp.j1);
    sp.dst = ((oh0 + sp.i0) * s.sh + rh - w.y0) * w.w + (ow0 + sp.j0) * s.sw + rw - w.x0;
    t.whole = t.whole && sp.i0 == 0 && sp.i1 == th && sp.j0 == 0 && sp.j1 == tw;
    t.spans.push_back(sp);
  }
  return t;
}

StatusOr<std::vector<Kernel>> ShuffleCodegen::GemmKernels(const ConvTile& x, const TileRows& r) {
  const ConvGeometry& g = c_.geo;
  const PixelShuffle& s = c_.tiling.shuffle;
  const int64_t kk = g.kh * g.kw, phases = Phases();
  const ShuffledTile st = TileOf(x);
  const ShuffleWindow& w = st.window;
  std::vector<Kernel> ks;
  for (int64_t p = st.whole ? -1 : 0; p < (st.whole ? 0 : phases); ++p) {
    const PhaseSpan sp = st.whole ? PhaseSpan{0, x.th, 0, x.tw, 0} : st.spans[static_cast<size_t>(p)];
    std::vector<int64_t> taps;
    for (int64_t u : x.ic->taps)
      if (st.whole || u / (x.tib * kk) % phases == p) taps.push_back(u);
    if (sp.empty() || taps.empty()) continue;
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
