// GEMM-family kernels: gemm and matmul (fp32, numpy batch broadcasting),
// qmatmul and qbatch_matmul (int8 golden models), qlinear_matmul and matmul_integer (ONNX
// zero-point semantics).
#include <algorithm>
#include <cmath>

#include "compiler/exec/gemm.h"
#include "compiler/exec/kernel.h"
#include "compiler/exec/scratch.h"
#include "isa/alu.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;

// Batched matmul geometry with numpy broadcasting of the batch dimensions.
struct MatMulGeom {
  int64_t m = 1, k = 1, n = 1;
  std::vector<std::pair<int64_t, int64_t>> batches;  // (a offset, b offset) in matrices
};

MatMulGeom ReadMatMul(const Shape& a_in, const Shape& b_in) {
  Shape a = a_in, b = b_in;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  MatMulGeom g;
  g.m = a[a.size() - 2];
  g.k = a.back();
  g.n = b.back();
  Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  const size_t r = std::max(ab.size(), bb.size());
  ab.insert(ab.begin(), r - ab.size(), 1);
  bb.insert(bb.begin(), r - bb.size(), 1);
  Shape ob(r);
  for (size_t i = 0; i < r; ++i) ob[i] = std::max(ab[i], bb[i]);
  const int64_t total = ir::NumElements(ob);
  for (int64_t idx = 0; idx < total; ++idx) {
    int64_t rem = idx, ao = 0, bo = 0, as = 1, bs = 1;
    for (int64_t d = static_cast<int64_t>(r) - 1; d >= 0; --d) {
      const int64_t i = rem % ob[d];
      rem /= ob[d];
      ao += (ab[d] == 1 ? 0 : i) * as;
      bo += (bb[d] == 1 ? 0 : i) * bs;
      as *= ab[d];
      bs *= bb[d];
    }
    g.batches.emplace_back(ao, bo);
  }
  return g;
}

// Adds a bias that broadcasts unidirectionally to `shape`, then clamps.
void AddBiasAct(const Tensor* bias, const Shape& shape, float lo, float hi, float* y) {
  const int64_t total = ir::NumElements(shape);
  if (bias) {
    Shape bs = bias->shape();
    bs.insert(bs.begin(), shape.size() - bs.size(), 1);
    std::vector<int64_t> stride(shape.size());
    int64_t s = 1;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      stride[d] = bs[d] == 1 ? 0 : s;
      s *= bs[d];
    }
    const float* b = bias->data<float>();
    for (int64_t idx = 0; idx < total; ++idx) {
      int64_t rem = idx, off = 0;
      for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
        off += (rem % shape[d]) * stride[d];
        rem /= shape[d];
      }
      y[idx] += b[off];
    }
  }
  for (int64_t i = 0; i < total; ++i) y[i] = std::min(std::max(y[i], lo), hi);
}

StatusOr<KernelFn> MakeMatMul(const ir::Node& node) {
  const MatMulGeom g = ReadMatMul(node.input(0)->type().shape, node.input(1)->type().shape);
  const Shape out_shape = node.output()->type().shape;
  float lo, hi;
  ReadAct(node, &lo, &hi);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    float* y = out[0].data<float>();
    for (size_t i = 0; i < g.batches.size(); ++i)
      Sgemm(g.m, g.n, g.k, in[0]->data<float>() + g.batches[i].first * g.m * g.k, g.k,
            in[1]->data<float>() + g.batches[i].second * g.k * g.n, g.n, y + i * g.m * g.n, g.n, false);
    AddBiasAct(in.size() > 2 ? in[2] : nullptr, out_shape, lo, hi, y);
    return OkStatus();
  });
}

// Contiguous (optionally transposed) copy of a 2-D float tensor.
const float* Contiguous(const Tensor& t, bool transpose, std::vector<float>& tmp) {
  if (!transpose) return t.data<float>();
  const int64_t r = t.dim(0), c = t.dim(1);
  tmp.resize(r * c);
  const float* s = t.data<float>();
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) tmp[j * r + i] = s[i * c + j];
  return tmp.data();
}

