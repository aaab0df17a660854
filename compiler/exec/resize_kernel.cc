// resize: ONNX Resize (opset 11-17) as one separable pass per axis, innermost
// axis first like the ONNX reference. Each output position along an axis
// reads a few input positions ("taps") with weights: nearest 2 taps with 0/1
// weights (nearest_mode picks), linear 2, cubic 4 (cubic_coeff_a); taps past
// the edges read the edge element, or get weight 0 with exclude_outside.
// Values are carried in double between passes; a nearest resize of integers
// therefore copies them exactly.
#include <cmath>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::Shape;
using ir::Tensor;

struct AxisTaps {
  int n = 0;                   // taps per output position
  std::vector<int64_t> index;  // [out][n], clamped to the input
  std::vector<double> weight;  // [out][n]
  std::vector<bool> outside;   // [out]: tf_crop_and_resize extrapolates
  bool identity = false;
};

struct ResizeParams {
  std::string mode, ctm, nearest;
  double a = -0.75;
  bool exclude = false;
};

// Source coordinate of output position x (ONNX coordinate_transformation_mode).
double SourceCoord(const ResizeParams& p, double x, int64_t in, double scale, double r0, double r1, bool* out) {
  const double out_len = scale * static_cast<double>(in);
  *out = false;
  if (p.ctm == "align_corners") return out_len == 1 ? 0.0 : x * (in - 1) / (out_len - 1);
  if (p.ctm == "asymmetric") return x / scale;
  if (p.ctm == "tf_half_pixel_for_nearest") return (x + 0.5) / scale;
  if (p.ctm == "pytorch_half_pixel") return out_len == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  if (p.ctm == "tf_crop_and_resize") {
    double v = out_len == 1 ? (r1 - r0) * (in - 1) / 2 : x * (r1 - r0) * (in - 1) / (out_len - 1);
    v += r0 * (in - 1);
    *out = v < 0 || v > in - 1;
    return v;
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

AxisTaps MakeTaps(const ResizeParams& p, int64_t in, int64_t out, double scale, double r0, double r1) {
  AxisTaps t;
  t.n = p.mode == "cubic" ? 4 : 2;
  t.index.resize(out * t.n);
  t.weight.resize(out * t.n);
  t.outside.resize(out);
  t.identity = in == out;
  for (int64_t x = 0; x < out; ++x) {
    bool outside;
    const double src = SourceCoord(p, static_cast<double>(x), in, scale, r0, r1, &outside);
    t.outside[x] = outside;
    // The neighbours are [base - n/2 + 1, base + n/2]; an integer coordinate
    // uses ratio 1 (it is the right-hand neighbour of its left interval).
    double base = std::floor(src), ratio = src - base;
    if (ratio == 0) base -= 1, ratio = 1;
    double w[4];
    if (p.mode == "nearest") {
      bool right = ratio == 1 || p.nearest == "ceil";
      if (ratio != 1 && p.nearest == "round_prefer_floor") right = ratio > 0.5;
      if (ratio != 1 && p.nearest == "round_prefer_ceil") right = ratio >= 0.5;
      if (ratio != 1 && p.nearest == "floor") right = false;
      w[0] = right ? 0 : 1, w[1] = right ? 1 : 0;
    } else if (p.mode == "linear") {
      w[0] = 1 - ratio, w[1] = ratio;
    } else {
      const double a = p.a, r = ratio, s = 1 - ratio;
      w[0] = ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a;
      w[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
      w[2] = ((a + 2) * s - (a + 3)) * s * s + 1;
      w[3] = ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a;
    }
    const int64_t first = static_cast<int64_t>(base) - t.n / 2 + 1;
    double sum = 0;
    for (int k = 0; k < t.n; ++k) {
      const int64_t i = first + k;
      if (p.exclude && (i < 0 || i >= in)) w[k] = 0;
      sum += w[k];
    }
    double self = 0, other = 0;
    for (int k = 0; k < t.n; ++k) {
      const int64_t i = first + k;
      t.index[x * t.n + k] = i < 0 ? 0 : i >= in ? in - 1 : i;
      t.weight[x * t.n + k] = p.exclude && sum != 0 ? w[k] / sum : w[k];
      (t.index[x * t.n + k] == x ? self : other) += std::fabs(t.weight[x * t.n + k]);
    }
    if (outside || self != 1 || other != 0) t.identity = false;
  }
  return t;
}

}  // namespace

StatusOr<KernelFn> MakeResize(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const Shape os = node.output()->type().shape;
  const ir::Attrs& a = node.attrs();
  ResizeParams p;
  p.mode = a.Str("mode", "nearest");
  p.ctm = a.Str("coordinate_transformation_mode", "half_pixel");
  p.nearest = a.Str("nearest_mode", "round_prefer_floor");
  p.a = a.Float("cubic_coeff_a", -0.75f);
  p.exclude = a.Int("exclude_outside", 0) != 0;
  const auto scales = a.Floats("scales", {});
  const auto roi = a.Floats("roi", {});
  const double extrapolation = a.Float("extrapolation_value", 0.f);
  const int r = static_cast<int>(xs.size());
  std::vector<AxisTaps> taps(r);
  for (int d = 0; d < r; ++d) {
    const double scale = scales.empty() ? static_cast<double>(os[d]) / static_cast<double>(xs[d]) : scales[d];
    taps[d] = MakeTaps(p, xs[d], os[d], scale, roi.empty() ? 0 : roi[d], roi.empty() ? 1 : roi[d + r]);
  }
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    Shape cur = xs;
    std::vector<double> buf(in[0]->numel()), next;
    for (int64_t i = 0; i < in[0]->numel(); ++i) buf[i] = in[0]->GetAsDouble(i);
    for (int d = r - 1; d >= 0; --d) {
      const AxisTaps& t = taps[d];
      if (t.identity) continue;
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < d; ++k) outer *= cur[k];
      for (int k = d + 1; k < r; ++k) inner *= cur[k];
      const int64_t lin = cur[d], lout = os[d];
      next.assign(outer * lout * inner, 0.0);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t x = 0; x < lout; ++x) {
          double* dst = next.data() + (o * lout + x) * inner;
          if (t.outside[x]) {
            std::fill(dst, dst + inner, extrapolation);
            continue;
          }
          for (int k = 0; k < t.n; ++k) {
            const double w = t.weight[x * t.n + k];
            if (w == 0) continue;
            const double* src = buf.data() + (o * lin + t.index[x * t.n + k]) * inner;
            for (int64_t i = 0; i < inner; ++i) dst[i] += w * src[i];
          }
        }
      buf.swap(next);
      cur[d] = lout;
    }
    VisitDType(out[0].dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* y = out[0].data<T>();
      for (int64_t i = 0; i < out[0].numel(); ++i) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, bool>)
          y[i] = static_cast<T>(buf[i]);
        else
          y[i] = static_cast<T>(std::nearbyint(buf[i]));
      }
    });
    return OkStatus();
  });
}

}  // namespace tessera::exec
