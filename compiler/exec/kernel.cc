#include "compiler/exec/kernel.h"

#include <cmath>

#include "isa/alu.h"

namespace tessera::exec {

StatusOr<KernelFn> MakeKernel(const ir::Node& node) {
  for (auto find :
       {FindConvKernel, FindMatMulKernel, FindElementwiseKernel, FindPoolKernel, FindTensorKernel, FindQuantKernel})
    if (KernelFactory f = find(node.op())) return f(node);
  return UnimplementedError("{}: the CPU executor has no kernel for op '{}'", node.Describe(), node.op());
}

Requant ReadRequant(const ir::Node& node) {
  Requant r;
  r.multiplier = node.attrs().Ints("multiplier");
  r.shift = static_cast<int>(node.attrs().Int("shift"));
  r.lo = node.attrs().Int("act_min", -128);
  r.hi = node.attrs().Int("act_max", 127);
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
                       int64_t lo, int64_t hi, int8_t* __restrict y) {
  if constexpr (kShiftInRange) {
    if (shift < 1 || shift > 63) __builtin_unreachable();
  }
  for (int64_t i = 0; i < n; ++i)
    y[i] = static_cast<int8_t>(alu::Requantize(acc[i], bias, multiplier, shift, lo, hi, 32));
}

}  // namespace

void RequantizeRun(const int32_t* acc, int64_t n, int64_t bias, int64_t multiplier, int shift, int64_t lo, int64_t hi,
                   int8_t* y) {
  if (shift >= 1 && shift <= 63)
    RequantizeRunImpl<true>(acc, n, bias, multiplier, shift, lo, hi, y);
  else
    RequantizeRunImpl<false>(acc, n, bias, multiplier, shift, lo, hi, y);
}

void ToFloat(const ir::Tensor& t, float* out) {
  const int64_t n = t.numel();
  switch (t.dtype()) {
    case ir::DType::kF32: std::copy(t.data<float>(), t.data<float>() + n, out); break;
    case ir::DType::kI8: std::copy(t.data<int8_t>(), t.data<int8_t>() + n, out); break;
    case ir::DType::kU8: std::copy(t.data<uint8_t>(), t.data<uint8_t>() + n, out); break;
    case ir::DType::kI32: std::copy(t.data<int32_t>(), t.data<int32_t>() + n, out); break;
    case ir::DType::kI64: std::copy(t.data<int64_t>(), t.data<int64_t>() + n, out); break;
  }
}

void ToShiftedFloat(const ir::Tensor& t, int64_t zero_point, float* out) {
  ToFloat(t, out);
  if (zero_point == 0) return;
  const float z = static_cast<float>(zero_point);
  for (int64_t i = 0; i < t.numel(); ++i) out[i] -= z;
}

}  // namespace tessera::exec
