// ConvGeom from a node and the im2col GEMM panel packer (conv_geom.h).
#include "compiler/exec/conv_geom.h"

namespace tessera::exec {

ConvGeom ReadGeom(const ir::Node& node) {
  const ir::Shape& x = node.input(0)->type().shape;
  const ir::Shape& w = node.input(1)->type().shape;
  const ir::Shape& o = node.output()->type().shape;
  const auto s = node.attrs().Ints("strides", {1, 1}), p = node.attrs().Ints("pads", {0, 0, 0, 0}),
             d = node.attrs().Ints("dilations", {1, 1});
  return ConvGeom{x[0], x[1], x[2], x[3], o[1], w[2], w[3], o[2],
                  o[3], s[0], s[1], p[0], p[1], d[0], d[1], node.attrs().Int("group", 1)};
}

void ConvPacker::Pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) const {
  const ConvGeom& g = g_;
  const int64_t khw = g.kh * g.kw, nr = nr_;
  for (int64_t r = 0; r < kc; ++r) {
    const int64_t k = k0 + r, c = k / khw, i = (k % khw) / g.kw, j = k % g.kw;
    const float* xc = x_ + c * g.h * g.w;
    const int64_t off = j * g.dw - g.pl;
    // Output columns whose input column is inside [0, W).
    int64_t ow0 = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
    int64_t ow1 = g.w - off <= 0 ? 0 : (g.w - off + g.sw - 1) / g.sw;
    ow0 = std::min(ow0, g.ow);
    ow1 = std::clamp(ow1, ow0, g.ow);
    int64_t oh = j0 / g.ow, ow = j0 % g.ow;
    for (int64_t q = 0; q < nc; q += nr) {
      float* dst = out + (q / nr) * kc * nr + r * nr;
      int64_t t = 0;
      while (t < nr) {
        const int64_t left = nc - q - t;
        if (left <= 0) {
          std::fill(dst + t, dst + nr, 0.f);
          break;
        }
        // A run of columns within one output row.
        const int64_t len = std::min({nr - t, g.ow - ow, left});
        const int64_t ih = oh * g.sh - g.pt + i * g.dh;
        if (ih < 0 || ih >= g.h) {
          std::fill(dst + t, dst + t + len, 0.f);
        } else {
          const int64_t a = std::clamp(ow0, ow, ow + len), b = std::clamp(ow1, a, ow + len);
          const float* src = xc + ih * g.w + off;
          std::fill(dst + t, dst + t + (a - ow), 0.f);
          float* d = dst + t + (a - ow);
          if (g.sw == 1) {
            std::copy(src + a, src + b, d);
          } else {
            for (int64_t x = a; x < b; ++x) d[x - a] = src[x * g.sw];
          }
          std::fill(dst + t + (b - ow), dst + t + len, 0.f);
        }
        t += len;
        ow += len;
        if (ow == g.ow) {
          ow = 0;
          ++oh;
        }
      }
    }
  }
}

}  // namespace tessera::exec
