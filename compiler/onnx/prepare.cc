// Preparing an ONNX graph for conversion (prepare.h).
#include "compiler/onnx/prepare.h"

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <set>

#include "isa/base/file.h"

namespace tessera::frontend {
namespace {

// Tensor -> TensorProto (raw data) for inputs frozen to initializers.
onnx::TensorProto ToProto(const std::string& name, const ir::Tensor& t) {
  onnx::TensorProto p;
  p.set_name(name);
  switch (t.dtype()) {
    case ir::DType::kF32: p.set_data_type(onnx::TensorProto::FLOAT); break;
    case ir::DType::kI8: p.set_data_type(onnx::TensorProto::INT8); break;
    case ir::DType::kU8: p.set_data_type(onnx::TensorProto::UINT8); break;
    case ir::DType::kI32: p.set_data_type(onnx::TensorProto::INT32); break;
    case ir::DType::kI64: p.set_data_type(onnx::TensorProto::INT64); break;
    case ir::DType::kBool: p.set_data_type(onnx::TensorProto::BOOL); break;
  }
  for (int64_t d : t.shape()) p.add_dims(d);
  p.set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
  return p;
}

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  return ::realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// Loads one tensor's external data into raw_data, refusing paths that escape
// `base_dir` and reads beyond the remaining byte budget.
Status ResolveExternal(onnx::TensorProto* t, const std::string& name, const std::string& base_dir, uint64_t* budget) {
  const std::string what = fmt::format("{}: tensor '{}'", name, t->name());
  std::string location;
  uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const auto& kv : t->external_data()) {
    char* end = nullptr;
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      const unsigned long long v = std::strtoull(kv.value().c_str(), &end, 10);
      if (kv.value().empty() || *end)
        return InvalidArgumentError("{}: external data {} '{}' is not a number", what, kv.key(), kv.value());
      if (kv.key() == "offset")
        offset = v;
      else {
        length = v;
        has_length = true;
      }
    } else if (kv.key() != "checksum") {
      return UnimplementedError("{}: external data key '{}' is not supported", what, kv.key());
    }
  }
  if (base_dir.empty()) return InvalidArgumentError("{}: external data is not allowed for in-memory models", what);
  if (location.empty()) return InvalidArgumentError("{}: external data without a location", what);
  if (location[0] == '/' || location.find("..") != std::string::npos)
    return InvalidArgumentError("{}: external data path '{}' must be relative to the model's folder without '..'", what,
                                location);
  const std::string dir = RealPath(base_dir);
  const std::string file = RealPath(base_dir + "/" + location);
  if (file.empty()) return NotFoundError("{}: external data file '{}' not found", what, location);
  if (dir.empty() || file.compare(0, dir.size() + 1, dir + "/") != 0)
    return InvalidArgumentError("{}: external data path '{}' escapes the model's folder", what, location);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return InvalidArgumentError("{}: external data '{}' is not a regular file", what, location);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (offset > size)
    return InvalidArgumentError("{}: external data offset {} is past the end of '{}'", what, offset, location);
  if (!has_length) length = size - offset;
  if (length > size - offset)
    return InvalidArgumentError("{}: external data range [{}, {}) is past the end of '{}' ({} bytes)", what, offset,
                                offset + length, location, size);
  if (length > *budget)
    return ResourceExhaustedError("{}: external data of {} bytes exceeds the model size limit", what, length);
  *budget -= length;
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(file, size));
  t->set_raw_data(std::string(bytes.begin() + offset, bytes.begin() + offset + length));
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::DEFAULT);
  return OkStatus();
}

// Fixes the shapes of graph inputs: overrides, then symbolic dimensions.
// Returns whether anything changed (declared output shapes are then stale).
StatusOr<bool> BindInputShapes(onnx::GraphProto* g, const std::string& name, const ImportOptions& opt,
                               const std::set<std::string>& initializers) {
  bool changed = false;
  std::set<std::string> inputs;
  int graph_inputs = 0;
  for (const auto& in : g->input()) graph_inputs += !initializers.count(in.name());
  if (opt.sole_input_shape && graph_inputs != 1)
    return UnimplementedError("{}: the model has {} inputs; a shape for its only input needs exactly one", name,
                              graph_inputs);
  for (auto& in : *g->mutable_input()) {
    inputs.insert(in.name());
    if (initializers.count(in.name())) continue;
    if (!in.type().has_tensor_type()) continue;                 // reported by Build
    const bool declared = in.type().tensor_type().has_shape();  // before mutable_shape() creates one
    auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    auto it = opt.input_shapes.find(in.name());
    const ir::Shape* given = it != opt.input_shapes.end() ? &it->second
                             : opt.sole_input_shape       ? &*opt.sole_input_shape
                                                          : nullptr;
    if (given) {
      shape->clear_dim();
      for (int64_t d : *given) shape->add_dim()->set_dim_value(d);
      changed = true;
      continue;
    }
    if (!declared)
      return InvalidArgumentError("{}: input '{}' has no declared shape; give one explicitly", name, in.name());
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (d->has_dim_value()) {
        if (d->dim_value() < 0)
          return InvalidArgumentError("{}: input '{}' dimension {} is {}; a dimension is >= 0 or symbolic", name,
                                      in.name(), i, d->dim_value());
        continue;
      }
      if (opt.symbolic_dim_value <= 0)
        return InvalidArgumentError("{}: input '{}' dimension {} is symbolic ('{}'); give a concrete shape", name,
                                    in.name(), i, d->dim_param());
      d->set_dim_value(opt.symbolic_dim_value);
      changed = true;
    }
  }
  for (const auto& [n, s] : opt.input_shapes)
    if (!inputs.count(n))
      return InvalidArgumentError("{}: a shape was given for '{}', which is not a graph input", name, n);
  return changed;
}

}  // namespace

StatusOr<bool> PrepareGraph(onnx::GraphProto* g, const std::string& name, const std::string& base_dir, uint64_t budget,
                            const ImportOptions& options) {
  std::set<std::string> initializers;
  for (auto& t : *g->mutable_initializer()) {
    initializers.insert(t.name());
    if (t.data_location() == onnx::TensorProto::EXTERNAL)
      TSR_RETURN_IF_ERROR(ResolveExternal(&t, name, base_dir, &budget));
  }
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute())
      if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL)
        TSR_RETURN_IF_ERROR(ResolveExternal(a.mutable_t(), name, base_dir, &budget));
  for (const auto& [in_name, value] : options.constant_inputs) {
    auto* inputs = g->mutable_input();
    const std::string& wanted = in_name;  // C++17 lambdas cannot capture a structured binding (clang)
    auto it = std::find_if(inputs->begin(), inputs->end(), [&](const auto& vi) { return vi.name() == wanted; });
    if (it == inputs->end() || initializers.count(in_name))
      return InvalidArgumentError("{}: a constant was given for '{}', which is not a graph input", name, in_name);
    inputs->erase(it);
    *g->add_initializer() = ToProto(in_name, value);
    initializers.insert(in_name);
  }
  return BindInputShapes(g, name, options, initializers);
}

}  // namespace tessera::frontend
