#include "compiler/onnx/context.h"

#include <cstring>

#include "compiler/exec/kernel.h"
#include "compiler/ir/ops.h"
#include "onnx/defs/schema.h"

namespace tessera::frontend {

std::string ImportContext::Describe(const onnx::NodeProto& n) {
  if (!n.name().empty()) return fmt::format("node '{}' ({})", n.name(), n.op_type());
  if (n.output_size() > 0) return fmt::format("node producing '{}' ({})", n.output(0), n.op_type());
  return fmt::format("node ({})", n.op_type());
}

int ImportContext::Version(const onnx::NodeProto& n) const {
  const onnx::OpSchema* s = onnx::OpSchemaRegistry::Instance()->GetSchema(n.op_type(), opset_, n.domain());
  return s ? s->SinceVersion() : opset_;
}

ir::Value* ImportContext::Lookup(const std::string& onnx_name) const {
  auto it = values_.find(onnx_name);
  return it == values_.end() ? nullptr : it->second;
}

StatusOr<ir::Value*> ImportContext::Input(const onnx::NodeProto& n, int i) {
  if (!HasInput(n, i)) return Error(n, "missing required input {}", i);
  ir::Value* v = Lookup(n.input(i));
  if (!v)
    return Error(n, "input {} '{}' is not defined before this node (missing, or the graph has a cycle)", i, n.input(i));
  return v;
}

StatusOr<std::vector<ir::Value*>> ImportContext::Inputs(const onnx::NodeProto& n, int count) {
  std::vector<ir::Value*> ins;
  for (int i = 0; i < count; ++i) {
    TSR_ASSIGN_OR_RETURN(ir::Value * v, Input(n, i));
    ins.push_back(v);
  }
  return ins;
}

Status ImportContext::AppendOptionalInput(const onnx::NodeProto& n, int i, std::vector<ir::Value*>* ins) {
  if (!HasInput(n, i)) return OkStatus();
  TSR_ASSIGN_OR_RETURN(ir::Value * v, Input(n, i));
  ins->push_back(v);
  return OkStatus();
}

StatusOr<const ir::Tensor*> ImportContext::ConstInput(const onnx::NodeProto& n, int i, const char* what) {
  TSR_ASSIGN_OR_RETURN(ir::Value * v, Input(n, i));
  if (!v->is_constant())
    return Unsupported(n, "input {} '{}' ({}) must be a constant (initializer or Constant node)", i, n.input(i), what);
  return &v->data();
}

StatusOr<std::vector<int64_t>> ImportContext::ConstInts(const onnx::NodeProto& n, int i, const char* what) {
  TSR_ASSIGN_OR_RETURN(const ir::Tensor* t, ConstInput(n, i, what));
  if (t->dtype() == ir::DType::kF32) return Error(n, "input {} '{}' ({}) must be integer", i, n.input(i), what);
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t->numel(); ++k)
    out.push_back(t->dtype() == ir::DType::kI64 ? t->data<int64_t>()[k] : static_cast<int64_t>(t->GetAsDouble(k)));
  return out;
}

std::string ImportContext::NewName(const std::string& base) {
  std::string name = graph_->UniqueName(base);
  int k = 0;
  while (onnx_names_.count(name) || graph_->FindValue(name))
    name = graph_->UniqueName(base + "_" + std::to_string(++k));
  return name;
}

Status ImportContext::Infer(const onnx::NodeProto& n, ir::Node* node) {
  std::vector<ir::TensorType> types;
  Status s = ir::InferNodeTypes(*node, &types);
  if (!s.ok()) return Status(s.code(), fmt::format("{}: {} [ONNX {}]", model_, s.message(), n.op_type()));
  for (int i = 0; i < node->num_outputs(); ++i) node->output(i)->set_type(types[i]);
  return OkStatus();
}

Status ImportContext::FoldIfConstant(const onnx::NodeProto& n, ir::Node* node, std::vector<ir::Value*>* results) {
  results->assign(node->outputs().begin(), node->outputs().end());
  StatusOr<std::optional<std::vector<ir::Tensor>>> folded = exec::EvaluateConstantNode(*node);
  if (!folded.ok()) return Error(n, "evaluating constant operands: {}", folded.status().message());
  if (!folded->has_value()) return OkStatus();
  std::vector<std::string> names;
  std::vector<std::optional<ir::QuantParams>> quant;
  for (ir::Value* out : node->outputs()) names.push_back(out->name()), quant.push_back(out->type().quant);
  graph_->RemoveNode(node);
  for (size_t i = 0; i < names.size(); ++i)
    (*results)[i] = graph_->AddConstant(names[i], std::move((**folded)[i]), quant[i]);
  return OkStatus();
}

