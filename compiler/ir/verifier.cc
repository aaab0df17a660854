#include "compiler/ir/verifier.h"

#include <unordered_set>

#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"

namespace tessera::ir {

Status Verify(const Graph& g) {
  std::unordered_set<const Value*> defined;
  for (const Value* in : g.inputs()) {
    if (in->is_constant() || in->producer())
      return InvalidArgumentError("graph input '%{}' is not a plain input", in->name());
    TSR_RETURN_IF_ERROR(ValidateShape(in->type().shape, fmt::format("graph input '%{}'", in->name())));
    TSR_RETURN_IF_ERROR(ValidateQuant(in->type(), fmt::format("graph input '%{}'", in->name())));
    defined.insert(in);
  }
  for (const Value* c : g.constants()) {
    const std::string what = fmt::format("constant '%{}'", c->name());
    if (c->data().dtype() != c->type().dtype || c->data().shape() != c->type().shape)
      return InvalidArgumentError("{}: data is {}{} but the type is {}", what, DTypeName(c->data().dtype()),
                                  ShapeToString(c->data().shape()), TypeToString(c->type()));
    TSR_RETURN_IF_ERROR(ValidateQuant(c->type(), what));
    defined.insert(c);
  }
  std::vector<TensorType> inferred;
  for (const Node* n : g.nodes()) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Value* v = n->input(i);
      if (!defined.count(v))
        return InvalidArgumentError("{}: input {} '%{}' is used before it is defined", n->Describe(), i, v->name());
      int uses = 0;
      for (const Node* u : v->users()) uses += u == n;
      int expected = 0;
      for (const Value* w : n->inputs()) expected += w == v;
      TSR_CHECK(uses == expected, "use list of '{}' is out of sync", v->name());
    }
    TSR_RETURN_IF_ERROR(InferNodeTypes(*n, &inferred));
    for (int i = 0; i < n->num_outputs(); ++i) {
      const Value* out = n->output(i);
      TSR_CHECK(out->producer() == n && out->producer_index() == i, "producer link of '{}' is broken", out->name());
      if (out->type() != inferred[i])
        return InvalidArgumentError("{}: result '%{}' is recorded as {} but infers as {}", n->Describe(), out->name(),
                                    TypeToString(out->type()), TypeToString(inferred[i]));
      defined.insert(out);
    }
  }
  if (g.outputs().empty()) return InvalidArgumentError("graph '{}' has no outputs", g.name());
  for (const Value* out : g.outputs())
    if (!defined.count(out)) return InvalidArgumentError("graph output '%{}' is not defined", out->name());
  return OkStatus();
}

}  // namespace tessera::ir
