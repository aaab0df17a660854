// CPU kernels of the reference executor. A factory inspects a node once
// (attributes, constant weights) and returns a closure that computes the
// node's results from its operands. Results arrive allocated with the node's
// result types but uninitialized: a kernel writes every element. Integer requantization calls isa/alu.h so the
// executor is the bit-exact golden model of the accelerator.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "compiler/quant/alu_program.h"
#include "isa/base/status.h"

namespace tessera::exec {

using Operands = std::vector<const ir::Tensor*>;
using KernelFn = std::function<Status(const Operands& in, std::vector<ir::Tensor>& out)>;
using KernelFactory = StatusOr<KernelFn> (*)(const ir::Node& node);

// The kernel for a node, or Unimplemented naming the op.
StatusOr<KernelFn> MakeKernel(const ir::Node& node);

// Constant folding (the constant-folding pass and the importer): the results
// of a node whose operands are all constants, computed with its kernel;
// nullopt when the node is not folded (an operand is not constant, it has no
// operands, it is a `dequantize` -- a dequantized constant marks quantized
// weights -- or its results exceed 2^24 elements).
StatusOr<std::optional<std::vector<ir::Tensor>>> EvaluateConstantNode(const ir::Node& node);

// Per-family lookup: nullptr when the family does not handle the op.
KernelFactory FindConvKernel(const std::string& op);
KernelFactory FindQuantConvKernel(const std::string& op);
KernelFactory FindMatMulKernel(const std::string& op);
KernelFactory FindElementwiseKernel(const std::string& op);
KernelFactory FindPoolKernel(const std::string& op);
KernelFactory FindTensorKernel(const std::string& op);
KernelFactory FindQuantKernel(const std::string& op);
KernelFactory FindUnaryKernel(const std::string& op);
KernelFactory FindReduceKernel(const std::string& op);
KernelFactory FindNormKernel(const std::string& op);
KernelFactory FindShapeKernel(const std::string& op);
KernelFactory FindRnnKernel(const std::string& op);
// resize (resize_kernel.cc), found through FindShapeKernel.
StatusOr<KernelFn> MakeResize(const ir::Node& node);

// Shared helpers.
struct Requant {
  std::vector<int64_t> multiplier;  // 1 or per channel
  int shift = 0;
  int64_t lo = -128, hi = 127;
  int64_t zero_point = 0;  // the result's (qconv/qmatmul; 0 for the other ops)
  int64_t M(int64_t c) const { return multiplier.size() == 1 ? multiplier[0] : multiplier[c]; }
};
Requant ReadRequant(const ir::Node& node);
// The ALU program (compiler/quant/alu_program.h) of an element-wise int8 op:
// qhard_sigmoid, qhard_swish, or a requantize of i8 with one multiplier.
quant::AluProgram AluProgramOf(const ir::Node& node);
// Fused float activation bounds (act_min/act_max; absent = +-inf).
void ReadAct(const ir::Node& node, float* lo, float* hi);
// y[i] = alu::RequantizeZp(acc[i], bias, multiplier, shift, zp, lo, hi) for a
// run of elements sharing one channel. Vectorizes when shift is in [1, 63].
void RequantizeRun(const int32_t* acc, int64_t n, int64_t bias, int64_t multiplier, int shift, int64_t lo, int64_t hi,
                   int8_t* y, int64_t zp = 0);
// Integer tensor values minus a zero point, as floats (for IgemmExact).
void ToShiftedFloat(const ir::Tensor& t, int64_t zero_point, float* out);
// Converts in-order elements of any tensor to float.
void ToFloat(const ir::Tensor& t, float* out);

// Calls f(T{}) with the C++ element type of `t` (bool for kBool).
template <typename F>
void VisitDType(ir::DType t, F&& f) {
  switch (t) {
    case ir::DType::kF32: f(float{}); break;
    case ir::DType::kI8: f(int8_t{}); break;
    case ir::DType::kU8: f(uint8_t{}); break;
    case ir::DType::kI32: f(int32_t{}); break;
    case ir::DType::kI64: f(int64_t{}); break;
    case ir::DType::kBool: f(bool{}); break;
  }
}

// Element strides of an operand of shape `in` inside the numpy-broadcast
// result shape `out` (0 along broadcast axes; `in` is aligned to the right).
std::vector<int64_t> BroadcastStrides(const ir::Shape& in, const ir::Shape& out);

// Calls f(o, offsets) for every element o of the result of shape `out`, with
// offsets[i] the matching element of operand i (strides from BroadcastStrides).
template <size_t N, typename F>
void ForEachBroadcast(const ir::Shape& out, const std::array<std::vector<int64_t>, N>& strides, F f) {
  const int r = static_cast<int>(out.size());
  const int64_t total = ir::NumElements(out);
  if (total == 0) return;
  std::array<int64_t, N> off{};
  if (r == 0) {
    f(int64_t{0}, off);
    return;
  }
  const int64_t inner = out[r - 1];
  std::vector<int64_t> idx(r, 0);
  for (int64_t base = 0; base < total; base += inner) {
    std::array<int64_t, N> start{};
    for (size_t k = 0; k < N; ++k)
      for (int d = 0; d < r - 1; ++d) start[k] += idx[d] * strides[k][d];
    for (int64_t i = 0; i < inner; ++i) {
      for (size_t k = 0; k < N; ++k) off[k] = start[k] + i * strides[k][r - 1];
      f(base + i, off);
    }
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace tessera::exec