StatusOr<ir::Value*> ImportContext::Emit(const onnx::NodeProto& n, const std::string& op,
                                         const std::vector<ir::Value*>& inputs, ir::Attrs attrs,
                                         const std::vector<std::optional<ir::TensorType>>& declared) {
  const ir::OpDef* def = ir::FindOp(op);
  TSR_CHECK(def != nullptr, "converter emits unknown op '{}'", op);
  bool any = false;
  for (int i = 0; i < n.output_size() && i < def->num_outputs; ++i) any |= !n.output(i).empty();
  if (n.output_size() > def->num_outputs || !any) {
    for (int i = def->num_outputs; i < n.output_size(); ++i)
      if (!n.output(i).empty()) return Unsupported(n, "optional output {} '{}' is not supported", i, n.output(i));
    if (!any) return Error(n, "missing output");
  }
  std::string base;
  for (int i = 0; i < n.output_size() && base.empty(); ++i) base = n.output(i);
  std::vector<std::string> names;
  for (int i = 0; i < def->num_outputs; ++i) {
    if (i >= n.output_size() || n.output(i).empty()) {  // an omitted optional output
      names.push_back(NewName(base + ".unused" + std::to_string(i)));
      continue;
    }
    if (graph_->FindValue(n.output(i))) return Error(n, "output '{}' is defined twice", n.output(i));
    names.push_back(n.output(i));
  }
  ir::Node* node = graph_->AddNode(op, inputs, names, std::move(attrs), n.name());
  for (size_t i = 0; i < declared.size(); ++i)
    if (declared[i]) node->output(static_cast<int>(i))->set_type(*declared[i]);
  TSR_RETURN_IF_ERROR(Infer(n, node));
  std::vector<ir::Value*> results;
  TSR_RETURN_IF_ERROR(FoldIfConstant(n, node, &results));
  for (int i = 0; i < def->num_outputs && i < n.output_size(); ++i)
    if (!n.output(i).empty()) Define(n.output(i), results[i]);
  return results[0];
}

Status ImportContext::EmitConstant(const onnx::NodeProto& n, ir::Tensor t) {
  if (n.output_size() != 1 || n.output(0).empty()) return Error(n, "needs exactly one output");
  if (graph_->FindValue(n.output(0))) return Error(n, "output '{}' is defined twice", n.output(0));
  Define(n.output(0), graph_->AddConstant(n.output(0), std::move(t)));
  return OkStatus();
}

StatusOr<ir::Value*> ImportContext::EmitInternal(const onnx::NodeProto& n, const std::string& op,
                                                 const std::vector<ir::Value*>& inputs, ir::Attrs attrs,
                                                 const std::string& base,
                                                 const std::optional<ir::TensorType>& declared) {
  ir::Node* node = graph_->AddNode(op, inputs, {NewName(base)}, std::move(attrs), n.name());
  if (declared) node->output()->set_type(*declared);
  TSR_RETURN_IF_ERROR(Infer(n, node));
  std::vector<ir::Value*> results;
  TSR_RETURN_IF_ERROR(FoldIfConstant(n, node, &results));
  return results[0];
}

StatusOr<ir::Value*> ImportContext::WithQuant(const onnx::NodeProto& n, ir::Value* v, const ir::QuantParams& q) {
  if (v->type().quant == q) return v;
  ir::TensorType t(v->type().dtype, v->type().shape, q);
  Status s = ir::ValidateQuant(t, fmt::format("quantization of '{}'", v->name()));
  if (!s.ok()) return Error(n, "{}", s.message());
  if (v->is_constant()) return graph_->AddConstant(NewName(v->name() + ".q"), v->data_ptr(), q);
  return EmitInternal(n, "quant_cast", {v}, {}, v->name() + ".q", t);
}

AttrReader::AttrReader(const ImportContext& ctx, const onnx::NodeProto& n) : ctx_(ctx), node_(n) {
  for (const auto& a : n.attribute()) {
    if (attrs_.count(a.name())) status_ = ctx_.Error(n, "attribute '{}' given twice", a.name());
    attrs_[a.name()] = &a;
  }
}

const onnx::AttributeProto* AttrReader::Get(const std::string& name, onnx::AttributeProto::AttributeType type) {
  auto it = attrs_.find(name);
  if (it == attrs_.end()) return nullptr;
  used_.insert(name);
  if (it->second->type() != type) {
    if (status_.ok())
      status_ = ctx_.Error(node_, "attribute '{}' has type {}, expected {}", name,
                           onnx::AttributeProto::AttributeType_Name(it->second->type()),
                           onnx::AttributeProto::AttributeType_Name(type));
    return nullptr;
  }
  return it->second;
}

