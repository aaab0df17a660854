// Pooling kernels: max_pool / global_max_pool (float, and int8/uint8 raw or
// quantized: max commutes with any per-tensor affine map), avg_pool /
// global_avg_pool (float), qavg_pool (int8 golden model).
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/exec/kernel.h"
#include "compiler/exec/scratch.h"
#include "isa/alu.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Tensor;

struct PoolGeom {
  int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
};

PoolGeom ReadPool(const ir::Node& node) {
  const ir::Shape& x = node.input(0)->type().shape;
  const ir::Shape& o = node.output()->type().shape;
  const auto k = node.attrs().Ints("kernel"), s = node.attrs().Ints("strides", {1, 1}),
             p = node.attrs().Ints("pads", {0, 0, 0, 0}), d = node.attrs().Ints("dilations", {1, 1});
  return PoolGeom{x[0], x[1], x[2], x[3], o[2], o[3], k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], d[0], d[1]};
}

// Padding never participates: the result is the max over in-bounds elements
// (the same as padding with the type's lowest value).
template <typename T>
void MaxPool(const PoolGeom& geom, const T* x, T* y) {
  // Locals: int8 stores may alias the geometry otherwise.
  const int64_t NC = geom.n * geom.c, H = geom.h, W = geom.w, OH = geom.oh, OW = geom.ow, KH = geom.kh, KW = geom.kw;
  const int64_t SH = geom.sh, SW = geom.sw, PT = geom.pt, PL = geom.pl, DH = geom.dh, DW = geom.dw;
  T lowest = std::numeric_limits<T>::lowest();
  if constexpr (std::is_same_v<T, float>) lowest = -INFINITY;
  for (int64_t nc = 0; nc < NC; ++nc) {
    const T* xc = x + nc * H * W;
    T* yc = y + nc * OH * OW;
    if (DH == 1 && DW == 1) {
      // Separable: the max over the window's in-bounds rows for every column,
      // then over the window's in-bounds columns. Same result, vectorizable.
      T* colmax = ScratchAs<T>(0, W);
      for (int64_t oh = 0; oh < OH; ++oh) {
        const int64_t h0 = std::max<int64_t>(oh * SH - PT, 0), h1 = std::min(oh * SH - PT + KH, H);
        std::fill(colmax, colmax + W, lowest);
        for (int64_t ih = h0; ih < h1; ++ih) {
          const T* __restrict row = xc + ih * W;
          for (int64_t w = 0; w < W; ++w) colmax[w] = std::max(colmax[w], row[w]);
        }
        T* __restrict yr = yc + oh * OW;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t w0 = std::max<int64_t>(ow * SW - PL, 0), w1 = std::min(ow * SW - PL + KW, W);
          T m = lowest;
          for (int64_t w = w0; w < w1; ++w) m = std::max(m, colmax[w]);
          yr[ow] = m;
        }
      }
      continue;
    }
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        T m = lowest;
        const int64_t h0 = oh * SH - PT, w0 = ow * SW - PL;
        for (int64_t i = 0; i < KH; ++i) {
          const int64_t ih = h0 + i * DH;
          if (ih < 0 || ih >= H) continue;
          for (int64_t j = 0; j < KW; ++j) {
            const int64_t iw = w0 + j * DW;
            if (iw >= 0 && iw < W) m = std::max(m, xc[ih * W + iw]);
          }
        }
        yc[oh * OW + ow] = m;
      }
  }
}

StatusOr<KernelFn> MakeMaxPool(const ir::Node& node) {
  const PoolGeom g = ReadPool(node);
  return KernelFn([g](const Operands& in, std::vector<Tensor>& out) -> Status {
    switch (in[0]->dtype()) {
      case DType::kF32: MaxPool(g, in[0]->data<float>(), out[0].data<float>()); break;
      case DType::kI8: MaxPool(g, in[0]->data<int8_t>(), out[0].data<int8_t>()); break;
      case DType::kU8: MaxPool(g, in[0]->data<uint8_t>(), out[0].data<uint8_t>()); break;
      default: return InternalError("max_pool on {}", ir::DTypeName(in[0]->dtype()));
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeAvgPool(const ir::Node& node) {
  const PoolGeom g = ReadPool(node);
  const bool include_pad = node.attrs().Int("count_include_pad", 0) != 0;
  return KernelFn([g, include_pad](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    float* y = out[0].data<float>();
    for (int64_t nc = 0; nc < g.n * g.c; ++nc) {
      const float* xc = x + nc * g.h * g.w;
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
          const int64_t h1 = std::min(h0 + g.kh, g.h + g.pb), w1 = std::min(w0 + g.kw, g.w + g.pr);
          float sum = 0;
          for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h1, g.h); ++ih)
            for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w1, g.w); ++iw) sum += xc[ih * g.w + iw];
          const int64_t count = include_pad ? (h1 - h0) * (w1 - w0)
                                            : (std::min(h1, g.h) - std::max<int64_t>(h0, 0)) *
                                                  (std::min(w1, g.w) - std::max<int64_t>(w0, 0));
          y[(nc * g.oh + oh) * g.ow + ow] = count > 0 ? sum / static_cast<float>(count) : 0.f;
        }
    }
    return OkStatus();
  });
}

