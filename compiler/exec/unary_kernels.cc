// Unary elementwise kernels: relu/clip and neg/abs/sign on any numeric type,
// the float functions and activations (one table), is_nan/is_inf, logical
// not and cast between element types.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Tensor;

struct Params {
  float alpha = 0, beta = 0, gamma = 0;
  bool tanh_gelu = false;
};

using FloatFn = float (*)(float x, const Params& p);

float Softplus(float x) { return x > 20.f ? x : std::log1p(std::exp(x)); }

// The float functions; Params carry the op's attributes with ONNX defaults.
const std::pair<const char*, FloatFn> kFloatFns[] = {
    {"sigmoid", [](float x, const Params&) { return 1.f / (1.f + std::exp(-x)); }},
    {"tanh", [](float x, const Params&) { return std::tanh(x); }},
    {"erf", [](float x, const Params&) { return std::erf(x); }},
    {"exp", [](float x, const Params&) { return std::exp(x); }},
    {"log", [](float x, const Params&) { return std::log(x); }},
    {"sqrt", [](float x, const Params&) { return std::sqrt(x); }},
    {"reciprocal", [](float x, const Params&) { return 1.f / x; }},
    {"ceil", [](float x, const Params&) { return std::ceil(x); }},
    {"floor", [](float x, const Params&) { return std::floor(x); }},
    {"round", [](float x, const Params&) { return std::nearbyint(x); }},
    {"sin", [](float x, const Params&) { return std::sin(x); }},
    {"cos", [](float x, const Params&) { return std::cos(x); }},
    {"tan", [](float x, const Params&) { return std::tan(x); }},
    {"asin", [](float x, const Params&) { return std::asin(x); }},
    {"acos", [](float x, const Params&) { return std::acos(x); }},
    {"atan", [](float x, const Params&) { return std::atan(x); }},
    {"sinh", [](float x, const Params&) { return std::sinh(x); }},
    {"cosh", [](float x, const Params&) { return std::cosh(x); }},
    {"asinh", [](float x, const Params&) { return std::asinh(x); }},
    {"acosh", [](float x, const Params&) { return std::acosh(x); }},
    {"atanh", [](float x, const Params&) { return std::atanh(x); }},
    {"softplus", [](float x, const Params&) { return Softplus(x); }},
    {"softsign", [](float x, const Params&) { return x / (1.f + std::fabs(x)); }},
    {"hard_swish", [](float x, const Params&) { return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f)); }},
    {"mish", [](float x, const Params&) { return x * std::tanh(Softplus(x)); }},
    {"hard_sigmoid", [](float x, const Params& p) { return std::max(0.f, std::min(1.f, p.alpha * x + p.beta)); }},
    {"leaky_relu", [](float x, const Params& p) { return x < 0 ? p.alpha * x : x; }},
    {"elu", [](float x, const Params& p) { return x < 0 ? p.alpha * (std::exp(x) - 1.f) : x; }},
    {"celu", [](float x,
                const Params& p) { return std::max(0.f, x) + std::min(0.f, p.alpha * (std::exp(x / p.alpha) - 1.f)); }},
    {"selu", [](float x, const Params& p) { return p.gamma * (x <= 0 ? p.alpha * (std::exp(x) - 1.f) : x); }},
    {"thresholded_relu", [](float x, const Params& p) { return x > p.alpha ? x : 0.f; }},
    {"shrink", [](float x, const Params& p) { return x < -p.gamma  ? x + p.beta
                                                     : x > p.gamma ? x - p.beta
                                                                   : 0.f; }},
    {"gelu",
     [](float x, const Params& p) {
       if (p.tanh_gelu) return 0.5f * x * (1.f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
       return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
     }},
};

FloatFn FindFloatFn(const std::string& op) {
  for (const auto& [name, fn] : kFloatFns)
    if (op == name) return fn;
  return nullptr;
}

StatusOr<KernelFn> MakeFloatUnary(const ir::Node& node) {
  const FloatFn fn = FindFloatFn(node.op());
  const ir::Attrs& a = node.attrs();
  const std::string& op = node.op();
  Params p;
  if (op == "hard_sigmoid") p.alpha = a.Float("alpha", 0.2f), p.beta = a.Float("beta", 0.5f);
  if (op == "leaky_relu") p.alpha = a.Float("alpha", 0.01f);
  if (op == "elu" || op == "celu") p.alpha = a.Float("alpha", 1.f);
  if (op == "thresholded_relu") p.alpha = a.Float("alpha", 1.f);
  if (op == "selu")
    p.alpha = a.Float("alpha", 1.67326319217681884765625f), p.gamma = a.Float("gamma", 1.05070102214813232421875f);
  if (op == "shrink") p.beta = a.Float("bias", 0.f), p.gamma = a.Float("lambd", 0.5f);
  p.tanh_gelu = a.Str("approximate", "none") == "tanh";
  return KernelFn([fn, p](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    float* y = out[0].data<float>();
    for (int64_t i = 0; i < in[0]->numel(); ++i) y[i] = fn(x[i], p);
    return OkStatus();
  });
}

