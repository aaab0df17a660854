// Convolution kernels: conv and conv_transpose (fp32), qconv (int8 golden
// model: exact int32 accumulation, then alu::Requantize per element),
// qlinear_conv and conv_integer (ONNX zero-point semantics). Grouped convs
// run as one im2col + GEMM per group; depthwise convs run a direct loop.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/exec/gemm.h"
#include "compiler/exec/igemm_s8.h"
#include "compiler/exec/kernel.h"
#include "compiler/exec/scratch.h"
#include "isa/alu.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Tensor;

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

ConvGeom ReadGeom(const ir::Node& node) {
  const ir::Shape& x = node.input(0)->type().shape;
  const ir::Shape& w = node.input(1)->type().shape;
  const ir::Shape& o = node.output()->type().shape;
  const auto s = node.attrs().Ints("strides", {1, 1}), p = node.attrs().Ints("pads", {0, 0, 0, 0}),
             d = node.attrs().Ints("dilations", {1, 1});
  return ConvGeom{x[0], x[1], x[2], x[3], o[1], w[2], w[3], o[2],
                  o[3], s[0], s[1], p[0], p[1], d[0], d[1], node.attrs().Int("group", 1)};
}

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
  void Pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) const override {
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

// Integer convolution of one image: acc[M][P] = sum (x - xz) * wf, where wf
// holds the (already zero-point shifted) weights as floats.
template <typename T>
void IntConv(const T* x, int64_t xz, const float* wf, const ConvGeom& g, int32_t* acc) {
  const int64_t K = g.k(), P = g.p(), Mg = g.mg(), Cg = g.cg();
  if (g.depthwise()) {
    std::vector<int32_t> wi(g.c * g.kh * g.kw);
    for (size_t i = 0; i < wi.size(); ++i) wi[i] = static_cast<int32_t>(wf[i]);
    Depthwise<int32_t, T>(x, static_cast<int32_t>(xz), wi.data(), g, acc);
    return;
  }
  float* col = ScratchAs<float>(0, K * P);
  for (int64_t grp = 0; grp < g.group; ++grp) {
    Im2Col(x + grp * Cg * g.h * g.w, Cg, g, static_cast<float>(xz), col);
    IgemmExact(Mg, P, K, wf + grp * Mg * K, K, col, P, acc + grp * Mg * P, P, false);
  }
}

// Weights as floats, minus a per-output-channel zero point.
std::vector<float> ShiftedWeights(const Tensor& w, const std::vector<int64_t>& zp) {
  std::vector<float> out(w.numel());
  ToFloat(w, out.data());
  const int64_t per = w.numel() / w.dim(0);
  for (int64_t m = 0; m < w.dim(0); ++m) {
    const float z = static_cast<float>(zp.size() == 1 ? zp[0] : zp[m]);
    for (int64_t i = 0; i < per; ++i) out[m * per + i] -= z;
  }
  return out;
}

// Float weights: precomputed once for constants.
struct WeightCache {
  std::vector<float> data;
  bool constant = false;
  std::vector<int64_t> zp{0};
  void Init(const ir::Node& node, int input, std::vector<int64_t> zero_points) {
    zp = std::move(zero_points);
    constant = node.input(input)->is_constant();
    if (constant) data = ShiftedWeights(node.input(input)->data(), zp);
  }
  const float* Get(const Tensor& w, std::vector<float>& tmp) const {
    if (constant) return data.data();
    tmp = ShiftedWeights(w, zp);
    return tmp.data();
  }
};

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

// Packed int8 weights per group, built once for constant weights.
struct S8Cache {
  std::vector<PackedS8> groups;
  std::vector<int32_t> depthwise;  // depthwise convs run the direct loop
  bool constant = false;
  void Build(const Tensor& w, const ConvGeom& g) {
    groups.clear();
    depthwise.clear();
    const int8_t* p = w.data<int8_t>();
    if (g.depthwise()) {
      depthwise.assign(p, p + w.numel());
      return;
    }
    for (int64_t grp = 0; grp < g.group; ++grp) groups.push_back(PackS8(p + grp * g.mg() * g.k(), g.mg(), g.k()));
  }
};

// qconv: acc = int32 sum of (x - zx) * w (exact; padding counts as zx, i.e.
// contributes 0); then per element
// y = MIN(MAX(ADD(MULSHR(ADD(acc, bias[m]), M[m], shift), zy), act_min), act_max) via alu::RequantizeZp.
// Like the accelerator, GEMM-based groups pad with zx, sum w * x and fold
// -zx * sum_k w[m][k] into the bias (the same integers modulo 2^32; the
// verifier's reduction bound keeps the true sum in int32).
StatusOr<KernelFn> MakeQConv(const ir::Node& node) {
  const ConvGeom g = ReadGeom(node);
  const Requant rq = ReadRequant(node);
  const int64_t zx = node.input(0)->type().quant->zero_point.empty() ? 0 : node.input(0)->type().quant->zero_point[0];
  auto cache = std::make_shared<S8Cache>();
  if (node.input(1)->is_constant()) {
    cache->Build(node.input(1)->data(), g);
    cache->constant = true;
  }
  return KernelFn([g, rq, zx, cache](const Operands& in, std::vector<Tensor>& out) -> Status {
    S8Cache local;
    const S8Cache* w = cache.get();
    if (!cache->constant) {
      local.Build(*in[1], g);
      w = &local;
    }
    const int64_t P = g.p(), K = g.k(), Mg = g.mg(), Cg = g.cg();
    int32_t* acc = ScratchAs<int32_t>(2, g.m * P);
    int8_t* col = g.pointwise() || g.depthwise() ? nullptr : ScratchAs<int8_t>(0, K * P);
    const int32_t* bias = in.size() > 2 ? in[2]->data<int32_t>() : nullptr;
    // Effective bias: bias[m] - zx * sum_k w[m][k] where the GEMM sums w * x.
    std::vector<int64_t> beff(g.m);
    for (int64_t m = 0; m < g.m; ++m) {
      const int64_t b = bias ? bias[m] : 0;
      beff[m] = g.depthwise() ? b : alu::Wrap(b - zx * w->groups[m / Mg].rowsum[m % Mg], 32);
    }
    for (int64_t n = 0; n < g.n; ++n) {
      const int8_t* xn = in[0]->data<int8_t>() + n * g.c * g.h * g.w;
      if (g.depthwise()) {
        Depthwise<int32_t, int8_t>(xn, static_cast<int32_t>(zx), w->depthwise.data(), g, acc);
      } else {
        for (int64_t grp = 0; grp < g.group; ++grp) {
          const int8_t* xg = xn + grp * Cg * g.h * g.w;
          if (col) Im2Col<int8_t, int8_t>(xg, Cg, g, 0, col, static_cast<int8_t>(zx));
          GemmS8(w->groups[grp], col ? col : xg, P, acc + grp * Mg * P, P);
        }
      }
      int8_t* y = out[0].data<int8_t>() + n * g.m * P;
      const int shift = rq.shift;
      const int64_t lo = rq.lo, hi = rq.hi, zy = rq.zero_point;  // locals: int8 stores may alias captured state
      for (int64_t m = 0; m < g.m; ++m) RequantizeRun(acc + m * P, P, beff[m], rq.M(m), shift, lo, hi, y + m * P, zy);
    }
    return OkStatus();
  });
}

std::vector<int64_t> ZeroPoints(const ir::TensorType& t) {
  std::vector<int64_t> z;
  if (t.quant)
    for (int32_t v : t.quant->zero_point) z.push_back(v);
  if (z.empty()) z.push_back(0);
  return z;
}

template <typename T>
const T* Data(const Tensor& t) {
  return t.data<T>();
}

// Integer conv of any int8/uint8 input with a zero point, dispatching on dtype.
void AnyIntConv(const Tensor& x, int64_t n, int64_t xz, const float* wf, const ConvGeom& g, int32_t* acc) {
  const int64_t off = n * g.c * g.h * g.w;
  if (x.dtype() == DType::kU8)
    IntConv(x.data<uint8_t>() + off, xz, wf, g, acc);
  else
    IntConv(x.data<int8_t>() + off, xz, wf, g, acc);
}

// ONNX QLinearConv: y = saturate(round_half_even(acc * (sx * sw[m] / sy)) + zy),
// acc = sum (x - zx)(w - zw[m]) + bias[m]; multiplier computed in float as ONNX Runtime does.
StatusOr<KernelFn> MakeQLinearConv(const ir::Node& node) {
  const ConvGeom g = ReadGeom(node);
  const ir::QuantParams xq = *node.input(0)->type().quant, wq = *node.input(1)->type().quant,
                        yq = *node.output()->type().quant;
  auto wc = std::make_shared<WeightCache>();
  wc->Init(node, 1, ZeroPoints(node.input(1)->type()));
  std::vector<float> scale(g.m);
  for (int64_t m = 0; m < g.m; ++m) scale[m] = xq.scale[0] * wq.scale[wq.per_axis() ? m : 0] / yq.scale[0];
  const DType ot = node.output()->type().dtype;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<float> tmp;
    const float* wf = wc->Get(*in[1], tmp);
    const int64_t P = g.p();
    int32_t* acc = ScratchAs<int32_t>(2, g.m * P);
    const int64_t lo = ir::DTypeMin(ot), hi = ir::DTypeMax(ot);
    for (int64_t n = 0; n < g.n; ++n) {
      AnyIntConv(*in[0], n, xq.zero_point[0], wf, g, acc);
      for (int64_t m = 0; m < g.m; ++m) {
        const int32_t b = in.size() > 2 ? in[2]->data<int32_t>()[m] : 0;
        for (int64_t p = 0; p < P; ++p) {
          const float v = std::nearbyint(static_cast<float>(acc[m * P + p] + b) * scale[m]);
          const int64_t q =
              std::clamp<int64_t>(static_cast<int64_t>(std::clamp(v, -1e9f, 1e9f)) + yq.zero_point[0], lo, hi);
          const int64_t idx = (n * g.m + m) * P + p;
          if (ot == DType::kU8)
            out[0].data<uint8_t>()[idx] = static_cast<uint8_t>(q);
          else
            out[0].data<int8_t>()[idx] = static_cast<int8_t>(q);
        }
      }
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeConvInteger(const ir::Node& node) {
  const ConvGeom g = ReadGeom(node);
  const int64_t xz = node.attrs().Int("x_zero_point", 0);
  auto wc = std::make_shared<WeightCache>();
  wc->Init(node, 1, node.attrs().Ints("w_zero_point", {0}));
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<float> tmp;
    const float* wf = wc->Get(*in[1], tmp);
    for (int64_t n = 0; n < g.n; ++n) AnyIntConv(*in[0], n, xz, wf, g, out[0].data<int32_t>() + n * g.m * g.p());
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindConvKernel(const std::string& op) {
  if (op == "conv") return MakeConv;
  if (op == "conv_transpose") return MakeConvTranspose;
  if (op == "qconv") return MakeQConv;
  if (op == "qlinear_conv") return MakeQLinearConv;
  if (op == "conv_integer") return MakeConvInteger;
  return nullptr;
}

}  // namespace tessera::exec
