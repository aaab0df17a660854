// CPU kernels of the reference executor. A factory inspects a node once
// (attributes, constant weights) and returns a closure that computes the
// node's results from its operands. Results arrive allocated with the node's
// result types but uninitialized: a kernel writes every element. Integer requantization calls isa/alu.h so the
// executor is the bit-exact golden model of the accelerator.
#pragma once

#include <functional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/ir/tensor.h"
#include "isa/base/status.h"

namespace tessera::exec {

using Operands = std::vector<const ir::Tensor*>;
using KernelFn = std::function<Status(const Operands& in, std::vector<ir::Tensor>& out)>;
using KernelFactory = StatusOr<KernelFn> (*)(const ir::Node& node);

// The kernel for a node, or Unimplemented naming the op.
StatusOr<KernelFn> MakeKernel(const ir::Node& node);

// Per-family lookup: nullptr when the family does not handle the op.
KernelFactory FindConvKernel(const std::string& op);
KernelFactory FindMatMulKernel(const std::string& op);
KernelFactory FindElementwiseKernel(const std::string& op);
KernelFactory FindPoolKernel(const std::string& op);
KernelFactory FindTensorKernel(const std::string& op);
KernelFactory FindQuantKernel(const std::string& op);

// Shared helpers.
struct Requant {
  std::vector<int64_t> multiplier;  // 1 or per channel
  int shift = 0;
  int64_t lo = -128, hi = 127;
  int64_t M(int64_t c) const { return multiplier.size() == 1 ? multiplier[0] : multiplier[c]; }
};
Requant ReadRequant(const ir::Node& node);
// Fused float activation bounds (act_min/act_max; absent = +-inf).
void ReadAct(const ir::Node& node, float* lo, float* hi);
// y[i] = alu::Requantize(acc[i], bias, multiplier, shift, lo, hi) for a run of
// elements sharing one channel. Vectorizes when shift is in [1, 63].
void RequantizeRun(const int32_t* acc, int64_t n, int64_t bias, int64_t multiplier, int shift, int64_t lo, int64_t hi,
                   int8_t* y);
// Integer tensor values minus a zero point, as floats (for IgemmExact).
void ToShiftedFloat(const ir::Tensor& t, int64_t zero_point, float* out);
// Converts in-order elements of any tensor to float.
void ToFloat(const ir::Tensor& t, float* out);

}  // namespace tessera::exec