// relu, clip, neg, abs, sign on any numeric type (integers: neg wraps).
StatusOr<KernelFn> MakeNumericUnary(const ir::Node& node) {
  const std::string op = node.op();
  const double lo = op == "relu" ? 0.0 : node.attrs().Float("min", -INFINITY);
  const double hi = op == "relu" ? INFINITY : node.attrs().Float("max", INFINITY);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    VisitDType(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* x = in[0]->data<T>();
        T* y = out[0].data<T>();
        const int64_t n = in[0]->numel();
        if (op == "relu" || op == "clip") {
          T l, h;
          if constexpr (std::is_same_v<T, float>) {
            l = static_cast<float>(lo), h = static_cast<float>(hi);
          } else {
            l = static_cast<T>(std::max<double>(std::ceil(lo), std::numeric_limits<T>::lowest()));
            h = static_cast<T>(std::min<double>(std::floor(hi), std::numeric_limits<T>::max()));
          }
          for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], l), h);
        } else if (op == "neg") {
          for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(T(0) - x[i]);
        } else if (op == "abs") {
          for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0 ? static_cast<T>(T(0) - x[i]) : x[i];
        } else {
          for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((x[i] > 0) - (x[i] < 0));
        }
      }
    });
    return OkStatus();
  });
}

StatusOr<KernelFn> MakePredicate(const ir::Node& node) {
  const bool nan = node.op() == "is_nan";
  const bool neg = node.attrs().Int("detect_negative", 1) != 0, pos = node.attrs().Int("detect_positive", 1) != 0;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    bool* y = out[0].data<bool>();
    for (int64_t i = 0; i < in[0]->numel(); ++i)
      y[i] = nan ? std::isnan(x[i]) : std::isinf(x[i]) && ((x[i] > 0 && pos) || (x[i] < 0 && neg));
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeNot(const ir::Node&) {
  return KernelFn([](const Operands& in, std::vector<Tensor>& out) -> Status {
    for (int64_t i = 0; i < in[0]->numel(); ++i) out[0].data<bool>()[i] = !in[0]->data<bool>()[i];
    return OkStatus();
  });
}

// Converts one value; float to integer truncates toward zero and saturates
// (NaN becomes 0), integer to narrower integer wraps.
template <typename To, typename From>
To Convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<From, float> && !std::is_same_v<To, float>) {
    if (std::isnan(v)) return 0;
    const double t = std::trunc(static_cast<double>(v));
    return static_cast<To>(std::clamp<double>(t, static_cast<double>(std::numeric_limits<To>::lowest()),
                                              static_cast<double>(std::numeric_limits<To>::max())));
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return static_cast<To>(static_cast<std::make_unsigned_t<To>>(static_cast<int64_t>(v)));
  } else {
    return static_cast<To>(v);
  }
}

StatusOr<KernelFn> MakeCast(const ir::Node& node) {
  const DType to = node.output()->type().dtype;
  return KernelFn([to](const Operands& in, std::vector<Tensor>& out) -> Status {
    VisitDType(in[0]->dtype(), [&](auto from_tag) {
      using F = decltype(from_tag);
      VisitDType(to, [&](auto to_tag) {
        using T = decltype(to_tag);
        const F* x = in[0]->data<F>();
        T* y = out[0].data<T>();
        for (int64_t i = 0; i < in[0]->numel(); ++i) y[i] = Convert<T, F>(x[i]);
      });
    });
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindUnaryKernel(const std::string& op) {
  if (FindFloatFn(op)) return MakeFloatUnary;
  if (op == "relu" || op == "clip" || op == "neg" || op == "abs" || op == "sign") return MakeNumericUnary;
  if (op == "is_nan" || op == "is_inf") return MakePredicate;
  if (op == "not") return MakeNot;
  if (op == "cast") return MakeCast;
  return nullptr;
}

}  // namespace tessera::exec
