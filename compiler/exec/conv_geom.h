// The geometry and inner loops the convolution kernels share (fp32 in
// conv_kernels.cc, integer in qconv_kernels.cc): ConvGeom read from a node,
// im2col into a matrix or straight into GEMM panels, and the direct
// depthwise loop.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "compiler/exec/gemm.h"
#include "compiler/exec/scratch.h"
#include "compiler/ir/graph.h"

namespace tessera::exec {

struct ConvGeom {
  int64_t n, c, h, w, m, kh, kw, oh, ow, sh, sw, pt, pl, dh, dw, group;
  int64_t cg() const { return c / group; }
  int64_t mg() const { return m / group; }
  int64_t k() const { return cg() * kh * kw; }
  int64_t p() const { return oh * ow; }
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && oh == h && ow == w;
  }
  bool depthwise() const { return cg() == 1 && mg() == 1; }
};

ConvGeom ReadGeom(const ir::Node& node);

// col[(c * kh + i) * kw + j][oh * OW + ow] = x[c][ih][iw] - zp (`fill` outside).
// Geometry is copied into locals: int8 stores may alias anything, and the
// compiler would otherwise reload it every element.
template <typename T, typename Out = float>
void Im2Col(const T* x, int64_t channels, const ConvGeom& geom, Out zp, Out* col, Out fill = Out{0}) {
  const int64_t P = geom.p(), H = geom.h, W = geom.w, OH = geom.oh, OW = geom.ow, KH = geom.kh, KW = geom.kw;
  const int64_t SH = geom.sh, SW = geom.sw, PT = geom.pt, PL = geom.pl, DH = geom.dh, DW = geom.dw;
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * H * W;
    for (int64_t i = 0; i < KH; ++i) {
      for (int64_t j = 0; j < KW; ++j) {
        Out* row = col + ((c * KH + i) * KW + j) * P;
        // Output columns whose input column is inside [0, W).
        const int64_t off = j * DW - PL;
        int64_t ow0 = off >= 0 ? 0 : (-off + SW - 1) / SW;
        int64_t ow1 = W - off <= 0 ? 0 : (W - off + SW - 1) / SW;
        ow0 = std::min(ow0, OW);
        ow1 = std::clamp(ow1, ow0, OW);
        for (int64_t oh = 0; oh < OH; ++oh) {
          Out* __restrict r = row + oh * OW;
          const int64_t ih = oh * SH - PT + i * DH;
          if (ih < 0 || ih >= H) {
            std::fill(r, r + OW, fill);
            continue;
          }
          const T* __restrict src = xc + ih * W + off;
          std::fill(r, r + ow0, fill);
          if constexpr (std::is_same_v<T, Out>) {
            if (SW == 1 && zp == Out{0}) {  // short rows: memcpy beats a vectorized loop's tail
              std::memcpy(r + ow0, src + ow0, (ow1 - ow0) * sizeof(Out));
              std::fill(r + ow1, r + OW, fill);
              continue;
            }
          }
          if (SW == 1) {
            for (int64_t ow = ow0; ow < ow1; ++ow) r[ow] = static_cast<Out>(static_cast<Out>(src[ow]) - zp);
          } else {
            for (int64_t ow = ow0; ow < ow1; ++ow) r[ow] = static_cast<Out>(static_cast<Out>(src[ow * SW]) - zp);
          }
          std::fill(r + ow1, r + OW, fill);
        }
      }
    }
  }
}

// im2col of one group of one image packed straight into GEMM panels: row k
// = (c, i, j) of the virtual im2col matrix, column p = oh * OW + ow.
class ConvPacker : public BPacker {
 public:
  ConvPacker(const float* x, const ConvGeom& g) : x_(x), g_(g), nr_(GemmPanelWidth()) {}
  void Pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) const override;

 private:
  const float* x_;
  const ConvGeom& g_;
  int64_t nr_;
};

// Direct depthwise loop over a zero-padded copy: out[c][oh][ow] = sum w * (x - zp).
template <typename Acc, typename T>
void Depthwise(const T* x, Acc zp, const Acc* w, const ConvGeom& g, Acc* out) {
  const int64_t ph = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1, pw = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  Acc* pad = ScratchAs<Acc>(1, ph * pw);
  for (int64_t c = 0; c < g.c; ++c) {
    std::fill(pad, pad + ph * pw, Acc{0});
    for (int64_t ih = 0; ih < g.h; ++ih) {
      const int64_t y = ih + g.pt;
      if (y >= ph) break;
      for (int64_t iw = 0; iw < g.w && iw + g.pl < pw; ++iw)
        pad[y * pw + iw + g.pl] = static_cast<Acc>(x[(c * g.h + ih) * g.w + iw]) - zp;
    }
    const Acc* wc = w + c * g.kh * g.kw;
    Acc* oc = out + c * g.p();
    std::fill(oc, oc + g.p(), Acc{0});
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      Acc* orow = oc + oh * g.ow;
      for (int64_t i = 0; i < g.kh; ++i) {
        const Acc* prow = pad + (oh * g.sh + i * g.dh) * pw;
        for (int64_t j = 0; j < g.kw; ++j) {
          const Acc wv = wc[i * g.kw + j];
          const Acc* src = prow + j * g.dw;
          if (g.sw == 1) {
            for (int64_t ow = 0; ow < g.ow; ++ow) orow[ow] += wv * src[ow];
          } else {
            for (int64_t ow = 0; ow < g.ow; ++ow) orow[ow] += wv * src[ow * g.sw];
          }
        }
      }
    }
  }
}

}  // namespace tessera::exec
