// Elementwise kernels: binary arithmetic with numpy broadcasting (float and
// raw integers; integers wrap, division truncates), activations, softmax and
// inference batch normalization.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;

enum class BinOp { kAdd, kSub, kMul, kDiv };

// Calls f(out_index, a_index, b_index) for every output element.
template <typename F>
void ForEachBroadcast(const Shape& as, const Shape& bs, const Shape& os, F f) {
  const int r = static_cast<int>(os.size());
  if (r == 0) {
    f(0, 0, 0);
    return;
  }
  std::vector<int64_t> sa(r, 0), sb(r, 0);
  int64_t ma = 1, mb = 1;
  for (int d = r - 1; d >= 0; --d) {
    const int da = d - (r - static_cast<int>(as.size())), db = d - (r - static_cast<int>(bs.size()));
    const int64_t ea = da >= 0 ? as[da] : 1, eb = db >= 0 ? bs[db] : 1;
    sa[d] = ea == 1 ? 0 : ma;
    sb[d] = eb == 1 ? 0 : mb;
    ma *= ea;
    mb *= eb;
  }
  const int64_t inner = os[r - 1], outer = ir::NumElements(os) / std::max<int64_t>(inner, 1);
  if (inner == 0) return;
  std::vector<int64_t> idx(r, 0);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t ao = 0, bo = 0;
    for (int d = 0; d < r - 1; ++d) {
      ao += idx[d] * sa[d];
      bo += idx[d] * sb[d];
    }
    const int64_t base = o * inner;
    for (int64_t i = 0; i < inner; ++i) f(base + i, ao + i * sa[r - 1], bo + i * sb[r - 1]);
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename T>
Status Binary(BinOp op, const Tensor& a, const Tensor& b, Tensor& y, float lo, float hi) {
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  if constexpr (std::is_same_v<T, float>) {
    if (a.shape() == b.shape()) {  // fast path
      for (int64_t i = 0; i < y.numel(); ++i) {
        float v = op == BinOp::kAdd   ? pa[i] + pb[i]
                  : op == BinOp::kSub ? pa[i] - pb[i]
                  : op == BinOp::kMul ? pa[i] * pb[i]
                                      : pa[i] / pb[i];
        py[i] = std::min(std::max(v, lo), hi);
      }
      return OkStatus();
    }
    ForEachBroadcast(a.shape(), b.shape(), y.shape(), [&](int64_t o, int64_t i, int64_t j) {
      float v = op == BinOp::kAdd   ? pa[i] + pb[j]
                : op == BinOp::kSub ? pa[i] - pb[j]
                : op == BinOp::kMul ? pa[i] * pb[j]
                                    : pa[i] / pb[j];
      py[o] = std::min(std::max(v, lo), hi);
    });
    return OkStatus();
  } else {
    using U = std::make_unsigned_t<T>;
    bool div_zero = false;
    ForEachBroadcast(a.shape(), b.shape(), y.shape(), [&](int64_t o, int64_t i, int64_t j) {
      const U x = static_cast<U>(pa[i]), z = static_cast<U>(pb[j]);
      switch (op) {
        case BinOp::kAdd: py[o] = static_cast<T>(static_cast<U>(x + z)); break;
        case BinOp::kSub: py[o] = static_cast<T>(static_cast<U>(x - z)); break;
        case BinOp::kMul: py[o] = static_cast<T>(static_cast<U>(x * z)); break;
        case BinOp::kDiv:
          if (pb[j] == 0 || (std::is_signed_v<T> && pa[i] == std::numeric_limits<T>::min() && pb[j] == T(-1))) {
            div_zero = true;
            py[o] = 0;
          } else {
            py[o] = static_cast<T>(pa[i] / pb[j]);
          }
          break;
      }
      if (lo > -INFINITY || hi < INFINITY)
        py[o] = static_cast<T>(std::clamp<double>(py[o], std::ceil(lo), std::floor(hi)));
    });
    if (div_zero) return InvalidArgumentError("integer division by zero or overflow");
    return OkStatus();
  }
}

StatusOr<KernelFn> MakeBinary(const ir::Node& node) {
  const BinOp op = node.op() == "add"   ? BinOp::kAdd
                   : node.op() == "sub" ? BinOp::kSub
                   : node.op() == "mul" ? BinOp::kMul
                                        : BinOp::kDiv;
  float lo, hi;
  ReadAct(node, &lo, &hi);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    Status s;
    switch (in[0]->dtype()) {
      case DType::kF32: s = Binary<float>(op, *in[0], *in[1], out[0], lo, hi); break;
      case DType::kI8: s = Binary<int8_t>(op, *in[0], *in[1], out[0], lo, hi); break;
      case DType::kU8: s = Binary<uint8_t>(op, *in[0], *in[1], out[0], lo, hi); break;
      case DType::kI32: s = Binary<int32_t>(op, *in[0], *in[1], out[0], lo, hi); break;
      case DType::kI64: s = Binary<int64_t>(op, *in[0], *in[1], out[0], lo, hi); break;
    }
    return s;
  });
}

