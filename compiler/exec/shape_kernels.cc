// Indexing data movement on any element type: gather, gather_elements
// (indices may be negative; out of range is an error), slice, expand, tile,
// trilu. Elements are copied as bytes, so quantized tensors stay exact.
#include <cstring>

#include "compiler/exec/kernel.h"
#include "compiler/ir/tensor_index.h"

namespace tessera::exec {
namespace {

using ir::Shape;
using ir::Tensor;

StatusOr<KernelFn> MakeGather(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  int64_t axis = node.attrs().Int("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(xs.size());
  int64_t outer = 1, inner = ir::DTypeSize(node.input(0)->type().dtype);
  for (int64_t d = 0; d < axis; ++d) outer *= xs[d];
  for (size_t d = axis + 1; d < xs.size(); ++d) inner *= xs[d];
  const int64_t len = xs[axis];
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const Tensor& idx = *in[1];
    const int64_t n = idx.numel();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t j = ir::IndexAt(idx, k);
      if (j < -len || j >= len) return InvalidArgumentError("gather index {} out of range [{}, {})", j, -len, len);
    }
    const uint8_t* x = in[0]->raw();
    uint8_t* y = out[0].raw();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < n; ++k) {
        int64_t j = ir::IndexAt(idx, k);
        if (j < 0) j += len;
        std::memcpy(y + (o * n + k) * inner, x + (o * len + j) * inner, inner);
      }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeGatherElements(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const Shape is = node.input(1)->type().shape;
  const int r = static_cast<int>(xs.size());
  int64_t axis = node.attrs().Int("axis", 0);
  if (axis < 0) axis += r;
  std::vector<int64_t> xstride(r, 1);
  for (int d = r - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * xs[d + 1];
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<int64_t> idx(r, 0);
    for (int64_t o = 0; o < out[0].numel(); ++o) {
      int64_t j = ir::IndexAt(*in[1], o);
      if (j < -xs[axis] || j >= xs[axis])
        return InvalidArgumentError("gather_elements index {} out of range for size {}", j, xs[axis]);
      if (j < 0) j += xs[axis];
      int64_t off = 0;
      for (int d = 0; d < r; ++d) off += (d == axis ? j : idx[d]) * xstride[d];
      std::memcpy(out[0].raw() + o * es, in[0]->raw() + off * es, es);
      for (int d = r - 1; d >= 0; --d) {
        if (++idx[d] < is[d]) break;
        idx[d] = 0;
      }
    }
    return OkStatus();
  });
}

// Copies y[i] = x[offset(i)] where offset(i) = base + sum_d idx_d * stride_d.
void StridedCopy(const uint8_t* x, int64_t base, const std::vector<int64_t>& stride, const Shape& os, int es,
                 uint8_t* y) {
  const int r = static_cast<int>(os.size());
  const int64_t total = ir::NumElements(os);
  std::vector<int64_t> idx(r, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = base;
    for (int d = 0; d < r; ++d) off += idx[d] * stride[d];
    std::memcpy(y + o * es, x + off * es, es);
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
}

StatusOr<KernelFn> MakeSlice(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const Shape os = node.output()->type().shape;
  const auto starts = node.attrs().Ints("starts"), steps = node.attrs().Ints("steps");
  const int r = static_cast<int>(xs.size());
  std::vector<int64_t> xstride(r, 1), stride(r);
  for (int d = r - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * xs[d + 1];
  int64_t base = 0;
  for (int d = 0; d < r; ++d) {
    stride[d] = xstride[d] * steps[d];
    if (os[d] > 0) base += starts[d] * xstride[d];
  }
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    StridedCopy(in[0]->raw(), base, stride, os, es, out[0].raw());
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeExpand(const ir::Node& node) {
  const Shape os = node.output()->type().shape;
  const std::vector<int64_t> stride = BroadcastStrides(node.input(0)->type().shape, os);
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    StridedCopy(in[0]->raw(), 0, stride, os, es, out[0].raw());
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeTile(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const Shape os = node.output()->type().shape;
  const int r = static_cast<int>(xs.size());
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<int64_t> idx(r, 0), xstride(r, 1);
    for (int d = r - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * xs[d + 1];
    for (int64_t o = 0; o < out[0].numel(); ++o) {
      int64_t off = 0;
      for (int d = 0; d < r; ++d) off += (idx[d] % xs[d]) * xstride[d];
      std::memcpy(out[0].raw() + o * es, in[0]->raw() + off * es, es);
      for (int d = r - 1; d >= 0; --d) {
        if (++idx[d] < os[d]) break;
        idx[d] = 0;
      }
    }
    return OkStatus();
  });
}

// trilu: keeps element (i, j) of each matrix when j - i >= k (upper) or
// j - i <= k (lower); the rest becomes 0.
StatusOr<KernelFn> MakeTrilu(const ir::Node& node) {
  const Shape xs = node.input(0)->type().shape;
  const int64_t rows = xs[xs.size() - 2], cols = xs.back();
  const bool upper = node.attrs().Int("upper", 1) != 0;
  const int64_t k = node.attrs().Int("k", 0);
  const int es = ir::DTypeSize(node.input(0)->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::memcpy(out[0].raw(), in[0]->raw(), in[0]->nbytes());
    const int64_t mats = rows * cols != 0 ? in[0]->numel() / (rows * cols) : 0;
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
          if (upper ? j - i < k : j - i > k) std::memset(out[0].raw() + ((m * rows + i) * cols + j) * es, 0, es);
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindShapeKernel(const std::string& op) {
  if (op == "gather") return MakeGather;
  if (op == "gather_elements") return MakeGatherElements;
  if (op == "slice") return MakeSlice;
  if (op == "expand") return MakeExpand;
  if (op == "tile") return MakeTile;
  if (op == "trilu") return MakeTrilu;
  if (op == "resize") return MakeResize;
  return nullptr;
}

}  // namespace tessera::exec
