// Normalization kernels: inference batch normalization, layer normalization
// over the trailing axes (statistics in double), instance normalization.
#include <cmath>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::Shape;
using ir::Tensor;

StatusOr<KernelFn> MakeBatchNorm(const ir::Node& node) {
  const Shape s = node.input(0)->type().shape;
  const float eps = node.attrs().Float("epsilon", 1e-5f);
  const int64_t c = s[1], inner = s[0] * c != 0 ? ir::NumElements(s) / (s[0] * c) : 0;
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

// y = (x - mean) / sqrt(var + eps) over one row of `len` elements.
void NormalizeRow(const float* x, int64_t len, float eps, float* y) {
  double mean = 0, var = 0;
  for (int64_t i = 0; i < len; ++i) mean += x[i];
  mean /= static_cast<double>(len);
  for (int64_t i = 0; i < len; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= static_cast<double>(len);
  const double inv = 1.0 / std::sqrt(var + eps);
  for (int64_t i = 0; i < len; ++i) y[i] = static_cast<float>((x[i] - mean) * inv);
}

StatusOr<KernelFn> MakeLayerNorm(const ir::Node& node) {
  const Shape s = node.input(0)->type().shape;
  int64_t axis = node.attrs().Int("axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(s.size());
  const float eps = node.attrs().Float("epsilon", 1e-5f);
  const Shape tail(s.begin() + axis, s.end());
  int64_t len = 1;
  for (int64_t d : tail) len *= d;
  const std::array<std::vector<int64_t>, 1> sstr = {BroadcastStrides(node.input(1)->type().shape, tail)};
  std::array<std::vector<int64_t>, 1> bstr;
  if (node.num_inputs() > 2) bstr[0] = BroadcastStrides(node.input(2)->type().shape, tail);
  // Offsets of scale/bias for each element of a normalized row, computed once.
  std::vector<int64_t> soff(len), boff(len);
  ForEachBroadcast<1>(tail, sstr, [&](int64_t i, const std::array<int64_t, 1>& k) { soff[i] = k[0]; });
  if (node.num_inputs() > 2)
    ForEachBroadcast<1>(tail, bstr, [&](int64_t i, const std::array<int64_t, 1>& k) { boff[i] = k[0]; });
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    const float* g = in[1]->data<float>();
    const float* b = in.size() > 2 ? in[2]->data<float>() : nullptr;
    float* y = out[0].data<float>();
    const int64_t rows = len ? in[0]->numel() / len : 0;
    for (int64_t r = 0; r < rows; ++r) {
      float* yr = y + r * len;
      NormalizeRow(x + r * len, len, eps, yr);
      for (int64_t i = 0; i < len; ++i) yr[i] = yr[i] * g[soff[i]] + (b ? b[boff[i]] : 0.f);
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeInstanceNorm(const ir::Node& node) {
  const Shape s = node.input(0)->type().shape;
  const float eps = node.attrs().Float("epsilon", 1e-5f);
  int64_t len = 1;
  for (size_t d = 2; d < s.size(); ++d) len *= s[d];
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float *x = in[0]->data<float>(), *g = in[1]->data<float>(), *b = in[2]->data<float>();
    float* y = out[0].data<float>();
    for (int64_t r = 0; r < s[0] * s[1]; ++r) {
      const int64_t c = r % s[1];
      NormalizeRow(x + r * len, len, eps, y + r * len);
      for (int64_t i = 0; i < len; ++i) y[r * len + i] = y[r * len + i] * g[c] + b[c];
    }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindNormKernel(const std::string& op) {
  if (op == "batch_norm") return MakeBatchNorm;
  if (op == "layer_norm") return MakeLayerNorm;
  if (op == "instance_norm") return MakeInstanceNorm;
  return nullptr;
}

}  // namespace tessera::exec
