#include "compiler/exec/kernel.h"

#include <cmath>

#include "isa/alu.h"

namespace tessera::exec {

StatusOr<KernelFn> MakeKernel(const ir::Node& node) {
  for (auto find :
       {FindConvKernel, FindQuantConvKernel, FindMatMulKernel, FindElementwiseKernel, FindUnaryKernel, FindReduceKernel,
        FindNormKernel, FindPoolKernel, FindTensorKernel, FindShapeKernel, FindQuantKernel, FindRnnKernel})
    if (KernelFactory f = find(node.op())) return f(node);
  return UnimplementedError("{}: the CPU executor has no kernel for op '{}'", node.Describe(), node.op());
}

StatusOr<std::optional<std::vector<ir::Tensor>>> EvaluateConstantNode(const ir::Node& node) {
  constexpr int64_t kMaxElements = int64_t{1} << 24;
  if (node.op() == "dequantize" || node.num_inputs() == 0) return std::optional<std::vector<ir::Tensor>>();
  int64_t elements = 0;
  for (const ir::Value* in : node.inputs())
    if (!in->is_constant()) return std::optional<std::vector<ir::Tensor>>();
  for (const ir::Value* out : node.outputs()) elements += out->type().numel();
  if (elements > kMaxElements) return std::optional<std::vector<ir::Tensor>>();
  TSR_ASSIGN_OR_RETURN(KernelFn kernel, MakeKernel(node));
  Operands operands;
  for (const ir::Value* in : node.inputs()) operands.push_back(&in->data());
  std::vector<ir::Tensor> results;
  for (const ir::Value* out : node.outputs()) results.emplace_back(out->type().dtype, out->type().shape);
  TSR_RETURN_IF_ERROR(kernel(operands, results));
  return std::optional<std::vector<ir::Tensor>>(std::move(results));
}

Requant ReadRequant(const ir::Node& node) {
  Requant r;
  r.multiplier = node.attrs().Ints("multiplier");
  r.shift = static_cast<int>(node.attrs().Int("shift"));
  r.lo = node.attrs().Int("act_min", -128);
  r.hi = node.attrs().Int("act_max", 127);
  const auto& q = node.output()->type().quant;
  if (q && !q->per_axis() && !q->zero_point.empty()) r.zero_point = q->zero_point[0];
  return r;
}

void ReadAct(const ir::Node& node, float* lo, float* hi) {
  *lo = node.attrs().Float("act_min", -INFINITY);
  *hi = node.attrs().Float("act_max", INFINITY);
}

namespace {

// The alu:: helpers branch on the shift; stating its range lets the compiler
// drop the branches and vectorize the loop. The arithmetic is unchanged.
template <bool kShiftInRange>
void RequantizeRunImpl(const int32_t* __restrict acc, int64_t n, int64_t bias, int64_t multiplier, int shift,
                       int64_t lo, int64_t hi, int8_t* __restrict y, int64_t zp) {
  if constexpr (kShiftInRange) {
    if (shift < 1 || shift > 63) __builtin_unreachable();
  }
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<int8_t>(alu::RequantizeZp(acc[i], bias, multiplier, shift, zp, lo, hi, 32));
}

}  // namespace

void RequantizeRun(const int32_t* acc, int64_t n, int64_t bias, int64_t multiplier, int shift, int64_t lo, int64_t hi,
                   int8_t* y, int64_t zp) {
  if (shift >= 1 && shift <= 63)
    RequantizeRunImpl<true>(acc, n, bias, multiplier, shift, lo, hi, y, zp);
  else
    RequantizeRunImpl<false>(acc, n, bias, multiplier, shift, lo, hi, y, zp);
}

void ToFloat(const ir::Tensor& t, float* out) {
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case ir::DType::kF32: std::copy(t.data<float>(), t.data<float>() + n, out); break;
    case ir::DType::kI8: std::copy(t.data<int8_t>(), t.data<int8_t>() + n, out); break;
    case ir::DType::kU8: std::copy(t.data<uint8_t>(), t.data<uint8_t>() + n, out); break;
    case ir::DType::kI32: std::copy(t.data<int32_t>(), t.data<int32_t>() + n, out); break;
    case ir::DType::kI64: std::copy(t.data<int64_t>(), t.data<int64_t>() + n, out); break;
    case ir::DType::kBool: std::copy(t.data<bool>(), t.data<bool>() + n, out); break;
  }
}

std::vector<int64_t> BroadcastStrides(const ir::Shape& in, const ir::Shape& out) {
  const size_t r = out.size();
  std::vector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    const size_t d = r - 1 - k;
    const int64_t dim = in[in.size() - 1 - k];
    strides[d] = dim == 1 ? 0 : s;
    s *= dim;
  }
  return strides;
}

void ToShiftedFloat(const ir::Tensor& t, int64_t zero_point, float* out) {
  ToFloat(t, out);
  if (zero_point == 0) return;
  const float z = static_cast<float>(zero_point);
  for (int64_t i = 0; i < t.numel(); ++i) out[i] -= z;
}

}  // namespace tessera::exec
