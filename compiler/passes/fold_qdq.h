// Internals of the fold-qdq pass shared by its files (fold_qdq*.cc).
#pragma once

#include <cmath>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"

namespace tessera::passes::qdq {

// The quantized operand behind v = dequantize(q), or nullptr.
ir::Value* Dq(const ir::Value* v);
// i8, per-tensor, zero point 0.
bool SymI8(const ir::TensorType& t);
// i8, per-tensor, any zero point (qconv/qmatmul activations).
bool PerTensorI8(const ir::TensorType& t);
// The per-tensor zero point of a quantized type.
int64_t ZeroPoint(const ir::TensorType& t);
float Scale(const ir::Value* v);
// Integer activation bounds in the output scale for a fused float clamp:
// round_half_even(bound / scale) + zero_point clamped to int8; absent bounds
// give -128/127.
void ActBounds(const ir::Node& op, float scale, int64_t zero_point, int64_t* lo, int64_t* hi);
// Sets act_min/act_max to lo/hi where they narrow the int8 range.
void SetActBounds(ir::Attrs* a, int64_t lo, int64_t hi);
// int32 bias for per-channel accumulator scales sx * sw[c]: a float constant
// (rounded half to even) or dequantize(int32 constant). False if neither.
bool QuantizeBias(const ir::Value* bias, double sx, const std::vector<float>& sw, std::vector<int32_t>* out);

// Replaces quantize node q by a new node (op, inputs, attrs) whose result takes
// q's name and declared type; removes the nodes this leaves dead.
ir::Node* ReplaceQuantize(ir::Graph& g, ir::Node* q, const std::string& op, const std::vector<ir::Value*>& inputs,
                          ir::Attrs attrs);
// requantize of a symmetric int8 value to another scale (nullptr if the
// rescale cannot be represented).
ir::Value* Requantize(ir::Graph& g, ir::Node* before, ir::Value* x, const ir::QuantParams& to, int64_t lo = -128,
                      int64_t hi = 127);

// Retypes the uint8 activations that can change to int8 (zero point - 128);
// returns how many values changed (fold_qdq_u8.cc).
int RetypeU8(ir::Graph& g);

// Pattern rewrites for q = quantize(p(...)); true when they rewrote.
// GEMM-based ops (fold_qdq_gemm.cc).
bool FoldConv(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldGemm(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldBatchMatMul(ir::Graph& g, ir::Node* q, ir::Node* p);
// Other arithmetic (fold_qdq_arith.cc).
bool FoldClamp(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldHardAct(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldAdd(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldMul(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldAvgPool(ir::Graph& g, ir::Node* q, ir::Node* p);
// Data movement (fold_qdq_movement.cc); IsMovement names the ops FoldMovement takes.
bool IsMovement(const std::string& op);
bool FoldMovement(ir::Graph& g, ir::Node* q, ir::Node* p);
bool HoistQuantize(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldConcat(ir::Graph& g, ir::Node* q, ir::Node* p);
bool FoldRoundTrip(ir::Graph& g, ir::Node* q, ir::Node* p);
// qlinear_conv / qlinear_matmul with int8 activations (any per-tensor zero
// point) and constant symmetric int8 weights -> qconv / qmatmul.
bool FoldQLinear(ir::Graph& g, ir::Node* n);

}  // namespace tessera::passes::qdq
