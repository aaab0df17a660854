#include "tests/fuzz/onnx_mutator.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

// libFuzzer's byte-level mutator (the replay driver, replay_main.cc, has its own).
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace tessera::fuzz {
namespace {

using Rng = std::mt19937;

size_t Below(Rng& r, size_t n) { return n ? r() % n : 0; }

int64_t AnInt(Rng& r) {
  using L = std::numeric_limits<int64_t>;
  static const int64_t kInts[] = {0,         1,         2,        3,       -1, -2, 8, 255, 65536, (1LL << 31) - 1,
                                  1LL << 31, 1LL << 40, L::max(), L::min()};
  if (r() % 3 == 0) return static_cast<int64_t>(Below(r, 10));
  return kInts[Below(r, std::size(kInts))];
}

float AFloat(Rng& r) {
  using L = std::numeric_limits<float>;
  static const float kFloats[] = {0.0f,  -0.0f,           1.0f,          -1.0f,          0.5f,          1e-30f,
                                  1e30f, L::denorm_min(), L::infinity(), -L::infinity(), L::quiet_NaN()};
  return kFloats[Below(r, std::size(kFloats))];
}

// A value name of the model, an empty or unknown name now and then.
std::string AName(const std::vector<std::string>& names, Rng& r) {
  switch (Below(r, 8)) {
    case 0: return "";
    case 1: return "fuzz_unknown";
    default: return names.empty() ? "" : names[Below(r, names.size())];
  }
}

template <typename T>
void MutateInts(google::protobuf::RepeatedField<T>* v, Rng& r) {
  switch (Below(r, 4)) {
    case 0: v->Add(static_cast<T>(AnInt(r))); break;
    case 1:
      if (!v->empty()) v->RemoveLast();
      break;
    case 2: v->Clear(); break;
    default:
      if (!v->empty()) v->Set(static_cast<int>(Below(r, v->size())), static_cast<T>(AnInt(r)));
      break;
  }
}

void MutateShape(onnx::TensorShapeProto* s, Rng& r) {
  switch (Below(r, 4)) {
    case 0: s->add_dim()->set_dim_value(AnInt(r)); break;
    case 1:
      if (s->dim_size()) s->mutable_dim()->RemoveLast();
      break;
    case 2:
      if (s->dim_size()) s->mutable_dim(static_cast<int>(Below(r, s->dim_size())))->set_dim_param(r() % 2 ? "N" : "");
      break;
    default:
      if (s->dim_size()) s->mutable_dim(static_cast<int>(Below(r, s->dim_size())))->set_dim_value(AnInt(r));
      break;
  }
}

void MutateValueInfo(onnx::ValueInfoProto* v, const std::vector<std::string>& names, Rng& r) {
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  switch (Below(r, 4)) {
    case 0: t->set_elem_type(static_cast<int32_t>(Below(r, 22))); break;
    case 1: v->set_name(AName(names, r)); break;
    case 2: t->clear_shape(); break;
    default: MutateShape(t->mutable_shape(), r); break;
  }
}

void MutateTensor(onnx::TensorProto* t, Rng& r) {
  switch (Below(r, 5)) {
    case 0: MutateInts(t->mutable_dims(), r); break;
    case 1: t->set_data_type(static_cast<int32_t>(Below(r, 22))); break;
    case 2: {  // truncate or extend the raw data
      std::string* raw = t->mutable_raw_data();
      if (r() % 2 && !raw->empty()) {
        raw->resize(Below(r, raw->size()));
      } else {
        raw->append(1 + Below(r, 16), static_cast<char>(r()));
      }
      break;
    }
    case 3:
      if (!t->raw_data().empty()) {  // overwrite one element-sized run with a special float
        const float f = AFloat(r);
        std::string* raw = t->mutable_raw_data();
        const size_t at = Below(r, raw->size());
        std::memcpy(&(*raw)[at], &f, std::min(sizeof f, raw->size() - at));
      } else {
        t->add_float_data(AFloat(r));
      }
      break;
    default: t->clear_raw_data(); break;
  }
}

void MutateAttribute(onnx::AttributeProto* a, Rng& r) {
  static const char* kNames[] = {"kernel_shape", "strides",  "pads",     "dilations", "group",  "axis",
                                 "axes",         "perm",     "auto_pad", "transA",    "transB", "alpha",
                                 "beta",         "keepdims", "to",       "epsilon"};
  switch (Below(r, 6)) {
    case 0: a->set_name(kNames[Below(r, std::size(kNames))]); return;
    case 1: a->set_type(static_cast<onnx::AttributeProto_AttributeType>(Below(r, 14))); return;
    default: break;
  }
  switch (a->type()) {
    case onnx::AttributeProto::INT: a->set_i(AnInt(r)); break;
    case onnx::AttributeProto::INTS: MutateInts(a->mutable_ints(), r); break;
    case onnx::AttributeProto::FLOAT: a->set_f(AFloat(r)); break;
    case onnx::AttributeProto::FLOATS:
      if (a->floats_size()) {
        a->set_floats(static_cast<int>(Below(r, a->floats_size())), AFloat(r));
      } else {
        a->add_floats(AFloat(r));
      }
      break;
    case onnx::AttributeProto::STRING: {
      static const char* kStrings[] = {"", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "constant", "reflect"};
      a->set_s(kStrings[Below(r, std::size(kStrings))]);
      break;
    }
    case onnx::AttributeProto::TENSOR: MutateTensor(a->mutable_t(), r); break;
    default: a->set_i(AnInt(r)); break;
  }
}

// `before`: the names the node may read; `names`: every name of the graph.
void MutateNode(onnx::NodeProto* n, const onnx::GraphProto& g, const std::vector<std::string>& before,
                const std::vector<std::string>& names, Rng& r) {
  static const char* kOps[] = {
      "Conv",           "MatMul",           "Gemm",     "Add",       "Mul",        "Relu",    "MaxPool",
      "AveragePool",    "Reshape",          "Flatten",  "Transpose", "Concat",     "Softmax", "BatchNormalization",
      "QuantizeLinear", "DequantizeLinear", "Identity", "Gather",    "ReduceMean", "Clip"};
  switch (Below(r, 9)) {
    case 0:
      if (n->input_size()) n->set_input(static_cast<int>(Below(r, n->input_size())), AName(before, r));
      break;
    case 1:
      if (n->output_size()) n->set_output(static_cast<int>(Below(r, n->output_size())), AName(names, r));
      break;
    case 2: n->add_input(AName(before, r)); break;
    case 3:
      if (n->input_size()) n->mutable_input()->RemoveLast();
      break;
    case 4:
      if (r() % 4) {
        n->set_op_type(kOps[Below(r, std::size(kOps))]);
      } else {
        n->set_domain(r() % 2 ? "ai.onnx" : "x");
      }
      break;
    case 5:
      if (n->attribute_size())
        n->mutable_attribute()->DeleteSubrange(static_cast<int>(Below(r, n->attribute_size())), 1);
      break;
    case 6: {  // borrow an attribute from another node
      const onnx::NodeProto& other = g.node(static_cast<int>(Below(r, g.node_size())));
      if (other.attribute_size())
        *n->add_attribute() = other.attribute(static_cast<int>(Below(r, other.attribute_size())));
      break;
    }
    default:
      if (n->attribute_size())
        MutateAttribute(n->mutable_attribute(static_cast<int>(Below(r, n->attribute_size()))), r);
      break;
  }
}

template <typename T>
T* Pick(google::protobuf::RepeatedPtrField<T>* v, Rng& r) {
  return v->empty() ? nullptr : v->Mutable(static_cast<int>(Below(r, v->size())));
}

// The names a node at index `at` may read in a topologically sorted graph.
std::vector<std::string> NamesBefore(const onnx::GraphProto& g, int at) {
  std::vector<std::string> names;
  for (const auto& v : g.input()) names.push_back(v.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (int i = 0; i < at && i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) names.push_back(o);
  return names;
}

// Removes node `at` and lets its readers read its first input instead (a
// layer cut out of the model, which mostly keeps it well formed).
void BypassNode(onnx::GraphProto* g, int at) {
  const onnx::NodeProto n = g->node(at);
  g->mutable_node()->DeleteSubrange(at, 1);
  if (n.input_size() == 0 || n.output_size() == 0) return;
  for (auto& other : *g->mutable_node())
    for (auto& in : *other.mutable_input())
      if (in == n.output(0)) in = n.input(0);
  for (auto& out : *g->mutable_output())
    if (out.name() == n.output(0)) out.set_name(n.input(0));
}

void MutateModel(onnx::ModelProto& m, Rng& r) {
  onnx::GraphProto* g = m.mutable_graph();
  const int node = static_cast<int>(Below(r, g->node_size()));
  const std::vector<std::string> names = NamesBefore(*g, g->node_size());
  switch (Below(r, 16)) {
    case 0:
      if (g->node_size()) BypassNode(g, node);
      break;
    case 1:
      if (g->node_size()) {  // a second copy of a layer, on new outputs
        onnx::NodeProto* copy = g->add_node();
        *copy = g->node(node);
        for (auto& o : *copy->mutable_output()) o += "_copy";
      }
      break;
    case 2:
      if (g->node_size() >= 2) g->mutable_node()->SwapElements(node, static_cast<int>(Below(r, g->node_size())));
      break;
    case 3:
      if (g->initializer_size())
        g->mutable_initializer()->DeleteSubrange(static_cast<int>(Below(r, g->initializer_size())), 1);
      break;
    case 4:
      if (auto* v = Pick(g->mutable_output(), r)) MutateValueInfo(v, names, r);
      break;
    case 5:
      if (auto* t = Pick(g->mutable_initializer(), r)) t->set_name(AName(names, r));
      break;
    case 6:
      if (auto* o = Pick(m.mutable_opset_import(), r)) o->set_version(static_cast<int64_t>(Below(r, 22)));
      break;
    case 7: m.set_ir_version(static_cast<int64_t>(Below(r, 12))); break;
    case 8:
      if (auto* v = Pick(g->mutable_input(), r)) MutateValueInfo(v, names, r);
      break;
    case 9:
    case 10:
      if (auto* t = Pick(g->mutable_initializer(), r)) MutateTensor(t, r);
      break;
    default:
      if (g->node_size()) MutateNode(g->mutable_node(node), *g, NamesBefore(*g, node), names, r);
      break;
  }
}

}  // namespace

size_t MutateOnnxModel(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  Rng r(seed);
  onnx::ModelProto m;
  if (r() % 4 == 0 || !m.ParseFromArray(data, static_cast<int>(size))) return LLVMFuzzerMutate(data, size, max_size);
  const int edits = 1 + static_cast<int>(Below(r, 3));
  for (int e = 0; e < edits; ++e) MutateModel(m, r);
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace tessera::fuzz
