// Helpers shared by the per-family type-inference files (ops_*.cc).
#pragma once

#include <fmt/format.h>

#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"

namespace tessera::ir::opdefs {

void RegisterNnOps(std::vector<OpDef>* ops);
void RegisterMathOps(std::vector<OpDef>* ops);
void RegisterReduceOps(std::vector<OpDef>* ops);
void RegisterTensorOps(std::vector<OpDef>* ops);
void RegisterShapeOps(std::vector<OpDef>* ops);
void RegisterRnnOps(std::vector<OpDef>* ops);
void RegisterQuantOps(std::vector<OpDef>* ops);
void RegisterQLinearOps(std::vector<OpDef>* ops);

// ONNX Conv's attributes, shared by every convolution-shaped op:
// `const auto [strides, pads, dil, group] = ConvAttrDefs{};`.
struct ConvAttrDefs {
  AttrDef strides{"strides", AttrKind::kInts}, pads{"pads", AttrKind::kInts}, dil{"dilations", AttrKind::kInts},
      group{"group", AttrKind::kInt};
};

// Error prefixed with the node description.
template <typename... Args>
Status NodeError(const Node& n, fmt::format_string<Args...> f, Args&&... args) {
  return InvalidArgumentError("{}: {}", n.Describe(), fmt::format(f, std::forward<Args>(args)...));
}

inline const TensorType& In(const Node& n, int i) { return n.input(i)->type(); }
std::string Operand(const Node& n, int i);  // "input 1 '%w' (f32[3,3])"

Status ExpectRank(const Node& n, int i, int rank);
Status ExpectDType(const Node& n, int i, DType t);
Status ExpectFloat(const Node& n, int i);
// Input i must not carry quantization parameters (raw integer or float).
Status ExpectUnquantized(const Node& n, int i);
// Input i, if quantized, must be quantized per-tensor (data movement keeps its parameters).
Status PerTensorOnly(const Node& n, int i);
// Every operand is an unquantized f32 tensor.
Status ExpectFloatOperands(const Node& n);
// An 8-bit integer type (i8 or u8).
bool IsInt8(DType t);
// Optional input i (absent: ok) must be an i32 bias of shape [channels].
Status ExpectBias(const Node& n, int i, int64_t channels);
// Input i must be i8 quantized per-tensor with zero point 0.
Status ExpectSymmetricI8(const Node& n, int i);
// Operand i must be i8 quantized per-tensor (any zero point).
Status ExpectPerTensorI8(const Node& n, int i);
// Result r must be declared i8 quantized per-tensor (any zero point).
Status ExpectDeclaredPerTensorI8(const Node& n, const std::vector<TensorType>& out, int r);
// Result r must be declared i8 per-tensor with zero point 0; copies it.
Status ExpectDeclaredSymmetricI8(const Node& n, const std::vector<TensorType>& out, int r);
// numpy broadcasting of two shapes.
Status Broadcast(const Node& n, const Shape& a, const Shape& b, Shape* out);
// Normalizes a possibly negative axis into [0, rank).
Status NormalizeAxis(const Node& n, const char* what, int64_t axis, int rank, int* out);

// Result shape of conv-like node n (inputs x[N,C,H,W], w[M,C/group,kh,kw],
// optional bias [M]; attributes strides, pads, dilations, group).
Status ConvShape(const Node& n, Shape* out);
// numpy matmul result shape.
Status MatMulShape(const Node& n, Shape a, Shape b, Shape* out);

// Spatial geometry of 2-D windows (conv, pools). pads = [top, left, bottom, right].
struct Window2D {
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool ceil_mode = false;
};
Status ReadWindow(const Node& n, bool needs_kernel, Window2D* w);
// Output size along one spatial axis; error if not positive.
Status WindowOutput(const Node& n, const Window2D& w, int axis, int64_t in, int64_t* out);

}  // namespace tessera::ir::opdefs