StatusOr<KernelFn> MakeGemm(const ir::Node& node) {
  const bool ta = node.attrs().Int("trans_a", 0), tb = node.attrs().Int("trans_b", 0);
  const float alpha = node.attrs().Float("alpha", 1.f), beta = node.attrs().Float("beta", 1.f);
  float lo, hi;
  ReadAct(node, &lo, &hi);
  const Shape o = node.output()->type().shape;
  const int64_t k = ta ? node.input(0)->type().shape[0] : node.input(0)->type().shape[1];
  // Constant transposed weights are transposed once.
  auto b_fixed = std::make_shared<std::vector<float>>();
  if (tb && node.input(1)->is_constant()) Contiguous(node.input(1)->data(), true, *b_fixed);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<float> at, bt;
    const float* a = Contiguous(*in[0], ta, at);
    const float* b = b_fixed->empty() ? Contiguous(*in[1], tb, bt) : b_fixed->data();
    float* y = out[0].data<float>();
    Sgemm(o[0], o[1], k, a, k, b, o[1], y, o[1], false);
    if (alpha != 1.f)
      for (int64_t i = 0; i < o[0] * o[1]; ++i) y[i] *= alpha;
    if (in.size() > 2) {
      Shape cs = in[2]->shape();
      cs.insert(cs.begin(), 2 - cs.size(), 1);
      const float* c = in[2]->data<float>();
      for (int64_t i = 0; i < o[0]; ++i)
        for (int64_t j = 0; j < o[1]; ++j) y[i * o[1] + j] += beta * c[(i % cs[0]) * cs[1] + (j % cs[1])];
    }
    for (int64_t i = 0; i < o[0] * o[1]; ++i) y[i] = std::min(std::max(y[i], lo), hi);
    return OkStatus();
  });
}

// qmatmul: rows of (x[..., K] - zx) times w[N, K]^T, then per-column
// requantization with the result's zero point. Like the accelerator, it sums
// w * x and folds -zx * sum_k w[c][k] into the bias (exact modulo 2^32).
StatusOr<KernelFn> MakeQMatMul(const ir::Node& node) {
  const Shape ws = node.input(1)->type().shape;
  const int64_t n = ws[0], k = ws[1];
  const int64_t rows = node.input(0)->type().numel() / k;
  const Requant rq = ReadRequant(node);
  const auto& xq = node.input(0)->type().quant;
  const int64_t zx = xq->zero_point.empty() ? 0 : xq->zero_point[0];
  auto make_wt = [n, k](const Tensor& w) {
    std::vector<float> wt(k * n);
    const int8_t* s = w.data<int8_t>();
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < k; ++j) wt[j * n + i] = s[i * k + j];
    return wt;
  };
  auto cached = std::make_shared<std::vector<float>>();
  if (node.input(1)->is_constant()) *cached = make_wt(node.input(1)->data());
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    std::vector<float> tmp;
    const float* wt = cached->empty() ? (tmp = make_wt(*in[1])).data() : cached->data();
    float* xf = ScratchAs<float>(0, rows * k);
    ToFloat(*in[0], xf);
    int32_t* acc = ScratchAs<int32_t>(2, rows * n);
    IgemmExact(rows, n, k, xf, k, wt, n, acc, n, false);
    const int32_t* bias = in.size() > 2 ? in[2]->data<int32_t>() : nullptr;
    std::vector<int64_t> beff(n);
    for (int64_t c = 0; c < n; ++c) {
      int64_t sum = 0;
      for (int64_t j = 0; j < k; ++j) sum += in[1]->data<int8_t>()[c * k + j];
      beff[c] = alu::Wrap((bias ? bias[c] : 0) - zx * sum, 32);
    }
    int8_t* y = out[0].data<int8_t>();
    const int shift = rq.shift;
    const int64_t lo = rq.lo, hi = rq.hi, zy = rq.zero_point;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < n; ++c)
        y[r * n + c] = static_cast<int8_t>(alu::RequantizeZp(acc[r * n + c], beff[c], rq.M(c), shift, zy, lo, hi, 32));
    return OkStatus();
  });
}

