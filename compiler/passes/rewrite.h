// Small rewriting helpers shared by passes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tessera::passes {

// Redirects the uses of `from` (the only result of `dead`) to `to` and
// removes `dead`. A graph output keeps its name: if `from` was one and `to`
// is an op result that is not itself a graph output, `to` takes the name.
void Forward(ir::Graph& g, ir::Node* dead, ir::Value* from, ir::Value* to);

// True when `v` has exactly one use, by a node (not a graph output).
bool SingleNodeUse(const ir::Graph& g, const ir::Value* v);

// The unique user node of v, or nullptr.
ir::Node* OnlyUser(const ir::Graph& g, const ir::Value* v);

// A batch_norm's per-channel scale gamma / sqrt(var + epsilon); its
// gamma and var inputs are f32 constants.
std::vector<float> BatchNormScale(const ir::Node& bn);

// The channels a gather on axis 1 (or -3) of a rank-4 `dtype` value takes:
// its constant 1-D indices, negative ones resolved. nullopt for any other
// node, and when an index is out of range (user input: the CPU kernel
// reports it at run time).
std::optional<std::vector<int64_t>> ChannelIndices(const ir::Node& n, ir::DType dtype);

// A conv's attributes for unit strides and dilations, no padding and `group`
// groups (the 1x1 convs that rewrites build).
ir::Attrs UnitConvAttrs(int64_t group);

// A 1x1 qconv before `before` taking channels idx of rank-4 int8 x (0/1
// weights) into the parameters `to`: y[k] = clamp(MULSHR(x[idx[k]] - z_x,
// s_x / s_to) + z_to), a channel gather and a requantization with zero points
// in one GEMM pass. nullptr if s_x / s_to has no fixed-point form.
ir::Node* AddSelectionConv(ir::Graph& g, ir::Value* x, const std::vector<int64_t>& idx, const ir::QuantParams& to,
                           const std::string& name, const std::string& layer, ir::Node* before);

// n is such a qconv with identity weights (all channels in order, no bias)
// and the fixed point of its scales: a requantization of its operand, zero
// points included.
bool IsIdentitySelection(const ir::Node& n);

}  // namespace tessera::passes
