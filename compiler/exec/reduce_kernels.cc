// Reduction kernels: reduce_* over any set of axes (float sums in double,
// integer sums in int64 with wrap-around to the element type), arg_max/
// arg_min, softmax/log_softmax/hardmax along an axis, cumsum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::Shape;
using ir::Tensor;

// Sizes around one axis: outer x len x inner.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
  AxisSplit(const Shape& s, int64_t axis) {
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    for (int64_t d = 0; d < axis; ++d) outer *= s[d];
    len = s[axis];
    for (size_t d = axis + 1; d < s.size(); ++d) inner *= s[d];
  }
};

StatusOr<KernelFn> MakeReduce(const ir::Node& node) {
  const std::string op = node.op().substr(7);  // after "reduce_"
  const Shape xs = node.input(0)->type().shape;
  const int r = static_cast<int>(xs.size());
  std::vector<bool> reduced(r);
  int64_t count = 1;
  for (int64_t a : node.attrs().Ints("axes")) {
    const int ax = static_cast<int>(a < 0 ? a + r : a);
    reduced[ax] = true;
    count *= xs[ax];
  }
  // Strides of the input elements in the (keepdims) output.
  std::vector<int64_t> ostride(r, 0);
  int64_t step = 1;
  for (int d = r - 1; d >= 0; --d)
    if (!reduced[d]) ostride[d] = step, step *= xs[d];
  const std::array<std::vector<int64_t>, 1> strides = {ostride};
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int64_t n = out[0].numel();
    VisitDType(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* x = in[0]->data<T>();
        T* y = out[0].data<T>();
        if (op == "max" || op == "min") {
          const bool mx = op == "max";
          std::vector<T> acc(n, mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
          if constexpr (std::is_same_v<T, float>) std::fill(acc.begin(), acc.end(), mx ? -INFINITY : INFINITY);
          ForEachBroadcast<1>(xs, strides, [&](int64_t i, const std::array<int64_t, 1>& o) {
            acc[o[0]] = mx ? std::max(acc[o[0]], x[i]) : std::min(acc[o[0]], x[i]);
          });
          std::copy(acc.begin(), acc.end(), y);
          return;
        }
        using Acc = std::conditional_t<std::is_same_v<T, float>, double, int64_t>;
        std::vector<double> shift(n, 0.0);
        if (op == "log_sum_exp") {  // subtract the maximum for stability
          std::fill(shift.begin(), shift.end(), -INFINITY);
          ForEachBroadcast<1>(xs, strides, [&](int64_t i, const std::array<int64_t, 1>& o) {
            shift[o[0]] = std::max(shift[o[0]], static_cast<double>(x[i]));
          });
          for (double& s : shift)
            if (!std::isfinite(s)) s = 0;
        }
        std::vector<Acc> acc(n, op == "prod" ? Acc(1) : Acc(0));
        ForEachBroadcast<1>(xs, strides, [&](int64_t i, const std::array<int64_t, 1>& o) {
          const Acc v = static_cast<Acc>(x[i]);
          Acc& a = acc[o[0]];
          if (op == "sum" || op == "mean" || op == "log_sum")
            a += v;
          else if (op == "prod")
            a *= v;
          else if (op == "l1")
            a += v < 0 ? -v : v;
          else if (op == "l2" || op == "sum_square")
            a += v * v;
          else  // log_sum_exp
            a += static_cast<Acc>(std::exp(static_cast<double>(x[i]) - shift[o[0]]));
        });
        for (int64_t k = 0; k < n; ++k) {
          double v = static_cast<double>(acc[k]);
          if (op == "mean") v /= static_cast<double>(count);
          if (op == "l2") v = std::sqrt(v);
          if (op == "log_sum") v = std::log(v);
          if (op == "log_sum_exp") v = std::log(v) + shift[k];
          if constexpr (std::is_same_v<T, float>)
            y[k] = static_cast<float>(v);
          else
            y[k] = static_cast<T>(acc[k]);
        }
      }
    });
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeArg(const ir::Node& node) {
  const AxisSplit ax(node.input(0)->type().shape, node.attrs().Int("axis", 0));
  const bool mx = node.op() == "arg_max", last = node.attrs().Int("select_last_index", 0) != 0;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    int64_t* y = out[0].data<int64_t>();
    for (int64_t o = 0; o < ax.outer; ++o)
      for (int64_t i = 0; i < ax.inner; ++i) {
        const int64_t base = o * ax.len * ax.inner + i;
        int64_t best = 0;
        double bv = in[0]->GetAsDouble(base);
        for (int64_t k = 1; k < ax.len; ++k) {
          const double v = in[0]->GetAsDouble(base + k * ax.inner);
          if ((mx ? v > bv : v < bv) || (last && v == bv)) best = k, bv = v;
        }
        y[o * ax.inner + i] = best;
      }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeSoftmax(const ir::Node& node) {
  const AxisSplit ax(node.input(0)->type().shape, node.attrs().Int("axis", -1));
  const std::string op = node.op();
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    float* y = out[0].data<float>();
    const int64_t len = ax.len, inner = ax.inner;
    for (int64_t o = 0; o < ax.outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * len * inner + i;
        float mx = -INFINITY;
        int64_t arg = 0;
        for (int64_t k = 0; k < len; ++k)
          if (x[base + k * inner] > mx) mx = x[base + k * inner], arg = k;
        if (op == "hardmax") {
          for (int64_t k = 0; k < len; ++k) y[base + k * inner] = k == arg ? 1.f : 0.f;
          continue;
        }
        double sum = 0;
        for (int64_t k = 0; k < len; ++k) sum += std::exp(static_cast<double>(x[base + k * inner] - mx));
        if (op == "log_softmax") {
          const double lse = std::log(sum);
          for (int64_t k = 0; k < len; ++k) y[base + k * inner] = static_cast<float>(x[base + k * inner] - mx - lse);
        } else {
          const float inv = static_cast<float>(1.0 / sum);
          for (int64_t k = 0; k < len; ++k) y[base + k * inner] = std::exp(x[base + k * inner] - mx) * inv;
        }
      }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeCumSum(const ir::Node& node) {
  const AxisSplit ax(node.input(0)->type().shape, node.attrs().Int("axis", -1));
  const bool exclusive = node.attrs().Int("exclusive", 0) != 0, reverse = node.attrs().Int("reverse", 0) != 0;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    VisitDType(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using Acc = std::conditional_t<std::is_same_v<T, float>, double, int64_t>;
        const T* x = in[0]->data<T>();
        T* y = out[0].data<T>();
        for (int64_t o = 0; o < ax.outer; ++o)
          for (int64_t i = 0; i < ax.inner; ++i) {
            Acc acc = 0;
            for (int64_t j = 0; j < ax.len; ++j) {
              const int64_t k = reverse ? ax.len - 1 - j : j;
              const int64_t at = (o * ax.len + k) * ax.inner + i;
              if (exclusive) y[at] = static_cast<T>(acc);
              acc += static_cast<Acc>(x[at]);
              if (!exclusive) y[at] = static_cast<T>(acc);
            }
          }
      }
    });
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindReduceKernel(const std::string& op) {
  if (op.rfind("reduce_", 0) == 0) return MakeReduce;
  if (op == "arg_max" || op == "arg_min") return MakeArg;
  if (op == "softmax" || op == "log_softmax" || op == "hardmax") return MakeSoftmax;
  if (op == "cumsum") return MakeCumSum;
  return nullptr;
}

}  // namespace tessera::exec
