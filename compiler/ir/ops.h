// The IR's operator set. Each OpDef states operand counts, the attributes
// with their kinds, and a type-inference function that checks operand types
// and computes result types. Shape inference, the verifier, the parser and
// the executor all use this one table; docs/compiler.md lists it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/attr.h"
#include "compiler/ir/type.h"
#include "isa/base/status.h"

namespace tessera::ir {

class Node;

struct AttrDef {
  std::string name;
  AttrKind kind;
  bool required = false;
};

// Computes result types. `out` arrives holding the node's currently recorded
// result types, so ops whose result type is declared rather than derived
// (quantize: the target scale; qconv: the output scale) can keep and check it.
using InferFn = Status (*)(const Node& node, std::vector<TensorType>* out);

struct OpDef {
  std::string name;
  int min_inputs = 0;
  int max_inputs = 0;  // -1: variadic
  int num_outputs = 1;
  std::vector<AttrDef> attrs;
  InferFn infer = nullptr;
  std::string summary;
  const AttrDef* FindAttr(std::string_view attr) const;
};

const OpDef* FindOp(std::string_view name);
const std::vector<OpDef>& AllOps();

// Checks operand counts and attribute names/kinds, then infers result types.
// Errors name the node.
Status InferNodeTypes(const Node& node, std::vector<TensorType>* out);

}  // namespace tessera::ir