// Integer batched matmul: acc = (a - az) x (b - bz[col]).
void IntMatMul(const MatMulGeom& g, const Tensor& a, int64_t az, const Tensor& b, const std::vector<int64_t>& bz,
               int32_t* acc) {
  std::vector<float> af(a.numel()), bf(b.numel());
  ToShiftedFloat(a, az, af.data());
  ToFloat(b, bf.data());
  for (int64_t i = 0; i < b.numel(); ++i) bf[i] -= static_cast<float>(bz.size() == 1 ? bz[0] : bz[i % g.n]);
  for (size_t i = 0; i < g.batches.size(); ++i)
    IgemmExact(g.m, g.n, g.k, af.data() + g.batches[i].first * g.m * g.k, g.k,
               bf.data() + g.batches[i].second * g.k * g.n, g.n, acc + i * g.m * g.n, g.n, false);
}

// qbatch_matmul: a[..., M, K] x b[..., K, N] per leading index (two symmetric
// int8 activations), then one MULSHR requantization and the clamp.
StatusOr<KernelFn> MakeQBatchMatMul(const ir::Node& node) {
  const MatMulGeom g = ReadMatMul(node.input(0)->type().shape, node.input(1)->type().shape);
  const Requant rq = ReadRequant(node);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int64_t total = out[0].numel();
    int32_t* acc = ScratchAs<int32_t>(2, total);
    IntMatMul(g, *in[0], 0, *in[1], {0}, acc);
    RequantizeRun(acc, total, 0, rq.M(0), rq.shift, rq.lo, rq.hi, out[0].data<int8_t>());
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeMatMulInteger(const ir::Node& node) {
  const MatMulGeom g = ReadMatMul(node.input(0)->type().shape, node.input(1)->type().shape);
  const int64_t az = node.attrs().Int("a_zero_point", 0);
  const std::vector<int64_t> bz = node.attrs().Ints("b_zero_point", {0});
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    IntMatMul(g, *in[0], az, *in[1], bz, out[0].data<int32_t>());
    return OkStatus();
  });
}

// ONNX QLinearMatMul: y = saturate(round_half_even(acc * (sa * sb[col] / sy)) + zy).
StatusOr<KernelFn> MakeQLinearMatMul(const ir::Node& node) {
  const MatMulGeom g = ReadMatMul(node.input(0)->type().shape, node.input(1)->type().shape);
  const ir::QuantParams aq = *node.input(0)->type().quant, bq = *node.input(1)->type().quant,
                        yq = *node.output()->type().quant;
  std::vector<int64_t> bz;
  std::vector<float> scale;
  for (size_t i = 0; i < bq.scale.size(); ++i) {
    bz.push_back(bq.zero_point[i]);
    scale.push_back(aq.scale[0] * bq.scale[i] / yq.scale[0]);
  }
  const DType ot = node.output()->type().dtype;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int64_t total = out[0].numel();
    int32_t* acc = ScratchAs<int32_t>(2, total);
    IntMatMul(g, *in[0], aq.zero_point[0], *in[1], bz, acc);
    const int64_t lo = ir::DTypeMin(ot), hi = ir::DTypeMax(ot);
    for (int64_t i = 0; i < total; ++i) {
      const float s = scale.size() == 1 ? scale[0] : scale[i % g.n];
      const float v = std::clamp(std::nearbyint(static_cast<float>(acc[i]) * s), -1e9f, 1e9f);
      const int64_t q = std::clamp<int64_t>(static_cast<int64_t>(v) + yq.zero_point[0], lo, hi);
      if (ot == DType::kU8)
        out[0].data<uint8_t>()[i] = static_cast<uint8_t>(q);
      else
        out[0].data<int8_t>()[i] = static_cast<int8_t>(q);
    }
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindMatMulKernel(const std::string& op) {
  if (op == "matmul") return MakeMatMul;
  if (op == "gemm") return MakeGemm;
  if (op == "qmatmul") return MakeQMatMul;
  if (op == "qbatch_matmul") return MakeQBatchMatMul;
  if (op == "matmul_integer") return MakeMatMulInteger;
  if (op == "qlinear_matmul") return MakeQLinearMatMul;
  return nullptr;
}

}  // namespace tessera::exec
