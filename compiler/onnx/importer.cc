// Loading (size limit, protobuf parse, opset check, external data inside the
// model folder), ONNX checker and strict shape inference, then conversion of
// initializers, inputs and nodes in order, and a final check that declared
// output types agree with the IR's.
#include "compiler/onnx/importer.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "compiler/ir/verifier.h"
#include "compiler/onnx/context.h"
#include "compiler/onnx/prepare.h"
#include "compiler/onnx/schema_guard.h"
#include "isa/base/file.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace tessera::frontend {
namespace {

// Opsets 11..17 are supported, and older models node by node: an op is
// accepted when its definition at the model's opset is one its converter
// reads (ConverterEntry::since), by default the one in force at opset 11.
constexpr int kMinOpset = 11, kMaxOpset = 17;

Status CheckOldOpset(const onnx::NodeProto& n, int opset, int since, const std::string& name) {
  if (opset >= kMinOpset) return OkStatus();
  const auto* reg = onnx::OpSchemaRegistry::Instance();
  const onnx::OpSchema* old = reg->GetSchema(n.op_type(), opset, "");
  const onnx::OpSchema* cur = reg->GetSchema(n.op_type(), kMinOpset, "");
  const int oldest = since > 0 ? since : cur ? cur->SinceVersion() : kMinOpset;
  if (old && old->SinceVersion() >= oldest) return OkStatus();
  return UnimplementedError(
      "{}: {}: the opset {} definition of {} (version {}) is not supported (versions >= {} are); re-export with "
      "opset >= {}",
      name, ImportContext::Describe(n), opset, n.op_type(), old ? old->SinceVersion() : 0, oldest, kMinOpset);
}

// ONNX exception text on one line (the checker prints nodes over several).
std::string OneLine(const char* what) {
  std::string out;
  for (const char* p = what; *p; ++p) {
    const bool space = *p == '\n' || *p == ' ' || *p == '\t';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : *p;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// All converter tables, concatenated once.
const std::vector<ConverterEntry>& AllConverters() {
  static const std::vector<ConverterEntry>* all = [] {
    auto* v = new std::vector<ConverterEntry>(NnConverters());
    for (const auto& t : {MathConverters(), ReduceConverters(), TensorConverters(), ShapeConverters(), RnnConverters(),
                          QuantConverters()})
      v->insert(v->end(), t.begin(), t.end());
    return v;
  }();
  return *all;
}

const ConverterEntry* FindConverter(const std::string& op, const std::string& domain) {
  for (const ConverterEntry& e : AllConverters())
    if (op == e.type && domain == e.domain) return &e;
  return nullptr;
}

// Nodes that cannot be imported, grouped by op type for one report.
class Unsupported {
 public:
  // `key`: the op type, or what else is unsupported ("element type").
  void Add(const std::string& key, const Status& s, const std::string& model) {
    std::string m = s.message();
    if (m.compare(0, model.size() + 2, model + ": ") == 0) m = m.substr(model.size() + 2);
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups_.end()) it = groups_.insert(groups_.end(), {key, {}});
    it->second.push_back(m);
    if (!first_.has_value()) first_ = s;
  }
  bool empty() const { return groups_.empty(); }
  // One error naming every node; a single one keeps its own message.
  Status ToStatus(const std::string& model) const {
    size_t total = 0;
    for (const auto& g : groups_) total += g.second.size();
    if (total == 1) return *first_;
    std::string s = fmt::format("{}: {} parts of the model cannot be imported (", model, total);
    for (size_t i = 0; i < groups_.size(); ++i)
      s += fmt::format("{}{} x{}", i ? ", " : "", groups_[i].first, groups_[i].second.size());
    s += "):";
    constexpr size_t kPerOp = 8;
    for (const auto& [op, msgs] : groups_) {
      for (size_t i = 0; i < msgs.size() && i < kPerOp; ++i) s += "\n  " + msgs[i];
      if (msgs.size() > kPerOp) s += fmt::format("\n  ... and {} more ({})", msgs.size() - kPerOp, op);
    }
    return UnimplementedError("{}", s);
  }

 private:
  std::vector<std::pair<std::string, std::vector<std::string>>> groups_;
  std::optional<Status> first_;
};

Status CheckDeclaredOutput(const onnx::ValueInfoProto& vi, const ir::Value* v, const std::string& name) {
  if (!vi.type().has_tensor_type()) return OkStatus();
  const auto& tt = vi.type().tensor_type();
  if (tt.elem_type() != 0) {
    TSR_ASSIGN_OR_RETURN(ir::DType dt, DTypeFromOnnx(tt.elem_type(), fmt::format("{}: output '{}'", name, vi.name())));
    if (dt != v->type().dtype)
      return InvalidArgumentError("{}: output '{}' is declared {} but computes {}", name, vi.name(), ir::DTypeName(dt),
                                  ir::DTypeName(v->type().dtype));
  }
  if (!tt.has_shape()) return OkStatus();
  const ir::Shape& s = v->type().shape;
  bool agree = tt.shape().dim_size() == static_cast<int>(s.size());
  for (int i = 0; agree && i < tt.shape().dim_size(); ++i)
    if (tt.shape().dim(i).has_dim_value() && tt.shape().dim(i).dim_value() != s[i]) agree = false;
  if (!agree) {
    std::string decl = "[";
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      decl += (i ? "," : "") + (d.has_dim_value()       ? std::to_string(d.dim_value())
                                : d.dim_param().empty() ? "?"
                                                        : d.dim_param());
    }
    return InvalidArgumentError("{}: output '{}' is declared {}] but computes {}", name, vi.name(), decl,
                                ir::ShapeToString(s));
  }
  return OkStatus();
}

StatusOr<std::unique_ptr<ir::Graph>> Build(onnx::ModelProto& model, const std::string& name, int opset,
                                           bool outputs_stale) {
  const onnx::GraphProto& g = model.graph();
  std::set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  for (const auto& in : g.input()) names.insert(in.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) names.insert(o);
  auto graph = std::make_unique<ir::Graph>(g.name().empty() ? "main" : g.name());
  ImportContext ctx(graph.get(), name, opset, names);
  // Everything that cannot be imported is collected (and the values it
  // defines marked unavailable) so that one error lists all of it; a node
  // reading an unavailable value is only checked for an unknown op type.
  Unsupported unsupported;
  std::set<std::string> unavailable;
  std::set<std::string> init_names;
  for (const auto& t : g.initializer()) {
    const std::string what = fmt::format("{}: initializer '{}'", name, t.name());
    if (t.name().empty()) return InvalidArgumentError("{}: an initializer has no name", name);
    if (!init_names.insert(t.name()).second) return InvalidArgumentError("{} is defined twice", what);
    StatusOr<ir::Tensor> data = TensorFromProto(t, what);
    if (data.status().code() == StatusCode::kUnimplemented) {
      unsupported.Add("element type", data.status(), name);
      unavailable.insert(t.name());
      continue;
    }
    TSR_RETURN_IF_ERROR(data.status());
    ctx.Define(t.name(), graph->AddConstant(t.name(), std::move(*data)));
  }
  for (const auto& in : g.input()) {
    if (init_names.count(in.name())) continue;
    const std::string what = fmt::format("{}: input '{}'", name, in.name());
    if (!in.type().has_tensor_type()) {
      unsupported.Add("non-tensor input", UnimplementedError("{} is not a tensor (sequence, map, optional)", what),
                      name);
      unavailable.insert(in.name());
      continue;
    }
    StatusOr<ir::DType> dt = DTypeFromOnnx(in.type().tensor_type().elem_type(), what);
    if (!dt.ok()) {
      unsupported.Add("element type", dt.status(), name);
      unavailable.insert(in.name());
      continue;
    }
    ir::Shape shape;
    for (const auto& d : in.type().tensor_type().shape().dim()) shape.push_back(d.dim_value());
    TSR_RETURN_IF_ERROR(ir::ValidateShape(shape, what));
    if (ctx.Lookup(in.name())) return InvalidArgumentError("{} is declared twice", what);
    ctx.Define(in.name(), graph->AddInput(in.name(), ir::TensorType(*dt, shape)));
  }
  for (const auto& n : g.node()) {
    Status s;
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    const ConverterEntry* conv = FindConverter(n.op_type(), domain);
    if (!conv && !domain.empty()) {
      s = UnimplementedError("{}: {}: op '{}' of domain '{}' is not supported", name, ImportContext::Describe(n),
                             n.op_type(), n.domain());
    } else if (!conv) {
      s = UnimplementedError("{}: {}: op type '{}' is not supported", name, ImportContext::Describe(n), n.op_type());
    } else if (std::any_of(n.input().begin(), n.input().end(), [&](const auto& i) { return unavailable.count(i); })) {
      for (const auto& o : n.output()) unavailable.insert(o);
      continue;
    } else {
      s = domain.empty() ? CheckOldOpset(n, opset, conv->since, name) : OkStatus();
      if (s.ok()) s = conv->fn(ctx, n);
    }
    if (s.ok()) continue;
    if (s.code() != StatusCode::kUnimplemented) return s;
    unsupported.Add(n.op_type(), s, name);
    for (const auto& o : n.output()) unavailable.insert(o);
  }
  if (!unsupported.empty()) return unsupported.ToStatus(name);
  std::vector<ir::Value*> outs;
  for (const auto& o : g.output()) {
    ir::Value* v = ctx.Lookup(o.name());
    if (!v) return InvalidArgumentError("{}: graph output '{}' is not produced by any node", name, o.name());
    if (!outputs_stale) TSR_RETURN_IF_ERROR(CheckDeclaredOutput(o, v, name));
    outs.push_back(v);
  }
  if (outs.empty()) return InvalidArgumentError("{}: the graph has no outputs", name);
  graph->SetOutputs(outs);
  Status s = ir::Verify(*graph);
  if (!s.ok()) return Status(s.code(), fmt::format("{}: imported graph does not verify: {}", name, s.message()));
  return graph;
}

}  // namespace

