// fp32 convolution kernels: conv (im2col + GEMM per group, weights packed
// once when constant; depthwise convs run a direct loop) and conv_transpose
// (GEMM, then a scatter of the columns). The integer convs are in
// qconv_kernels.cc.
#include <algorithm>

#include "compiler/exec/conv_geom.h"
#include "compiler/exec/gemm.h"
#include "compiler/exec/kernel.h"
#include "compiler/exec/scratch.h"

namespace tessera::exec {
namespace {

using ir::Tensor;

// Float convolution of one image: out[M][P] = conv(x[C][H][W], w[M][K]);
// `packed` holds the weights pre-packed per group (constant weights).
void FloatConv(const float* x, const float* w, const std::vector<PackedA>& packed, const ConvGeom& g, float* out) {
  if (g.depthwise()) {
    Depthwise<float, float>(x, 0.f, w, g, out);
    return;
  }
  const int64_t K = g.k(), P = g.p(), Mg = g.mg(), Cg = g.cg();
  const bool direct = !packed.empty() && !g.pointwise();  // im2col packed straight into panels
  float* col = g.pointwise() || direct ? nullptr : ScratchAs<float>(0, K * P);
  for (int64_t grp = 0; grp < g.group; ++grp) {
    const float* xg = x + grp * Cg * g.h * g.w;
    if (direct) {
      SgemmPacked(packed[grp], P, ConvPacker(xg, g), out + grp * Mg * P, P);
      continue;
    }
    const float* b = xg;
    if (col) {
      Im2Col(xg, Cg, g, 0.f, col);
      b = col;
    }
    if (!packed.empty())
      SgemmPacked(packed[grp], P, b, P, out + grp * Mg * P, P, false);
    else
      Sgemm(Mg, P, K, w + grp * Mg * K, K, b, P, out + grp * Mg * P, P, false);
  }
}

StatusOr<KernelFn> MakeConv(const ir::Node& node) {
  const ConvGeom g = ReadGeom(node);
  float lo, hi;
  ReadAct(node, &lo, &hi);
  auto packed = std::make_shared<std::vector<PackedA>>();
  if (node.input(1)->is_constant() && !g.depthwise()) {
    const float* w = node.input(1)->data().data<float>();
    for (int64_t grp = 0; grp < g.group; ++grp)
      packed->push_back(PackAForSgemm(w + grp * g.mg() * g.k(), g.k(), g.mg(), g.k()));
  }
  return KernelFn([g, lo, hi, packed](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    const float* w = in[1]->data<float>();
    float* y = out[0].data<float>();
    const int64_t P = g.p();
    for (int64_t n = 0; n < g.n; ++n) {
      float* yn = y + n * g.m * P;
      FloatConv(x + n * g.c * g.h * g.w, w, *packed, g, yn);
      for (int64_t m = 0; m < g.m; ++m) {
        const float b = in.size() > 2 ? in[2]->data<float>()[m] : 0.f;
        float* r = yn + m * P;
        for (int64_t p = 0; p < P; ++p) r[p] = std::min(std::max(r[p] + b, lo), hi);
      }
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeConvTranspose(const ir::Node& node) {
  const ir::Shape& x = node.input(0)->type().shape;
  const ir::Shape& w = node.input(1)->type().shape;
  const ir::Shape& o = node.output()->type().shape;
  const auto s = node.attrs().Ints("strides", {1, 1}), p = node.attrs().Ints("pads", {0, 0, 0, 0}),
             d = node.attrs().Ints("dilations", {1, 1});
  const int64_t group = node.attrs().Int("group", 1);
  float lo, hi;
  ReadAct(node, &lo, &hi);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int64_t C = x[1], H = x[2], W = x[3], Cg = C / group, Mg = w[1], kh = w[2], kw = w[3];
    const int64_t M = o[1], OH = o[2], OW = o[3], HW = H * W, R = Mg * kh * kw;
    // A[r][c] = w[grp * Cg + c][r] for one group.
    std::vector<float> a(R * Cg);
    float* col = ScratchAs<float>(0, R * HW);
    float* y = out[0].data<float>();
    std::fill(y, y + out[0].numel(), 0.f);  // scattered into
    for (int64_t n = 0; n < x[0]; ++n) {
      for (int64_t grp = 0; grp < group; ++grp) {
        const float* wg = in[1]->data<float>() + grp * Cg * R;
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t r = 0; r < R; ++r) a[r * Cg + c] = wg[c * R + r];
        Sgemm(R, HW, Cg, a.data(), Cg, in[0]->data<float>() + (n * C + grp * Cg) * HW, HW, col, HW, false);
        for (int64_t m = 0; m < Mg; ++m) {
          float* ym = y + (n * M + grp * Mg + m) * OH * OW;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const float* cr = col + ((m * kh + i) * kw + j) * HW;
              for (int64_t ih = 0; ih < H; ++ih) {
                const int64_t oh = ih * s[0] - p[0] + i * d[0];
                if (oh < 0 || oh >= OH) continue;
                for (int64_t iw = 0; iw < W; ++iw) {
                  const int64_t ow = iw * s[1] - p[1] + j * d[1];
                  if (ow >= 0 && ow < OW) ym[oh * OW + ow] += cr[ih * W + iw];
                }
              }
            }
        }
      }
      for (int64_t m = 0; m < M; ++m) {
        const float b = in.size() > 2 ? in[2]->data<float>()[m] : 0.f;
        float* r = y + (n * M + m) * OH * OW;
        for (int64_t q = 0; q < OH * OW; ++q) r[q] = std::min(std::max(r[q] + b, lo), hi);
      }
    }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindConvKernel(const std::string& op) {
  if (op == "conv") return MakeConv;
  if (op == "conv_transpose") return MakeConvTranspose;
  return nullptr;
}

}  // namespace tessera::exec
