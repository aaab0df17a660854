// Quantization kernels: quantize / dequantize at fp32 boundaries (round half
// to even, as ONNX QuantizeLinear), and the int8 golden-model ops qadd and
// requantize, written as sequences of isa/alu.h primitives.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "compiler/exec/kernel.h"
#include "isa/alu.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Tensor;

// Index of the quantization channel of element i, for per-axis parameters.
struct AxisIndex {
  int64_t inner = 1, dim = 1;
  explicit AxisIndex(const ir::TensorType& t) {
    if (!t.quant || !t.quant->per_axis()) return;
    dim = t.shape[t.quant->axis];
    for (int d = t.quant->axis + 1; d < t.rank(); ++d) inner *= t.shape[d];
  }
  int64_t operator()(int64_t i) const { return dim == 1 ? 0 : (i / inner) % dim; }
};

// q = saturate(round_half_even(x / scale) + zero_point), in float arithmetic.
StatusOr<KernelFn> MakeQuantize(const ir::Node& node) {
  const ir::TensorType t = node.output()->type();
  const AxisIndex ax(t);
  return KernelFn([t, ax](const Operands& in, std::vector<Tensor>& out) -> Status {
    const float* x = in[0]->data<float>();
    const double lo = ir::DTypeMin(t.dtype), hi = ir::DTypeMax(t.dtype);
    for (int64_t i = 0; i < in[0]->numel(); ++i) {
      const int64_t c = ax(i);
      double q = std::nearbyint(x[i] / t.quant->scale[c]) + t.quant->zero_point[c];
      if (std::isnan(q)) q = t.quant->zero_point[c];
      q = std::clamp(q, lo, hi);
      switch (t.dtype) {
        case DType::kI8: out[0].data<int8_t>()[i] = static_cast<int8_t>(q); break;
        case DType::kU8: out[0].data<uint8_t>()[i] = static_cast<uint8_t>(q); break;
        default: out[0].data<int32_t>()[i] = static_cast<int32_t>(q); break;
      }
    }
    return OkStatus();
  });
}

// x = (q - zero_point) * scale, in float arithmetic.
StatusOr<KernelFn> MakeDequantize(const ir::Node& node) {
  const ir::TensorType t = node.input(0)->type();
  const AxisIndex ax(t);
  return KernelFn([t, ax](const Operands& in, std::vector<Tensor>& out) -> Status {
    float* y = out[0].data<float>();
    const Tensor& q = *in[0];
    for (int64_t i = 0; i < q.numel(); ++i) {
      const int64_t c = ax(i);
      const int64_t v = static_cast<int64_t>(q.GetAsDouble(i)) - t.quant->zero_point[c];
      y[i] = static_cast<float>(v) * t.quant->scale[c];
    }
    return OkStatus();
  });
}

// qadd: y = MIN(MAX(SHR(ADD(MULSHR(a, Ma, sa), MULSHR(b, Mb, sb)), post), lo), hi).
// qmul: the ALU's MUL (exact: |a * b| <= 2^14), MULSHR, MAX, MIN per element;
// b repeats over the h*w pixels of each (image, channel) when it is [N, C, 1, 1].
StatusOr<KernelFn> MakeQMul(const ir::Node& node) {
  const int64_t m = node.attrs().Int("multiplier"), s = node.attrs().Int("shift"),
                lo = node.attrs().Int("act_min", -128), hi = node.attrs().Int("act_max", 127);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int8_t* a = in[0]->data<int8_t>();
    const int8_t* b = in[1]->data<int8_t>();
    int8_t* y = out[0].data<int8_t>();
    const int64_t n = in[0]->numel(), inner = n / std::max<int64_t>(in[1]->numel(), 1);
    for (int64_t i = 0; i < n; ++i) {
      int64_t t = alu::Apply(AluOp::kMul, a[i], b[i / inner], 0, 32);
      t = alu::Apply(AluOp::kMulShr, t, m, s, 32);
      t = alu::Apply(AluOp::kMax, t, lo, 0, 32);
      y[i] = static_cast<int8_t>(alu::Apply(AluOp::kMin, t, hi, 0, 32));
    }
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeQAdd(const ir::Node& node) {
  const auto m = node.attrs().Ints("multiplier"), s = node.attrs().Ints("shift");
  const int64_t post = node.attrs().Int("post_shift"), lo = node.attrs().Int("act_min", -128),
                hi = node.attrs().Int("act_max", 127);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int8_t* a = in[0]->data<int8_t>();
    const int8_t* b = in[1]->data<int8_t>();
    int8_t* y = out[0].data<int8_t>();
    // Locals: int8 stores may alias anything, so captured values would be reloaded every element.
    const int64_t m0 = m[0], m1 = m[1], s0 = s[0], s1 = s[1], ps = post, l = lo, h = hi;
    const int64_t n = in[0]->numel();
    auto run = [&](auto in_range) {
      // Stating the shifts' range lets the compiler drop the alu:: helpers' branches and vectorize.
      if constexpr (decltype(in_range)::value) {
        if (s0 < 1 || s0 > 63 || s1 < 1 || s1 > 63 || ps < 1 || ps > 31) __builtin_unreachable();
      }
      for (int64_t i = 0; i < n; ++i) {
        int64_t ta = alu::Apply(AluOp::kMulShr, a[i], m0, s0, 32);
        const int64_t tb = alu::Apply(AluOp::kMulShr, b[i], m1, s1, 32);
        ta = alu::Apply(AluOp::kAdd, ta, tb, 0, 32);
        ta = alu::Apply(AluOp::kShr, ta, ps, 0, 32);
        ta = alu::Apply(AluOp::kMax, ta, l, 0, 32);
        y[i] = static_cast<int8_t>(alu::Apply(AluOp::kMin, ta, h, 0, 32));
      }
    };
    if (s0 >= 1 && s0 <= 63 && s1 >= 1 && s1 <= 63 && ps >= 1 && ps <= 31)
      run(std::true_type{});
    else
      run(std::false_type{});
    return OkStatus();
  });
}

