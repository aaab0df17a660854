// Data-movement kernels on any element type: reshape-like copies, transpose,
// concat and pad. A quantized pad value is quantized like `quantize` does.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::Shape;
using ir::Tensor;

StatusOr<KernelFn> MakeCopy(const ir::Node&) {
  return KernelFn([](const Operands& in, std::vector<Tensor>& out) -> Status {
    if (in[0]->nbytes()) std::memcpy(out[0].raw(), in[0]->raw(), in[0]->nbytes());
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeTranspose(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const std::vector<int64_t> perm = node.attrs().Ints("perm");
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int r = static_cast<int>(xs.size());
    std::vector<int64_t> xstride(r, 1);
    for (int d = r - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * xs[d + 1];
    const Shape& os = out[0].shape();
    std::vector<int64_t> idx(r, 0);
    const uint8_t* x = in[0]->raw();
    uint8_t* y = out[0].raw();
    for (int64_t o = 0; o < out[0].numel(); ++o) {
      int64_t off = 0;
      for (int d = 0; d < r; ++d) off += idx[d] * xstride[perm[d]];
      std::memcpy(y + o * es, x + off * es, es);
      for (int d = r - 1; d >= 0; --d) {
        if (++idx[d] < os[d]) break;
        idx[d] = 0;
      }
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeConcat(const ir::Node& node) {
  const Shape os = node.output()->type().shape;
  int64_t axis = node.attrs().Int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(os.size());
  int64_t outer = 1, inner = ir::DTypeSize(node.output()->type().dtype);
  for (int64_t d = 0; d < axis; ++d) outer *= os[d];
  for (size_t d = axis + 1; d < os.size(); ++d) inner *= os[d];
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int64_t row = os[axis] * inner;
    int64_t at = 0;
    for (const Tensor* t : in) {
      const int64_t chunk = t->dim(static_cast<int>(axis)) * inner;
      for (int64_t o = 0; o < outer; ++o)
        if (chunk) std::memcpy(out[0].raw() + o * row + at, t->raw() + o * chunk, chunk);
      at += chunk;
    }
    return OkStatus();
  });
}

template <typename T>
void Pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, T value, Tensor& y) {
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const int r = static_cast<int>(xs.size());
  std::vector<int64_t> idx(r, 0), xstride(r, 1);
  for (int d = r - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * xs[d + 1];
  const T* px = x.data<T>();
  T* py = y.data<T>();
  for (int64_t o = 0; o < y.numel(); ++o) {
    int64_t off = 0;
    bool inside = true;
    for (int d = 0; d < r; ++d) {
      int64_t i = idx[d] - pads[d];
      if (i < 0 || i >= xs[d]) {
        if (mode == "constant") {
          inside = false;
          break;
        }
        if (mode == "edge")
          i = i < 0 ? 0 : xs[d] - 1;
        else
          i = i < 0 ? -i : 2 * (xs[d] - 1) - i;  // reflect
      }
      off += i * xstride[d];
    }
    py[o] = inside ? px[off] : value;
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[d] < ys[d]) break;
      idx[d] = 0;
    }
  }
}

StatusOr<KernelFn> MakePad(const ir::Node& node) {
  const std::vector<int64_t> pads = node.attrs().Ints("pads");
  const std::string mode = node.attrs().Str("mode", "constant");
  const ir::TensorType& t = node.input(0)->type();
  double v = node.attrs().Float("value", 0.f);
  if (t.quant) v = std::nearbyint(v / t.quant->scale[0]) + t.quant->zero_point[0];
  if (ir::IsInteger(t.dtype)) v = std::clamp<double>(std::trunc(v), ir::DTypeMin(t.dtype), ir::DTypeMax(t.dtype));
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    switch (in[0]->dtype()) {
      case ir::DType::kF32: Pad<float>(*in[0], pads, mode, static_cast<float>(v), out[0]); break;
      case ir::DType::kI8: Pad<int8_t>(*in[0], pads, mode, static_cast<int8_t>(v), out[0]); break;
      case ir::DType::kU8: Pad<uint8_t>(*in[0], pads, mode, static_cast<uint8_t>(v), out[0]); break;
      case ir::DType::kI32: Pad<int32_t>(*in[0], pads, mode, static_cast<int32_t>(v), out[0]); break;
      case ir::DType::kI64: Pad<int64_t>(*in[0], pads, mode, static_cast<int64_t>(v), out[0]); break;
      case ir::DType::kBool: Pad<bool>(*in[0], pads, mode, v != 0, out[0]); break;
    }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindTensorKernel(const std::string& op) {
  if (op == "flatten" || op == "reshape" || op == "squeeze" || op == "unsqueeze" || op == "identity" ||
      op == "quant_cast")
    return MakeCopy;
  if (op == "transpose") return MakeTranspose;
  if (op == "concat") return MakeConcat;
  if (op == "pad") return MakePad;
  return nullptr;
}

}  // namespace tessera::exec