template <typename T>
void ClampAll(const Tensor& x, Tensor& y, double lo, double hi) {
  const T* px = x.data<T>();
  T* py = y.data<T>();
  if constexpr (std::is_same_v<T, float>) {
    const float l = static_cast<float>(lo), h = static_cast<float>(hi);
    for (int64_t i = 0; i < x.numel(); ++i) py[i] = std::min(std::max(px[i], l), h);
  } else {
    const T l = static_cast<T>(std::max<double>(std::ceil(lo), std::numeric_limits<T>::lowest()));
    const T h = static_cast<T>(std::min<double>(std::floor(hi), std::numeric_limits<T>::max()));
    for (int64_t i = 0; i < x.numel(); ++i) py[i] = std::min(std::max(px[i], l), h);
  }
}

// relu and clip on any unquantized type.
StatusOr<KernelFn> MakeClamp(const ir::Node& node) {
  const bool relu = node.op() == "relu";
  const double lo = relu ? 0.0 : node.attrs().Float("min", -INFINITY);
  const double hi = relu ? INFINITY : node.attrs().Float("max", INFINITY);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    switch (in[0]->dtype()) {
      case DType::kF32: ClampAll<float>(*in[0], out[0], lo, hi); break;
      case DType::kI8: ClampAll<int8_t>(*in[0], out[0], lo, hi); break;
      case DType::kU8: ClampAll<uint8_t>(*in[0], out[0], lo, hi); break;
      case DType::kI32: ClampAll<int32_t>(*in[0], out[0], lo, hi); break;
      case DType::kI64: ClampAll<int64_t>(*in[0], out[0], lo, hi); break;
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeUnary(const ir::Node& node) {
  const std::string op = node.op();
  const float alpha = node.attrs().Float("alpha", 0.01f);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    float* y = out[0].data<float>();
    const int64_t n = in[0]->numel();
    if (op == "sigmoid") {
      for (int64_t i = 0; i < n; ++i) y[i] = 1.f / (1.f + std::exp(-x[i]));
    } else if (op == "tanh") {
      for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? alpha * x[i] : x[i];
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeSoftmax(const ir::Node& node) {
  const Shape s = node.input(0)->type().shape;
  int64_t axis = node.attrs().Int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t len = s[axis];
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    float* y = out[0].data<float>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * len * inner + i;
        float mx = -INFINITY;
        for (int64_t k = 0; k < len; ++k) mx = std::max(mx, x[base + k * inner]);
        double sum = 0;
        for (int64_t k = 0; k < len; ++k) {
          y[base + k * inner] = std::exp(x[base + k * inner] - mx);
          sum += y[base + k * inner];
        }
        const float inv = static_cast<float>(1.0 / sum);
        for (int64_t k = 0; k < len; ++k) y[base + k * inner] *= inv;
      }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeBatchNorm(const ir::Node& node) {
  const Shape s = node.input(0)->type().shape;
  const float eps = node.attrs().Float("epsilon", 1e-5f);
  const int64_t c = s[1], inner = ir::NumElements(s) / (s[0] * c);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float *x = in[0]->data<float>(), *g = in[1]->data<float>(), *b = in[2]->data<float>(),
                *mean = in[3]->data<float>(), *var = in[4]->data<float>();
    float* y = out[0].data<float>();
    for (int64_t n = 0; n < s[0]; ++n)
      for (int64_t ch = 0; ch < c; ++ch) {
        const float a = g[ch] / std::sqrt(var[ch] + eps), sh = b[ch] - mean[ch] * a;
        const int64_t base = (n * c + ch) * inner;
        for (int64_t i = 0; i < inner; ++i) y[base + i] = x[base + i] * a + sh;
      }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindElementwiseKernel(const std::string& op) {
  if (op == "add" || op == "sub" || op == "mul" || op == "div") return MakeBinary;
  if (op == "relu" || op == "clip") return MakeClamp;
  if (op == "sigmoid" || op == "tanh" || op == "leaky_relu") return MakeUnary;
  if (op == "softmax") return MakeSoftmax;
  if (op == "batch_norm") return MakeBatchNorm;
  return nullptr;
}

}  // namespace tessera::exec