int64_t AttrReader::Int(const std::string& name, int64_t dflt) {
  const auto* a = Get(name, onnx::AttributeProto::INT);
  return a ? a->i() : dflt;
}
float AttrReader::Float(const std::string& name, float dflt) {
  const auto* a = Get(name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : dflt;
}
std::string AttrReader::Str(const std::string& name, const std::string& dflt) {
  const auto* a = Get(name, onnx::AttributeProto::STRING);
  return a ? a->s() : dflt;
}
std::vector<int64_t> AttrReader::Ints(const std::string& name, std::vector<int64_t> dflt) {
  const auto* a = Get(name, onnx::AttributeProto::INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : dflt;
}
std::vector<float> AttrReader::Floats(const std::string& name, std::vector<float> dflt) {
  const auto* a = Get(name, onnx::AttributeProto::FLOATS);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : dflt;
}
std::vector<std::string> AttrReader::Strings(const std::string& name) {
  const auto* a = Get(name, onnx::AttributeProto::STRINGS);
  return a ? std::vector<std::string>(a->strings().begin(), a->strings().end()) : std::vector<std::string>{};
}
const onnx::TensorProto* AttrReader::Tensor(const std::string& name) {
  const auto* a = Get(name, onnx::AttributeProto::TENSOR);
  return a ? &a->t() : nullptr;
}

Status AttrReader::Finish() const {
  TSR_RETURN_IF_ERROR(status_);
  for (const auto& [name, a] : attrs_)
    if (!used_.count(name)) return ctx_.Unsupported(node_, "attribute '{}' is not supported", name);
  return OkStatus();
}

StatusOr<ir::DType> DTypeFromOnnx(int32_t elem_type, const std::string& what) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return ir::DType::kF32;
    case onnx::TensorProto::INT8: return ir::DType::kI8;
    case onnx::TensorProto::UINT8: return ir::DType::kU8;
    case onnx::TensorProto::INT32: return ir::DType::kI32;
    case onnx::TensorProto::INT64: return ir::DType::kI64;
    case onnx::TensorProto::BOOL: return ir::DType::kBool;
    default: break;
  }
  const std::string name = onnx::TensorProto::DataType_IsValid(elem_type)
                               ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(elem_type))
                               : std::to_string(elem_type);
  return UnimplementedError("{}: element type {} is not supported (FLOAT, INT8, UINT8, INT32, INT64, BOOL are)", what,
                            name);
}

StatusOr<ir::Tensor> TensorFromProto(const onnx::TensorProto& t, const std::string& what) {
  TSR_ASSIGN_OR_RETURN(ir::DType dt, DTypeFromOnnx(t.data_type(), what));
  if (t.has_segment()) return UnimplementedError("{}: segmented tensors are not supported", what);
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return InternalError("{}: external data was not resolved", what);
  ir::Shape shape(t.dims().begin(), t.dims().end());
  TSR_RETURN_IF_ERROR(ir::ValidateShape(shape, what));
  const int64_t numel = ir::NumElements(shape);
  const uint64_t bytes = static_cast<uint64_t>(numel) * ir::DTypeSize(dt);
  int64_t have = 0;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes)
      return InvalidArgumentError("{}: raw data is {} bytes, shape {} of {} needs {}", what, t.raw_data().size(),
                                  ir::ShapeToString(shape), ir::DTypeName(dt), bytes);
  } else {
    switch (dt) {
      case ir::DType::kF32: have = t.float_data_size(); break;
      case ir::DType::kI64: have = t.int64_data_size(); break;
      default: have = t.int32_data_size(); break;
    }
    if (have != numel)
      return InvalidArgumentError("{}: has {} elements, shape {} needs {}", what, have, ir::ShapeToString(shape),
                                  numel);
  }
  ir::Tensor out(dt, shape);
  if (t.has_raw_data()) {
    if (bytes) std::memcpy(out.raw(), t.raw_data().data(), bytes);
    if (dt == ir::DType::kBool)
      for (int64_t i = 0; i < numel; ++i) out.raw()[i] = out.raw()[i] != 0;
    return out;
  }
  for (int64_t i = 0; i < numel; ++i) {
    switch (dt) {
      case ir::DType::kF32: out.data<float>()[i] = t.float_data(static_cast<int>(i)); break;
      case ir::DType::kI64: out.data<int64_t>()[i] = t.int64_data(static_cast<int>(i)); break;
      default: {
        const int32_t v = t.int32_data(static_cast<int>(i));
        if (v < ir::DTypeMin(dt) || v > ir::DTypeMax(dt))
          return InvalidArgumentError("{}: value {} out of range for {}", what, v, ir::DTypeName(dt));
        if (dt == ir::DType::kI8)
          out.data<int8_t>()[i] = static_cast<int8_t>(v);
        else if (dt == ir::DType::kU8 || dt == ir::DType::kBool)
          out.raw()[i] = static_cast<uint8_t>(v);
        else
          out.data<int32_t>()[i] = v;
      }
    }
  }
  return out;
}

}  // namespace tessera::frontend
