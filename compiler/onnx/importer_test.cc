// Importer tests on models built in memory with the ONNX protobuf API: a
// working model end to end, then one test per rejection (malformed protobuf,
// wrong initializer sizes, cycles, missing inputs, disagreeing shapes,
// unsupported ops and attributes, size limit, external-data paths).
#include "compiler/onnx/importer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/printer.h"
#include "onnx/onnx_pb.h"

namespace tessera::frontend {
namespace {

namespace fs = std::filesystem;

onnx::ModelProto NewModel(int opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("test");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  return m;
}

void SetType(onnx::ValueInfoProto* vi, const std::string& name, std::vector<int64_t> dims,
             int elem = onnx::TensorProto::FLOAT, const std::string& sym = "") {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) {
    if (d < 0)
      shape->add_dim()->set_dim_param(sym);
    else
      shape->add_dim()->set_dim_value(d);
  }
}

void Input(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims, const std::string& sym = "N") {
  SetType(m.mutable_graph()->add_input(), name, dims, onnx::TensorProto::FLOAT, sym);
}
void Output(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims, const std::string& sym = "N") {
  SetType(m.mutable_graph()->add_output(), name, dims, onnx::TensorProto::FLOAT, sym);
}

onnx::TensorProto* Init(onnx::ModelProto& m, const std::string& name, std::vector<int64_t> dims,
                        std::vector<float> values) {
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
  return t;
}

onnx::NodeProto* Node(onnx::ModelProto& m, const std::string& op, std::vector<std::string> in,
                      std::vector<std::string> out, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + out[0] : name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

void IntsAttr(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void IntAttr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

std::vector<uint8_t> Bytes(const onnx::ModelProto& m) {
  std::string s;
  m.SerializeToString(&s);
  return std::vector<uint8_t>(s.begin(), s.end());
}

// conv(3x3, pad 1) -> relu -> flatten -> gemm, on x[1,2,4,4].
onnx::ModelProto SmallCnn() {
  onnx::ModelProto m = NewModel();
  Input(m, "x", {1, 2, 4, 4});
  std::vector<float> w(3 * 2 * 9), fc(5 * 48);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.01f * (static_cast<int>(i) - 20);
  for (size_t i = 0; i < fc.size(); ++i) fc[i] = 0.001f * (static_cast<int>(i % 17) - 8);
  Init(m, "w", {3, 2, 3, 3}, w);
  Init(m, "b", {3}, {0.1f, -0.2f, 0.3f});
  Init(m, "fc", {5, 48}, fc);
  auto* conv = Node(m, "Conv", {"x", "w", "b"}, {"c"}, "conv1");
  IntsAttr(conv, "pads", {1, 1, 1, 1});
  IntsAttr(conv, "kernel_shape", {3, 3});
  Node(m, "Relu", {"c"}, {"r"});
  Node(m, "Flatten", {"r"}, {"f"});
  auto* gemm = Node(m, "Gemm", {"f", "fc"}, {"y"});
  IntAttr(gemm, "transB", 1);
  Output(m, "y", {1, 5});
  return m;
}

std::string ImportError(const onnx::ModelProto& m, const ImportOptions& o = {}) {
  auto r = ImportOnnxBytes(Bytes(m), "m.onnx", "", o);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(Importer, ImportsVerifiesAndRuns) {
  auto g = ImportOnnxBytes(Bytes(SmallCnn()), "m.onnx", "");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const std::string text = ir::PrintGraph(**g);
  EXPECT_NE(text.find("%c: f32[1,3,4,4] = conv(%x, %w, %b) {dilations=[1, 1], group=1, pads=[1, 1, 1, 1], "
                      "strides=[1, 1]} @conv1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%y: f32[1,5] = gemm(%f, %fc) {trans_b=1}"), std::string::npos) << text;
  auto ex = exec::Executor::Create(**g);
  ASSERT_TRUE(ex.ok());
  ir::Tensor x(ir::DType::kF32, {1, 2, 4, 4});
  for (int i = 0; i < 32; ++i) x.data<float>()[i] = 0.1f * i;
  auto out = (*ex)->Run({x});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), (ir::Shape{1, 5}));
}

TEST(Importer, MalformedProtobuf) {
  std::vector<uint8_t> junk = {0x08, 0x96, 0x01, 0xff, 0xff, 0xff, 0x12};
  auto r = ImportOnnxBytes(junk, "junk.onnx", "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "junk.onnx: not a valid ONNX model (protobuf parsing failed)");
  std::vector<uint8_t> truncated = Bytes(SmallCnn());
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(ImportOnnxBytes(truncated, "t.onnx", "").ok());
}

TEST(Importer, WrongInitializerSizes) {
  onnx::ModelProto m = SmallCnn();
  m.mutable_graph()->mutable_initializer(1)->set_raw_data(std::string(8, '\0'));  // b needs 12 bytes
  EXPECT_EQ(ImportError(m), "m.onnx: initializer 'b': raw data is 8 bytes, shape [3] of f32 needs 12");
  // A huge declared shape with a few bytes of data is refused without allocating.
  onnx::ModelProto h = SmallCnn();
  auto* t = h.mutable_graph()->mutable_initializer(1);
  t->clear_dims();
  t->add_dims(1000000);
  t->add_dims(1000000);
  EXPECT_NE(ImportError(h).find("initializer 'b'"), std::string::npos);
  // Typed-field data with the wrong element count.
  onnx::ModelProto f = SmallCnn();
  auto* ft = f.mutable_graph()->mutable_initializer(1);
  ft->clear_raw_data();
  ft->add_float_data(1.f);
  EXPECT_NE(ImportError(f).find("'b'"), std::string::npos);
}

TEST(Importer, CyclesAndMissingInputs) {
  onnx::ModelProto m = SmallCnn();
  // Relu reads the output of Flatten, which reads the Relu: a cycle.
  m.mutable_graph()->mutable_node(1)->set_input(0, "f");
  EXPECT_EQ(ImportError(m),
            "m.onnx: ONNX checker: Nodes in a graph must be topologically sorted, however input 'f' "
            "of node: name: Relu_r OpType: Relu is not output of any previous nodes.");
  onnx::ModelProto mi = SmallCnn();
  mi.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  EXPECT_EQ(ImportError(mi),
            "m.onnx: ONNX checker: Nodes in a graph must be topologically sorted, however input "
            "'nowhere' of node: name: Relu_r OpType: Relu is not output of any previous nodes.");
}

TEST(Importer, ShapesThatDoNotAgree) {
  onnx::ModelProto m = SmallCnn();
  // The declared output shape disagrees with what the graph computes.
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(7);
  EXPECT_EQ(ImportError(m),
            "m.onnx: ONNX shape inference: [ShapeInferenceError] (op_type:Gemm, node name: Gemm_y): "
            "[ShapeInferenceError] Inferred shape and existing shape differ in dimension 1: (5) vs (7)");
  // Conv weight channels disagree with the input channels.
  onnx::ModelProto c = SmallCnn();
  c.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(5);
  c.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_param("C");
  EXPECT_EQ(ImportError(c),
            "m.onnx: node 'conv1' (conv): weight input 1 '%w' (f32[3,2,3,3]) expects 2 input channels "
            "per group, input [1,5,4,4] has 5 channels in 1 groups [ONNX Conv]");
}

TEST(Importer, UnsupportedOpsAttributesAndOpsets) {
  onnx::ModelProto m = SmallCnn();
  m.mutable_graph()->mutable_node(1)->set_op_type("LRN");
  IntAttr(m.mutable_graph()->mutable_node(1), "size", 3);
  EXPECT_EQ(ImportError(m), "m.onnx: node 'Relu_r' (LRN): op type 'LRN' is not supported");
  onnx::ModelProto p = NewModel();
  Input(p, "x", {1, 1, 4, 4});
  auto* mp = Node(p, "MaxPool", {"x"}, {"y"}, "pool");
  IntsAttr(mp, "kernel_shape", {2, 2});
  IntAttr(mp, "storage_order", 1);
  Output(p, "y", {1, 1, 3, 3});
  EXPECT_EQ(ImportError(p), "m.onnx: node 'pool' (MaxPool): attribute 'storage_order' = 1 is not supported");
  onnx::ModelProto d = NewModel();
  Input(d, "x", {1, 1, 4, 4, 4});
  auto* p3 = Node(d, "MaxPool", {"x"}, {"y"}, "pool3d");
  IntsAttr(p3, "kernel_shape", {2, 2, 2});
  Output(d, "y", {1, 1, 3, 3, 3});
  EXPECT_EQ(ImportError(d),
            "m.onnx: node 'pool3d' (MaxPool): only 1-D and 2-D (NCL, NCHW) inputs are supported, input 'x' "
            "has rank 5");
  onnx::ModelProto future = SmallCnn();
  future.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(ImportError(future), "m.onnx: opset 18 is not supported (11..17 are)");
  // Older opsets: accepted node by node when the op's definition is one its converter reads.
  onnx::ModelProto old = NewModel(5);
  Input(old, "x", {1, 4});
  Init(old, "w", {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Init(old, "c", {3}, {1, 2, 3});
  Node(old, "Gemm", {"x", "w", "c"}, {"y"}, "gemm5");
  Output(old, "y", {1, 3});
  EXPECT_EQ(ImportError(old),
            "m.onnx: node 'gemm5' (Gemm): the opset 5 definition of Gemm (version 1) is not supported (versions >= "
            "6 are); re-export with opset >= 11");
  // Found by fuzz_onnx: ONNX 1.12's Gemm-6 shape inference crashed (SIGSEGV) on a rank-0 input (GuardOnnxSchemas),
  // and an input without a shape was imported as a scalar.
  onnx::ModelProto gemm6 = NewModel(6);
  Input(gemm6, "x", {});
  Init(gemm6, "w", {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Init(gemm6, "c", {3}, {1, 2, 3});
  Node(gemm6, "Gemm", {"x", "w", "c"}, {"y"}, "gemm6");
  Output(gemm6, "y", {1, 3});
  const std::string gemm6_rank0 =
      "m.onnx: ONNX shape inference: [ShapeInferenceError] Shape inference error(s): (op_type:Gemm, node name: "
      "gemm6): [ShapeInferenceError] input A has rank 0; Gemm needs rank 2";
  EXPECT_EQ(ImportError(gemm6), gemm6_rank0);
  // The same through a rank-0 intermediate (a reduction without keepdims), whose rank only ONNX's inference knows.
  onnx::ModelProto reduced = NewModel(6);
  Input(reduced, "x", {2, 3});
  Init(reduced, "w", {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Init(reduced, "c", {3}, {1, 2, 3});
  auto* sum = Node(reduced, "ReduceSum", {"x"}, {"s"}, "sum");
  IntsAttr(sum, "axes", {0, 1});
  IntAttr(sum, "keepdims", 0);
  Node(reduced, "Gemm", {"s", "w", "c"}, {"y"}, "gemm6");
  Output(reduced, "y", {1, 3});
  EXPECT_EQ(ImportError(reduced), gemm6_rank0);
  onnx::ModelProto shapeless = SmallCnn();
  shapeless.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_NE(ImportError(shapeless).find("has no declared shape"), std::string::npos) << ImportError(shapeless);
  onnx::ModelProto conv10 = NewModel(10);
  Input(conv10, "x", {1, 2, 4, 4});
  Init(conv10, "w", {3, 2, 1, 1}, {1, 2, 3, 4, 5, 6});
  Node(conv10, "Conv", {"x", "w"}, {"y"}, "conv10");
  Output(conv10, "y", {1, 3, 4, 4});
  EXPECT_TRUE(ImportOnnxBytes(Bytes(conv10), "m.onnx", "").ok());
  onnx::ModelProto ok10 = NewModel(10);
  Input(ok10, "x", {1, 2, 4, 4});
  Node(ok10, "GlobalAveragePool", {"x"}, {"y"}, "gap");
  Output(ok10, "y", {1, 2, 1, 1});
  EXPECT_TRUE(ImportOnnxBytes(Bytes(ok10), "m.onnx", "").ok());
  onnx::ModelProto dom = SmallCnn();
  dom.mutable_graph()->mutable_node(1)->set_domain("com.microsoft");
  auto* o = dom.add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  EXPECT_NE(ImportError(dom).find("Relu_r"), std::string::npos);
}

TEST(Importer, SizeLimit) {
  ImportOptions o;
  o.max_model_bytes = 100;
  auto r = ImportOnnxBytes(Bytes(SmallCnn()), "big.onnx", "", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("exceeds the limit of 100 bytes"), std::string::npos);
}

TEST(Importer, SymbolicDimensionsNeedABinding) {
  onnx::ModelProto m = SmallCnn();
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("N");
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("N");
  EXPECT_EQ(ImportError(m), "m.onnx: input 'x' dimension 0 is symbolic ('N'); give a concrete shape");
  ImportOptions o;
  o.input_shapes["x"] = {3, 2, 4, 4};
  auto g = ImportOnnxBytes(Bytes(m), "m.onnx", "", o);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)->outputs()[0]->type().shape, (ir::Shape{3, 5}));
  o.input_shapes.clear();
  o.symbolic_dim_value = 2;
  g = ImportOnnxBytes(Bytes(m), "m.onnx", "", o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)->outputs()[0]->type().shape, (ir::Shape{2, 5}));
  o.input_shapes["nope"] = {1};
  EXPECT_EQ(ImportError(m, o), "m.onnx: a shape was given for 'nope', which is not a graph input");
}

// A negative dimension is not symbolic: it is refused, naming the input, even
// when symbolic dimensions have a value (issue 15, finding 11).
TEST(Importer, NegativeDimensionsAreErrors) {
  onnx::ModelProto m = SmallCnn();
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(-1);
  const std::string want = "m.onnx: input 'x' dimension 1 is -1; a dimension is >= 0 or symbolic";
  EXPECT_EQ(ImportError(m), want);
  ImportOptions o;
  o.symbolic_dim_value = 2;
  EXPECT_EQ(ImportError(m, o), want);
}

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tessera_ext_" + std::to_string(::getpid()));
    fs::create_directories(root_ / "model");
    std::ofstream(root_ / "model" / "w.bin", std::ios::binary).write(std::string(48, '\0').data(), 48);
    std::ofstream(root_ / "outside.bin", std::ios::binary).write(std::string(12, '\0').data(), 12);
    fs::create_symlink(root_ / "outside.bin", root_ / "model" / "link.bin");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Import(const std::string& location, const std::string& offset = "") {
    onnx::ModelProto m = SmallCnn();
    auto* t = m.mutable_graph()->mutable_initializer(1);  // b: 12 bytes
    t->clear_raw_data();
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    if (!offset.empty()) {
      kv = t->add_external_data();
      kv->set_key("offset");
      kv->set_value(offset);
      kv = t->add_external_data();
      kv->set_key("length");
      kv->set_value("12");
    }
    const std::string path = (root_ / "model" / "m.onnx").string();
    const std::vector<uint8_t> bytes = Bytes(m);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    auto r = ImportOnnxFile(path);
    return r.ok() ? "ok" : r.status().message();
  }
  fs::path root_;
};

TEST_F(ExternalData, InsideTheFolderLoads) { EXPECT_EQ(Import("w.bin", "36"), "ok"); }

TEST_F(ExternalData, EscapingPathsAreRefused) {
  EXPECT_NE(Import("../outside.bin").find("must be relative to the model's folder without '..'"), std::string::npos);
  EXPECT_NE(Import((root_ / "outside.bin").string()).find("must be relative"), std::string::npos);
  EXPECT_NE(Import("link.bin").find("escapes the model's folder"), std::string::npos);
  EXPECT_NE(Import("missing.bin").find("not found"), std::string::npos);
  EXPECT_NE(Import("w.bin", "40").find("past the end"), std::string::npos);
}

}  // namespace
}  // namespace tessera::frontend

namespace tessera::frontend {
namespace {

// Every node that cannot be imported is reported in one error, grouped by op
// type; nodes reading their results are not reported again.
TEST(Importer, EveryUnsupportedNodeIsReportedAtOnceByOpType) {
  onnx::ModelProto m = NewModel();
  Input(m, "x", {1, 1, 4, 4});
  IntAttr(Node(m, "LRN", {"x"}, {"a"}, "lrn1"), "size", 3);
  Node(m, "Relu", {"a"}, {"b"}, "after_lrn");
  Node(m, "NonZero", {"x"}, {"c"}, "nz");
  IntAttr(Node(m, "LRN", {"x"}, {"d"}, "lrn2"), "size", 3);
  auto* pool = Node(m, "MaxPool", {"x"}, {"e"}, "pool");
  IntsAttr(pool, "kernel_shape", {1, 1});
  IntAttr(pool, "storage_order", 1);
  Node(m, "Sum", {"b", "c", "d", "e"}, {"y"});
  Output(m, "y", {1, 1, 4, 4});
  EXPECT_EQ(ImportError(m),
            "m.onnx: 4 parts of the model cannot be imported (LRN x2, NonZero x1, MaxPool x1):\n"
            "  node 'lrn1' (LRN): op type 'LRN' is not supported\n"
            "  node 'lrn2' (LRN): op type 'LRN' is not supported\n"
            "  node 'nz' (NonZero): op type 'NonZero' is not supported\n"
            "  node 'pool' (MaxPool): attribute 'storage_order' = 1 is not supported");
}

// Shape arithmetic on static shapes (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape, as torch exports x.view(x.size(0), -1)) folds to constants at import.
TEST(Importer, ConstantShapeSubgraphsFoldAway) {
  onnx::ModelProto m = NewModel();
  Input(m, "x", {2, 3, 4});
  auto* idx = m.mutable_graph()->add_initializer();
  idx->set_name("zero");
  idx->set_data_type(onnx::TensorProto::INT64);
  idx->add_int64_data(0);
  auto* minus1 = m.mutable_graph()->add_initializer();
  minus1->set_name("minus1");
  minus1->set_data_type(onnx::TensorProto::INT64);
  minus1->add_dims(1);
  minus1->add_int64_data(-1);
  auto* axes = m.mutable_graph()->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(0);
  Node(m, "Shape", {"x"}, {"s"});
  Node(m, "Gather", {"s", "zero"}, {"n"});
  Node(m, "Unsqueeze", {"n", "axes"}, {"n1"});
  IntAttr(Node(m, "Concat", {"n1", "minus1"}, {"shape"}), "axis", 0);
  Node(m, "Reshape", {"x", "shape"}, {"y"});
  Output(m, "y", {2, 12});
  auto g = ImportOnnxBytes(Bytes(m), "m.onnx", "");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ((*g)->nodes().size(), 1u) << ir::PrintGraph(**g);
  EXPECT_EQ((*g)->nodes()[0]->op(), "reshape");
  EXPECT_EQ((*g)->outputs()[0]->type().shape, (ir::Shape{2, 12}));
}

TEST(Importer, DocsListEverySupportedOnnxOp) {
  std::ifstream in("docs/compiler.md");
  ASSERT_TRUE(in.good()) << "run from the repository root";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string table = doc.substr(doc.find("**Supported ops and attributes**"));
  for (const std::string& op : SupportedOnnxOps())
    EXPECT_NE(table.find(op), std::string::npos) << op << " is missing from docs/compiler.md";
}

}  // namespace
}  // namespace tessera::frontend

#include <random>

#include "compiler/ir/verifier.h"

namespace tessera::frontend {
namespace {

// Corrupted models (bytes flipped, truncated, fields rewritten) must give an
// error or a graph that verifies -- never a crash or a hang.
TEST(Importer, CorruptedModelsNeverCrash) {
  const std::vector<uint8_t> good = Bytes(SmallCnn());
  std::mt19937 rng(1234);
  int errors = 0, imported = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> b = good;
    const int flips = 1 + iter % 4;
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    if (iter % 7 == 0) b.resize(rng() % b.size());
    auto g = ImportOnnxBytes(b, "fuzz.onnx", "");
    if (!g.ok()) {
      ++errors;
      EXPECT_FALSE(g.status().message().empty());
      continue;
    }
    ++imported;
    EXPECT_TRUE(ir::Verify(**g).ok());
    // Valid-but-odd graphs also run (when their tensors stay small).
    int64_t biggest = 0;
    for (const ir::Node* n : (*g)->nodes()) biggest = std::max(biggest, n->output()->type().numel());
    if (biggest > (1 << 20)) continue;
    auto ex = exec::Executor::Create(**g);
    ASSERT_TRUE(ex.ok()) << ex.status().ToString();
    std::vector<ir::Tensor> ins;
    for (const ir::Value* in : (*g)->inputs()) ins.emplace_back(in->type().dtype, in->type().shape);
    auto out = (*ex)->Run(ins);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
  }
  EXPECT_GT(errors, 0);
  std::printf("corrupted models: %d rejected, %d still valid\n", errors, imported);
}

}  // namespace
}  // namespace tessera::frontend

namespace tessera::frontend {
namespace {

TEST(Importer, OneDimensionalConvRunsAsTwoDimensional) {
  onnx::ModelProto m = NewModel();
  Input(m, "x", {1, 2, 6});
  Init(m, "w", {1, 2, 3}, {1, 0, -1, 2, 2, 2});
  auto* c = Node(m, "Conv", {"x", "w"}, {"y"}, "conv1d");
  IntsAttr(c, "pads", {1, 0});
  IntsAttr(c, "strides", {2});
  Output(m, "y", {1, 1, 3});
  auto g = ImportOnnxBytes(Bytes(m), "m.onnx", "");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const std::string text = ir::PrintGraph(**g);
  EXPECT_NE(text.find("%w.2d: f32[1,2,1,3] = const [1, 0, -1, 2, 2, 2]"), std::string::npos) << text;
  EXPECT_NE(text.find("conv(%x.2d, %w.2d) {dilations=[1, 1], group=1, pads=[0, 1, 0, 0], strides=[1, 2]}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%y: f32[1,1,3] = squeeze("), std::string::npos) << text;
  auto ex = exec::Executor::Create(**g);
  ASSERT_TRUE(ex.ok());
  ir::Tensor x(ir::DType::kF32, {1, 2, 6});
  for (int i = 0; i < 12; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto out = (*ex)->Run({x});
  ASSERT_TRUE(out.ok());
  // Padded row 0: [0, 0..5], row 1: [0, 6..11]; windows start at -1, 1, 3.
  const float want[3] = {(0 - 1) + 2 * (0 + 6 + 7), (1 - 3) + 2 * (7 + 8 + 9), (3 - 5) + 2 * (9 + 10 + 11)};
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[0].data<float>()[i], want[i]) << i;
}

}  // namespace
}  // namespace tessera::frontend
