// Integer convolution kernels: qconv (the int8 golden model: exact int32
// accumulation, then alu::Requantize per element), qlinear_conv and
// conv_integer (ONNX zero-point semantics). Grouped convs run as one im2col +
// GEMM per group; depthwise convs run a direct loop (conv_geom.h).
#include <algorithm>
#include <cmath>

#include "compiler/exec/conv_geom.h"
#include "compiler/exec/igemm_s8.h"
#include "compiler/exec/kernel.h"
#include "compiler/exec/scratch.h"
#include "isa/alu.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Tensor;

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

KernelFactory FindQuantConvKernel(const std::string& op) {
  if (op == "qconv") return MakeQConv;
  if (op == "qlinear_conv") return MakeQLinearConv;
  if (op == "conv_integer") return MakeConvInteger;
  return nullptr;
}

}  // namespace tessera::exec
