// Binary elementwise kernels with numpy broadcasting: arithmetic (float and
// raw integers; integers wrap, division truncates, mod follows ONNX), min/max,
// pow, prelu, comparisons and logical ops (bool results), and where.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;

enum class Op { kAdd, kSub, kMul, kDiv, kMin, kMax, kMod, kPow, kPRelu, kEq, kLt, kLe, kGt, kGe, kAnd, kOr, kXor };

Op ParseOp(const std::string& op) {
  static const std::pair<const char*, Op> kOps[] = {
      {"add", Op::kAdd}, {"sub", Op::kSub},       {"mul", Op::kMul},    {"div", Op::kDiv},          {"min", Op::kMin},
      {"max", Op::kMax}, {"mod", Op::kMod},       {"pow", Op::kPow},    {"prelu", Op::kPRelu},      {"equal", Op::kEq},
      {"less", Op::kLt}, {"less_equal", Op::kLe}, {"greater", Op::kGt}, {"greater_equal", Op::kGe}, {"and", Op::kAnd},
      {"or", Op::kOr},   {"xor", Op::kXor}};
  for (const auto& [name, op_] : kOps)
    if (op == name) return op_;
  TSR_CHECK(false, "no binary kernel for '{}'", op);
  return Op::kAdd;
}

bool IsCompare(Op op) { return op >= Op::kEq; }

// One arithmetic step on T; sets *bad on integer division by zero.
template <typename T>
T Arith(Op op, T a, T b, bool fmod, bool* bad) {
  if constexpr (std::is_same_v<T, float>) {
    switch (op) {
      case Op::kAdd: return a + b;
      case Op::kSub: return a - b;
      case Op::kMul: return a * b;
      case Op::kDiv: return a / b;
      case Op::kMin: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
      case Op::kMax: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
      case Op::kMod: return std::fmod(a, b);
      case Op::kPRelu: return a < 0 ? a * b : a;
      default: return 0;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    const U x = static_cast<U>(a), z = static_cast<U>(b);
    switch (op) {
      case Op::kAdd: return static_cast<T>(static_cast<U>(x + z));
      case Op::kSub: return static_cast<T>(static_cast<U>(x - z));
      case Op::kMul: return static_cast<T>(static_cast<U>(x * z));
      case Op::kMin: return std::min(a, b);
      case Op::kMax: return std::max(a, b);
      case Op::kDiv:
      case Op::kMod: {
        if (b == 0 || (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1))) {
          *bad = true;
          return 0;
        }
        if (op == Op::kDiv) return static_cast<T>(a / b);
        T r = static_cast<T>(a % b);
        if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);  // sign of the divisor
        return r;
      }
      default: return 0;
    }
  }
}

template <typename T>
bool Compare(Op op, T a, T b) {
  switch (op) {
    case Op::kEq: return a == b;
    case Op::kLt: return a < b;
    case Op::kLe: return a <= b;
    case Op::kGt: return a > b;
    case Op::kGe: return a >= b;
    case Op::kAnd: return a && b;
    case Op::kOr: return a || b;
    case Op::kXor: return static_cast<bool>(a) != static_cast<bool>(b);
    default: return false;
  }
}

StatusOr<KernelFn> MakeBinary(const ir::Node& node) {
  const Op op = ParseOp(node.op());
  const Shape os = node.output()->type().shape;
  const std::array<std::vector<int64_t>, 2> strides = {BroadcastStrides(node.input(0)->type().shape, os),
                                                       BroadcastStrides(node.input(1)->type().shape, os)};
  const bool same = node.input(0)->type().shape == os && node.input(1)->type().shape == os;
  const bool fmod = node.attrs().Int("fmod", 0) != 0;
  float lo, hi;
  ReadAct(node, &lo, &hi);
  const bool clamp = lo > -INFINITY || hi < INFINITY;
  const DType bt = node.input(1)->type().dtype;
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    bool bad = false;
    VisitDType(in[0]->dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* a = in[0]->data<T>();
      if (op == Op::kPow) {  // the exponent may have another type
        std::vector<double> b(in[1]->numel());
        for (int64_t i = 0; i < in[1]->numel(); ++i) b[i] = in[1]->GetAsDouble(i);
        T* y = out[0].data<T>();
        ForEachBroadcast<2>(os, strides, [&](int64_t o, const std::array<int64_t, 2>& k) {
          if constexpr (std::is_same_v<T, float>)
            y[o] = bt == DType::kF32 ? std::pow(a[k[0]], static_cast<float>(b[k[1]]))
                                     : static_cast<float>(std::pow(static_cast<double>(a[k[0]]), b[k[1]]));
          else
            y[o] = static_cast<T>(std::pow(static_cast<double>(a[k[0]]), b[k[1]]));
        });
        return;
      }
      const T* b = in[1]->data<T>();
      if (IsCompare(op)) {
        bool* y = out[0].data<bool>();
        ForEachBroadcast<2>(os, strides,
                            [&](int64_t o, const std::array<int64_t, 2>& k) { y[o] = Compare(op, a[k[0]], b[k[1]]); });
        return;
      }
      if constexpr (!std::is_same_v<T, bool>) {
        T* y = out[0].data<T>();
        auto act = [&](T v) -> T {
          if (!clamp) return v;
          if constexpr (std::is_same_v<T, float>)
            return std::min(std::max(v, lo), hi);
          else
            return static_cast<T>(std::clamp<double>(v, std::ceil(lo), std::floor(hi)));
        };
        if (same) {
          for (int64_t i = 0; i < out[0].numel(); ++i) y[i] = act(Arith(op, a[i], b[i], fmod, &bad));
          return;
        }
        ForEachBroadcast<2>(os, strides, [&](int64_t o, const std::array<int64_t, 2>& k) {
          y[o] = act(Arith(op, a[k[0]], b[k[1]], fmod, &bad));
        });
      }
    });
    if (bad) return InvalidArgumentError("integer division by zero or overflow");
    return OkStatus();
  });
}

StatusOr<KernelFn> MakeWhere(const ir::Node& node) {
  const Shape os = node.output()->type().shape;
  std::array<std::vector<int64_t>, 3> strides;
  for (int i = 0; i < 3; ++i) strides[i] = BroadcastStrides(node.input(i)->type().shape, os);
  const int es = ir::DTypeSize(node.output()->type().dtype);
  return KernelFn([=](const Operands& in, std::vector<Tensor>& out) -> Status {
    const bool* c = in[0]->data<bool>();
    const uint8_t *x = in[1]->raw(), *y = in[2]->raw();
    uint8_t* o = out[0].raw();
    ForEachBroadcast<3>(os, strides, [&](int64_t i, const std::array<int64_t, 3>& k) {
      std::memcpy(o + i * es, c[k[0]] ? x + k[1] * es : y + k[2] * es, es);
    });
    return OkStatus();
  });
}

}  // namespace

KernelFactory FindElementwiseKernel(const std::string& op) {
  static const char* kBinary[] = {"add",     "sub",           "mul",   "div",   "min",  "max",
                                  "mod",     "pow",           "prelu", "equal", "less", "less_equal",
                                  "greater", "greater_equal", "and",   "or",    "xor"};
  for (const char* b : kBinary)
    if (op == b) return MakeBinary;
  if (op == "where") return MakeWhere;
  return nullptr;
}

}  // namespace tessera::exec