template <typename T>
void GlobalMax(const T* x, int64_t rows, int64_t len, T* y) {
  for (int64_t r = 0; r < rows; ++r) y[r] = *std::max_element(x + r * len, x + (r + 1) * len);
}

StatusOr<KernelFn> MakeGlobalPool(const ir::Node& node) {
  const ir::Shape& s = node.input(0)->type().shape;
  const int64_t rows = s[0] * s[1], len = ir::NumElements(s) / std::max<int64_t>(rows, 1);
  const bool avg = node.op() == "global_avg_pool";
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    if (len == 0) {  // no spatial elements: define the result as 0
      std::fill(out[0].raw(), out[0].raw() + out[0].nbytes(), uint8_t{0});
      return OkStatus();
    }
    if (avg) {
      const float* x = in[0]->data<float>();
      for (int64_t r = 0; r < rows; ++r) {
        float sum = 0;
        for (int64_t i = 0; i < len; ++i) sum += x[r * len + i];
        out[0].data<float>()[r] = sum / static_cast<float>(len);
      }
      return OkStatus();
    }
    switch (in[0]->dtype()) {
      case DType::kF32: GlobalMax(in[0]->data<float>(), rows, len, out[0].data<float>()); break;
      case DType::kI8: GlobalMax(in[0]->data<int8_t>(), rows, len, out[0].data<int8_t>()); break;
      case DType::kU8: GlobalMax(in[0]->data<uint8_t>(), rows, len, out[0].data<uint8_t>()); break;
      default: return InternalError("global_max_pool on {}", ir::DTypeName(in[0]->dtype()));
    }
    return OkStatus();
  });
}

// qavg_pool: acc = sum of the window (padding contributes 0) via ADD;
// y = MIN(MAX(MULSHR(acc, multiplier, shift), act_min), act_max).
StatusOr<KernelFn> MakeQAvgPool(const ir::Node& node) {
  const PoolGeom g = ReadPool(node);
  const Requant rq = ReadRequant(node);
  return KernelFn([g, rq](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int8_t* x = in[0]->data<int8_t>();
    int8_t* y = out[0].data<int8_t>();
    for (int64_t nc = 0; nc < g.n * g.c; ++nc) {
      const int8_t* xc = x + nc * g.h * g.w;
      for (int64_t oh = 0; oh < g.oh; ++oh)
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          int64_t acc = 0;
          for (int64_t i = 0; i < g.kh; ++i) {
            const int64_t ih = oh * g.sh - g.pt + i;
            if (ih < 0 || ih >= g.h) continue;
            for (int64_t j = 0; j < g.kw; ++j) {
              const int64_t iw = ow * g.sw - g.pl + j;
              if (iw >= 0 && iw < g.w) acc = alu::Apply(AluOp::kAdd, acc, xc[ih * g.w + iw], 0, 32);
            }
          }
          y[(nc * g.oh + oh) * g.ow + ow] =
              static_cast<int8_t>(alu::Requantize(acc, 0, rq.M(0), rq.shift, rq.lo, rq.hi, 32));
        }
    }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindPoolKernel(const std::string& op) {
  if (op == "max_pool") return MakeMaxPool;
  if (op == "avg_pool") return MakeAvgPool;
  if (op == "global_avg_pool" || op == "global_max_pool") return MakeGlobalPool;
  if (op == "qavg_pool") return MakeQAvgPool;
  return nullptr;
}

}  // namespace tessera::exec
