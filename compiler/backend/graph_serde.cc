#include "compiler/backend/graph_serde.h"

#include <algorithm>
#include <cstring>

#include "compiler/backend/tsr.pb.h"
#include "compiler/ir/verifier.h"

namespace tessera::backend {
namespace {

void TypeToProto(const ir::TensorType& t, tsr::Type* p) {
  p->set_dtype(static_cast<uint32_t>(t.dtype));
  for (int64_t d : t.shape) p->add_shape(d);
  if (t.quant) {
    p->set_quantized(true);
    for (float s : t.quant->scale) p->mutable_quant()->add_scale(s);
    for (int32_t z : t.quant->zero_point) p->mutable_quant()->add_zero_point(z);
    p->mutable_quant()->set_axis(t.quant->axis);
  }
}

StatusOr<ir::TensorType> TypeFromProto(const tsr::Type& p, const std::string& what) {
  if (p.dtype() > static_cast<uint32_t>(ir::DType::kBool))
    return DataLossError("{}: bad element type {}", what, p.dtype());
  ir::TensorType t;
  t.dtype = static_cast<ir::DType>(p.dtype());
  t.shape.assign(p.shape().begin(), p.shape().end());
  TSR_RETURN_IF_ERROR(ir::ValidateShape(t.shape, what));
  if (p.quantized()) {
    ir::QuantParams q;
    q.scale.assign(p.quant().scale().begin(), p.quant().scale().end());
    q.zero_point.assign(p.quant().zero_point().begin(), p.quant().zero_point().end());
    q.axis = p.quant().axis();
    t.quant = q;
    TSR_RETURN_IF_ERROR(ir::ValidateQuant(t, what));
  }
  return t;
}

}  // namespace

void GraphToProto(const ir::Graph& g, tsr::Graph* out) {
  out->set_name(g.name());
  for (const ir::Value* v : g.inputs()) {
    tsr::Value* p = out->add_inputs();
    p->set_name(v->name());
    TypeToProto(v->type(), p->mutable_type());
  }
  for (const ir::Value* v : g.constants()) {
    tsr::Constant* p = out->add_constants();
    p->set_name(v->name());
    TypeToProto(v->type(), p->mutable_type());
    p->set_data(v->data().raw(), v->data().nbytes());
  }
  for (const ir::Node* n : g.nodes()) {
    tsr::Node* p = out->add_nodes();
    p->set_op(n->op());
    p->set_name(n->name());
    for (const ir::Value* v : n->inputs()) p->add_inputs(v->name());
    for (const ir::Value* v : n->outputs()) {
      tsr::Value* o = p->add_outputs();
      o->set_name(v->name());
      TypeToProto(v->type(), o->mutable_type());
    }
    for (const auto& [name, value] : n->attrs().map()) {
      tsr::Attr* a = p->add_attrs();
      a->set_name(name);
      switch (ir::KindOf(value)) {
        case ir::AttrKind::kInt: a->set_i(std::get<int64_t>(value)); break;
        case ir::AttrKind::kFloat: a->set_f(std::get<float>(value)); break;
        case ir::AttrKind::kString: a->set_s(std::get<std::string>(value)); break;
        case ir::AttrKind::kInts:
          for (int64_t x : std::get<std::vector<int64_t>>(value)) a->mutable_ints()->add_v(x);
          break;
        case ir::AttrKind::kFloats:
          for (float x : std::get<std::vector<float>>(value)) a->mutable_floats()->add_v(x);
          break;
      }
    }
  }
  for (const ir::Value* v : g.outputs()) out->add_outputs(v->name());
}

StatusOr<std::unique_ptr<ir::Graph>> GraphFromProto(const tsr::Graph& p) {
  auto g = std::make_unique<ir::Graph>(p.name());
  auto find = [&](const std::string& name, const std::string& user) -> StatusOr<ir::Value*> {
    ir::Value* v = g->FindValue(name);
    if (v == nullptr) return DataLossError("graph: {} refers to undefined value '{}'", user, name);
    return v;
  };
  auto fresh = [&](const std::string& name) -> Status {
    if (name.empty() || g->FindValue(name) != nullptr)
      return DataLossError("graph: value name '{}' is empty or reused", name);
    return OkStatus();
  };
  for (const tsr::Value& in : p.inputs()) {
    TSR_RETURN_IF_ERROR(fresh(in.name()));
    TSR_ASSIGN_OR_RETURN(ir::TensorType t, TypeFromProto(in.type(), "input '" + in.name() + "'"));
    g->AddInput(in.name(), t);
  }
  for (const tsr::Constant& c : p.constants()) {
    TSR_RETURN_IF_ERROR(fresh(c.name()));
    TSR_ASSIGN_OR_RETURN(ir::TensorType t, TypeFromProto(c.type(), "constant '" + c.name() + "'"));
    const uint64_t nbytes = static_cast<uint64_t>(ir::NumElements(t.shape)) * ir::DTypeSize(t.dtype);
    if (c.data().size() != nbytes)  // checked before allocating: the declared type may be huge
      return DataLossError("graph: constant '{}' has {} bytes, its type needs {}", c.name(), c.data().size(), nbytes);
    ir::Tensor data = ir::Tensor::Uninitialized(t.dtype, t.shape);
    std::memcpy(data.raw(), c.data().data(), data.nbytes());
    g->AddConstant(c.name(), std::move(data), t.quant);
  }
  for (const tsr::Node& n : p.nodes()) {
    std::vector<ir::Value*> inputs;
    const std::string user = "node '" + n.name() + "' (" + n.op() + ")";
    for (const std::string& name : n.inputs()) {
      TSR_ASSIGN_OR_RETURN(ir::Value * v, find(name, user));
      inputs.push_back(v);
    }
    std::vector<std::string> outs;
    for (const tsr::Value& o : n.outputs()) {
      TSR_RETURN_IF_ERROR(fresh(o.name()));
      if (std::find(outs.begin(), outs.end(), o.name()) != outs.end())
        return DataLossError("graph: {} lists result '{}' twice", user, o.name());
      outs.push_back(o.name());
    }
    ir::Attrs attrs;
    for (const tsr::Attr& a : n.attrs()) {
      switch (a.value_case()) {
        case tsr::Attr::kI: attrs.Set(a.name(), a.i()); break;
        case tsr::Attr::kF: attrs.Set(a.name(), a.f()); break;
        case tsr::Attr::kS: attrs.Set(a.name(), a.s()); break;
        case tsr::Attr::kInts:
          attrs.Set(a.name(), std::vector<int64_t>(a.ints().v().begin(), a.ints().v().end()));
          break;
        case tsr::Attr::kFloats:
          attrs.Set(a.name(), std::vector<float>(a.floats().v().begin(), a.floats().v().end()));
          break;
        case tsr::Attr::VALUE_NOT_SET: return DataLossError("graph: {} attribute '{}' has no value", user, a.name());
      }
    }
    ir::Node* node = g->AddNode(n.op(), inputs, outs, std::move(attrs), n.name());
    for (int i = 0; i < n.outputs_size(); ++i) {
      TSR_ASSIGN_OR_RETURN(ir::TensorType t, TypeFromProto(n.outputs(i).type(), "value '" + n.outputs(i).name() + "'"));
      node->output(i)->set_type(t);
    }
  }
  std::vector<ir::Value*> outputs;
  for (const std::string& name : p.outputs()) {
    TSR_ASSIGN_OR_RETURN(ir::Value * v, find(name, "graph output"));
    outputs.push_back(v);
  }
  g->SetOutputs(outputs);
  TSR_RETURN_IF_ERROR(ir::Verify(*g).WithContext("graph in the artifact"));
  return g;
}

}  // namespace tessera::backend
