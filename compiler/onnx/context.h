// Shared state of one import: the graph under construction, the ONNX name ->
// IR value map, constant access, node emission with type inference, and an
// attribute reader that rejects attributes a converter did not consume.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <set>
#include <unordered_map>

#include "compiler/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace tessera::frontend {

class ImportContext {
 public:
  ImportContext(ir::Graph* graph, std::string model, int opset, std::set<std::string> onnx_names)
      : graph_(graph), model_(std::move(model)), opset_(opset), onnx_names_(std::move(onnx_names)) {}

  ir::Graph& graph() { return *graph_; }
  int opset() const { return opset_; }
  // The version (since_version) of the node's op definition at the model's opset.
  int Version(const onnx::NodeProto& n) const;
  const std::string& model() const { return model_; }

  // "model.onnx: node 'conv1' (Conv): <msg>"
  template <typename... Args>
  Status Error(const onnx::NodeProto& n, fmt::format_string<Args...> f, Args&&... args) const {
    return InvalidArgumentError("{}: {}: {}", model_, Describe(n), fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  Status Unsupported(const onnx::NodeProto& n, fmt::format_string<Args...> f, Args&&... args) const {
    return UnimplementedError("{}: {}: {}", model_, Describe(n), fmt::format(f, std::forward<Args>(args)...));
  }
  static std::string Describe(const onnx::NodeProto& n);

  bool HasInput(const onnx::NodeProto& n, int i) const { return i < n.input_size() && !n.input(i).empty(); }
  StatusOr<ir::Value*> Input(const onnx::NodeProto& n, int i);
  // Inputs 0..count-1, all required.
  StatusOr<std::vector<ir::Value*>> Inputs(const onnx::NodeProto& n, int count);
  // Appends input i to `ins` when the node has it (an optional input).
  Status AppendOptionalInput(const onnx::NodeProto& n, int i, std::vector<ir::Value*>* ins);
  // Constant data of input i; `what` names the operand in the error.
  StatusOr<const ir::Tensor*> ConstInput(const onnx::NodeProto& n, int i, const char* what);
  // Integer values of a constant input (any integer type).
  StatusOr<std::vector<int64_t>> ConstInts(const onnx::NodeProto& n, int i, const char* what);

  void Define(const std::string& onnx_name, ir::Value* v) { values_[onnx_name] = v; }
  ir::Value* Lookup(const std::string& onnx_name) const;
  // A fresh IR name that collides with no ONNX name in the model.
  std::string NewName(const std::string& base);

  // Emits `op` whose results take the ONNX node's output names; `declared`
  // gives result types that are declared rather than inferred (quantized).
  // A node whose operands are all constants is evaluated on the spot (shape
  // arithmetic folds away; dequantize is kept). Returns the first result.
  StatusOr<ir::Value*> Emit(const onnx::NodeProto& n, const std::string& op, const std::vector<ir::Value*>& inputs,
                            ir::Attrs attrs, const std::vector<std::optional<ir::TensorType>>& declared = {});
  // Defines the ONNX node's only output as a constant.
  Status EmitConstant(const onnx::NodeProto& n, ir::Tensor t);
  // Emits a helper node with one fresh result named after `base`.
  StatusOr<ir::Value*> EmitInternal(const onnx::NodeProto& n, const std::string& op,
                                    const std::vector<ir::Value*>& inputs, ir::Attrs attrs, const std::string& base,
                                    const std::optional<ir::TensorType>& declared = std::nullopt);
  // `v` reinterpreted with quantization parameters `q` (a new constant for
  // constants, else a quant_cast node); `v` itself when they already match.
  StatusOr<ir::Value*> WithQuant(const onnx::NodeProto& n, ir::Value* v, const ir::QuantParams& q);

 private:
  Status Infer(const onnx::NodeProto& n, ir::Node* node);
  // Replaces a node with all-constant operands by constants of its results.
  Status FoldIfConstant(const onnx::NodeProto& n, ir::Node* node, std::vector<ir::Value*>* results);

  ir::Graph* graph_;
  std::string model_;
  int opset_;
  std::set<std::string> onnx_names_;
  std::unordered_map<std::string, ir::Value*> values_;
};

// Reads a node's attributes; Finish() reports any attribute not read.
class AttrReader {
 public:
  AttrReader(const ImportContext& ctx, const onnx::NodeProto& n);
  bool Has(const std::string& name) const { return attrs_.count(name) != 0; }
  int64_t Int(const std::string& name, int64_t dflt);
  float Float(const std::string& name, float dflt);
  std::string Str(const std::string& name, const std::string& dflt);
  std::vector<int64_t> Ints(const std::string& name, std::vector<int64_t> dflt);
  std::vector<float> Floats(const std::string& name, std::vector<float> dflt);
  std::vector<std::string> Strings(const std::string& name);
  const onnx::TensorProto* Tensor(const std::string& name);
  // Marks an attribute as accepted without reading it (documented as ignored).
  void Ignore(const std::string& name) { used_.insert(name); }
  Status Finish() const;

 private:
  const onnx::AttributeProto* Get(const std::string& name, onnx::AttributeProto::AttributeType type);
  const ImportContext& ctx_;
  const onnx::NodeProto& node_;
  std::unordered_map<std::string, const onnx::AttributeProto*> attrs_;
  std::set<std::string> used_;
  Status status_;
};

// TensorProto -> Tensor, checking the declared shape against the data actually
// present before allocating. `what` names the tensor in errors.
StatusOr<ir::Tensor> TensorFromProto(const onnx::TensorProto& t, const std::string& what);
// ONNX element type -> IR element type.
StatusOr<ir::DType> DTypeFromOnnx(int32_t elem_type, const std::string& what);

// Conv-style attributes (kernel_shape check, strides, pads/auto_pad,
// dilations, group) for input x[N,C,H,W] and weight w[M,C/g,kh,kw].
Status ReadConvAttrs(ImportContext& ctx, const onnx::NodeProto& n, AttrReader& ar, ir::Value* x, ir::Value* w,
                     ir::Attrs* out);

// One converter per ONNX op type.
using Converter = Status (*)(ImportContext& ctx, const onnx::NodeProto& n);
// A node with only positional inputs and no attributes, emitted as `op`.
Status ConvertSimple(ImportContext& ctx, const onnx::NodeProto& n, const std::string& op, int inputs);
// Runs a 2-D converter on a 1-D node (input [N,C,L]) lifted to [N,C,1,L].
Status ConvertLifted1D(ImportContext& ctx, const onnx::NodeProto& n, Converter convert2d);
// Each converter file's table, one row per ONNX op type it handles. `since`
// is the oldest definition (since_version) the converter reads; 0 means the
// one in force at opset 11.
struct ConverterEntry {
  const char* type;
  Converter fn;
  int since = 0;
  const char* domain = "";  // "" = the default ONNX domain; "com.microsoft" for ONNX Runtime's contrib ops
};
std::vector<ConverterEntry> NnConverters();
std::vector<ConverterEntry> MathConverters();
std::vector<ConverterEntry> ReduceConverters();
std::vector<ConverterEntry> TensorConverters();
std::vector<ConverterEntry> ShapeConverters();
std::vector<ConverterEntry> RnnConverters();
std::vector<ConverterEntry> QuantConverters();

}  // namespace tessera::frontend