// qhard_sigmoid, qhard_swish and per-tensor requantize of i8: the op's ALU
// program, element by element (the accelerator runs the same steps).
StatusOr<KernelFn> MakeAluProgram(const ir::Node& node) {
  const quant::AluProgram prog = AluProgramOf(node);
  return KernelFn([prog](const Operands& in, std::vector<Tensor>& out) -> Status {
    const int8_t* x = in[0]->data<int8_t>();
    int8_t* y = out[0].data<int8_t>();
    for (int64_t i = 0; i < in[0]->numel(); ++i) y[i] = static_cast<int8_t>(quant::RunAluProgram(prog, x[i]));
    return OkStatus();
  });
}

// requantize: y = MIN(MAX(MULSHR(x, M[c], shift), lo), hi), c = index along axis 1.
StatusOr<KernelFn> MakeRequantize(const ir::Node& node) {
  const Requant rq = ReadRequant(node);
  if (node.input(0)->type().dtype == DType::kI8 && rq.multiplier.size() == 1) return MakeAluProgram(node);
  const ir::Shape s = node.input(0)->type().shape;
  const int64_t channels = s.size() >= 2 ? s[1] : 1;
  int64_t inner = 1;
  for (size_t d = 2; d < s.size(); ++d) inner *= s[d];
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const Tensor& x = *in[0];
    int8_t* y = out[0].data<int8_t>();
    const int shift = rq.shift;
    const int64_t lo = rq.lo, hi = rq.hi, per_channel = rq.multiplier.size() > 1;
    for (int64_t i0 = 0; i0 < x.numel(); i0 += inner) {
      const int64_t mult = rq.M(per_channel ? (i0 / inner) % channels : 0);
      if (x.dtype() == DType::kI32) {
        RequantizeRun(x.data<int32_t>() + i0, inner, 0, mult, shift, lo, hi, y + i0);
      } else {
        const int8_t* xs = x.data<int8_t>() + i0;
        for (int64_t i = 0; i < inner; ++i)
          y[i0 + i] = static_cast<int8_t>(alu::Requantize(xs[i], 0, mult, shift, lo, hi, 32));
      }
    }
    return OkStatus();
  });
}

}  // namespace

quant::AluProgram AluProgramOf(const ir::Node& node) {
  const ir::Attrs& a = node.attrs();
  const int64_t lo = a.Int("act_min", -128), hi = a.Int("act_max", 127);
  if (node.op() == "requantize") {
    TSR_CHECK(node.input(0)->type().dtype == DType::kI8 && a.Ints("multiplier").size() == 1,
              "{}: not an element-wise requantize", node.Label());
    return quant::RequantizeProgram(a.Ints("multiplier")[0], a.Int("shift"), lo, hi);
  }
  TSR_CHECK(node.op() == "qhard_sigmoid" || node.op() == "qhard_swish", "{} has no ALU program", node.op());
  quant::HardActParams h;
  h.frac_bits = a.Int("frac_bits"), h.offset = a.Int("offset"), h.limit = a.Int("limit");
  h.multiplier = a.Int("multiplier"), h.shift = a.Int("shift");
  h.act_min = lo, h.act_max = hi;
  return quant::HardActProgram(h, node.op() == "qhard_swish");
}

KernelFactory FindQuantKernel(const std::string& op) {
  if (op == "quantize") return MakeQuantize;
  if (op == "dequantize") return MakeDequantize;
  if (op == "qadd") return MakeQAdd;
  if (op == "qmul") return MakeQMul;
  if (op == "requantize") return MakeRequantize;
  if (op == "qhard_sigmoid" || op == "qhard_swish") return MakeAluProgram;
  return nullptr;
}

}  // namespace tessera::exec