std::vector<std::string> SupportedOnnxOps() {
  std::vector<std::string> ops;
  for (const ConverterEntry& e : AllConverters()) ops.push_back(e.type);
  return ops;
}

StatusOr<ir::Tensor> ParseOnnxTensor(const std::vector<uint8_t>& bytes, const std::string& name) {
  onnx::TensorProto t;
  if (bytes.size() > static_cast<size_t>(INT_MAX) || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return DataLossError("{}: not a valid ONNX tensor (protobuf parsing failed)", name);
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return UnimplementedError("{}: external data", name);
  return TensorFromProto(t, name);
}

StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  // Mapped, not read: the file is parsed once and a 50 MB model needs no buffer of its own.
  TSR_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path, options.max_model_bytes));
  const size_t slash = path.find_last_of('/');
  return ImportOnnxData(file.data(), file.size(), path, slash == std::string::npos ? "." : path.substr(0, slash),
                        options);
}

StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxBytes(const std::vector<uint8_t>& bytes, const std::string& name,
                                                     const std::string& base_dir, const ImportOptions& options) {
  return ImportOnnxData(bytes.data(), bytes.size(), name, base_dir, options);
}

StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxData(const uint8_t* data, uint64_t size, const std::string& name,
                                                    const std::string& base_dir, const ImportOptions& options) {
  if (size > options.max_model_bytes)
    return ResourceExhaustedError("{}: {} bytes exceeds the limit of {} bytes", name, size, options.max_model_bytes);
  if (size > static_cast<uint64_t>(INT_MAX))
    return ResourceExhaustedError("{}: protobuf files are limited to 2 GiB", name);
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size)))
    return DataLossError("{}: not a valid ONNX model (protobuf parsing failed)", name);
  if (!model.has_graph()) return InvalidArgumentError("{}: the model has no graph", name);
  int opset = -1;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  if (opset < 0) opset = kMaxOpset;  // no default-domain nodes: each is reported by its domain
  if (opset < 1 || opset > kMaxOpset)
    return UnimplementedError("{}: opset {} is not supported ({}..{} are)", name, opset, kMinOpset, kMaxOpset);
  if (model.functions_size() > 0) return UnimplementedError("{}: model-local functions are not supported", name);
  onnx::GraphProto* g = model.mutable_graph();
  TSR_ASSIGN_OR_RETURN(bool stale, PrepareGraph(g, name, base_dir, options.max_model_bytes - size, options));
  g->clear_value_info();  // our own type inference recomputes every intermediate type
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return InvalidArgumentError("{}: ONNX checker: {}", name, OneLine(e.what()));
  }
  if (stale)
    for (auto& o : *g->mutable_output())
      if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  GuardOnnxSchemas();  // ONNX 1.12's Gemm-6 inference crashed on a rank-0 operand
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
  } catch (const std::exception& e) {
    return InvalidArgumentError("{}: ONNX shape inference: {}", name, OneLine(e.what()));
  }
  return Build(model, name, opset, stale);
}

}  // namespace tessera::frontend
