// ONNX conformance on the fp32 executor: every test of the Debian
// libonnx-testdata suites node/, pytorch-converted/, pytorch-operator/ and
// simple/ within the ONNX backend tolerance (atol 1e-7, rtol 1e-3; integers
// exact). A test whose ops are all supported must pass unless kLimitations
// lists it (then it must fail with the stated error); a test using
// an unsupported op type or element type must be refused at import with an
// Unimplemented error naming it. The results generate
// docs/onnx-conformance.md (TESSERA_UPDATE_DOCS=1 rewrites it; the doc test
// fails when the file is stale).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/onnx/importer.h"
#include "isa/base/file.h"
#include "onnx/onnx_pb.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
const char* kRoot = "/usr/share/libonnx-testdata/data";
const char* kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

// Supported ops whose test does not pass, with the reason and a substring of
// the import error.
struct Limitation {
  const char* test;
  const char* error;
  const char* reason;
};
const Limitation kLimitations[] = {
#include "tests/compiler/onnx_conformance_limits.inc"
};

enum class Outcome { kPass, kUnsupportedOp, kUnsupportedType, kLimitation, kFail };

struct Result {
  Outcome outcome = Outcome::kFail;
  std::string detail;            // error, unsupported ops or the limitation's reason
  std::set<std::string> frozen;  // graph inputs frozen to constants
  std::set<std::string> ops;     // op types of the model
};

StatusOr<ir::Tensor> LoadPb(const fs::path& p) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(p.string()));
  return frontend::ParseOnnxTensor(bytes, p.string());
}

// Graph inputs named in "input N 'x' (...) must be a constant" errors.
std::vector<std::string> NeedConstants(const std::string& m) {
  std::vector<std::string> names;
  for (size_t at = m.find("must be a constant"); at != std::string::npos; at = m.find("must be a constant", at + 1)) {
    const size_t q1 = m.rfind(" '", at);
    if (q1 == std::string::npos) continue;
    names.push_back(m.substr(q1 + 2, m.find('\'', q1 + 2) - q1 - 2));
  }
  return names;
}

// Runs one data set; "" on success. Operands the IR needs as constants
// (shapes, pads, axes, scales) that a test passes as graph inputs are frozen
// from the data set, as a deployment would freeze them.
std::string RunSet(const fs::path& dir, const fs::path& set, const onnx::ModelProto& model,
                   std::set<std::string>* frozen, Status* import_error) {
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> input_names;
  for (const auto& in : model.graph().input())
    if (!inits.count(in.name())) input_names.push_back(in.name());
  auto file_of = [&](const std::string& n) {
    const size_t i = std::find(input_names.begin(), input_names.end(), n) - input_names.begin();
    return set / ("input_" + std::to_string(i) + ".pb");
  };
  frontend::ImportOptions opt;
  // Symbolic input dimensions are bound to the test data's shapes.
  for (const auto& in : model.graph().input()) {
    if (inits.count(in.name()) || !in.type().has_tensor_type()) continue;
    bool symbolic = !in.type().tensor_type().has_shape();
    for (const auto& d : in.type().tensor_type().shape().dim()) symbolic |= !d.has_dim_value();
    auto t = symbolic ? LoadPb(file_of(in.name())) : StatusOr<ir::Tensor>(Status(StatusCode::kNotFound, ""));
    if (t.ok()) opt.input_shapes[in.name()] = t->shape();
  }
  auto freeze = [&](const std::string& in) -> std::string {
    auto t = LoadPb(file_of(in));
    if (!t.ok()) return t.status().message();
    opt.input_shapes.erase(in);
    opt.constant_inputs[in] = std::move(*t);
    frozen->insert(in);
    return "";
  };
  StatusOr<std::unique_ptr<ir::Graph>> g = Status(StatusCode::kInternal, "not imported");
  for (int attempt = 0; attempt < 8; ++attempt) {
    g = frontend::ImportOnnxFile((dir / "model.onnx").string(), opt);
    if (g.ok()) break;
    const size_t before = opt.constant_inputs.size();
    for (const std::string& in : NeedConstants(g.status().message())) {
      if (opt.constant_inputs.count(in)) continue;
      if (std::find(input_names.begin(), input_names.end(), in) != input_names.end()) {
        if (std::string e = freeze(in); !e.empty()) return e;
        continue;
      }
      // A value computed from graph inputs: freeze the small integer inputs it may derive from (sizes, counts).
      for (const auto& vi : model.graph().input()) {
        const int et = vi.type().tensor_type().elem_type();
        if (inits.count(vi.name()) || opt.constant_inputs.count(vi.name()) || et == onnx::TensorProto::FLOAT) continue;
        if (std::string e = freeze(vi.name()); !e.empty()) return e;
      }
    }
    if (opt.constant_inputs.size() == before) break;
  }
  if (!g.ok()) {
    *import_error = g.status();
    return "import: " + g.status().message();
  }
  auto ex = exec::Executor::Create(**g);
  if (!ex.ok()) return "prepare: " + ex.status().message();
  std::vector<ir::Tensor> inputs;
  for (const ir::Value* in : (*g)->inputs()) {
    auto t = LoadPb(file_of(in->name()));
    if (!t.ok()) return "input: " + t.status().message();
    inputs.push_back(std::move(*t));
  }
  auto out = (*ex)->Run(inputs);
  if (!out.ok()) return "run: " + out.status().message();
  for (size_t i = 0; i < out->size(); ++i) {
    auto want = LoadPb(set / ("output_" + std::to_string(i) + ".pb"));
    if (!want.ok()) return "output: " + want.status().message();
    const ir::Tensor& got = (*out)[i];
    if (got.dtype() != want->dtype() || got.shape() != want->shape())
      return fmt::format("output {}: got {}{} want {}{}", i, ir::DTypeName(got.dtype()), ir::ShapeToString(got.shape()),
                         ir::DTypeName(want->dtype()), ir::ShapeToString(want->shape()));
    for (int64_t k = 0; k < got.numel(); ++k) {
      const double a = got.GetAsDouble(k), b = want->GetAsDouble(k);
      if (std::fabs(a - b) > 1e-7 + 1e-3 * std::fabs(b) && !(std::isnan(a) && std::isnan(b)) && a != b)
        return fmt::format("output {} element {}: got {} want {}", i, k, a, b);
    }
  }
  return "";
}

const Limitation* FindLimitation(const std::string& name) {
  for (const Limitation& l : kLimitations)
    if (name == l.test) return &l;
  return nullptr;
}

Result RunCase(const std::string& suite, const std::string& name) {
  const fs::path dir = fs::path(kRoot) / suite / name;
  Result r;
  onnx::ModelProto model;
  auto bytes = ReadBinaryFile((dir / "model.onnx").string());
  if (!bytes.ok() || !model.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) {
    r.detail = "unreadable model";
    return r;
  }
  const std::vector<std::string> supported = frontend::SupportedOnnxOps();
  std::set<std::string> missing;
  for (const auto& n : model.graph().node()) {
    r.ops.insert(n.op_type());
    const bool known = std::find(supported.begin(), supported.end(), n.op_type()) != supported.end();
    if (!known || (!n.domain().empty() && n.domain() != "ai.onnx")) missing.insert(n.op_type());
  }
  Status import_error;
  std::string error = "no test data";
  for (int k = 0; fs::exists(dir / ("test_data_set_" + std::to_string(k))); ++k) {
    error = RunSet(dir, dir / ("test_data_set_" + std::to_string(k)), model, &r.frozen, &import_error);
    if (!error.empty()) break;
  }
  const Limitation* lim = FindLimitation(name);
  if (error.empty()) {
    r.outcome = lim ? Outcome::kFail : Outcome::kPass;
    if (lim) r.detail = "passes but is listed as a limitation";
    return r;
  }
  const bool unimplemented = import_error.code() == StatusCode::kUnimplemented;
  if (!missing.empty()) {
    r.outcome = Outcome::kUnsupportedOp;
    for (const std::string& op : missing) {
      r.detail += (r.detail.empty() ? "" : ", ") + op;
      if (!unimplemented || error.find("'" + op + "'") == std::string::npos) r.outcome = Outcome::kFail;
    }
    if (r.outcome == Outcome::kFail) r.detail = "unsupported " + r.detail + " not reported: " + error;
    return r;
  }
  if (unimplemented && error.find("element type") != std::string::npos) {
    r.outcome = Outcome::kUnsupportedType;
    std::set<std::string> types;
    // "... element type DOUBLE is not supported ..." (not the group header "element type x2").
    for (size_t at = error.find("element type "); at != std::string::npos; at = error.find("element type ", at + 1)) {
      const std::string t = error.substr(at + 13, error.find(' ', at + 13) - at - 13);
      if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isupper(c) || std::isdigit(c); }))
        types.insert(t);
    }
    for (const std::string& t : types) r.detail += (r.detail.empty() ? "" : ", ") + t;
    return r;
  }
  if (unimplemented && error.find("is not a tensor") != std::string::npos) {
    r.outcome = Outcome::kUnsupportedType;
    r.detail = "sequence or optional";
    return r;
  }
  if (lim && error.find(lim->error) != std::string::npos) {
    r.outcome = Outcome::kLimitation;
    r.detail = lim->reason;
    return r;
  }
  r.detail = error;
  return r;
}

std::vector<std::string> TestsOf(const std::string& suite) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(kRoot) / suite))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, EveryTestPassesOrIsRefusedWithAReason) {
  ASSERT_TRUE(fs::exists(fs::path(kRoot) / GetParam())) << "install libonnx-testdata";
  for (const std::string& name : TestsOf(GetParam())) {
    const Result r = RunCase(GetParam(), name);
    EXPECT_NE(r.outcome, Outcome::kFail) << GetParam() << "/" << name << ": " << r.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, Conformance,
                         ::testing::Values("node", "pytorch-converted", "pytorch-operator", "simple"),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

std::string Markdown() {
  std::string summary, limits;
  std::map<std::string, int> unsupported_ops;
  std::map<std::string, std::string> by_type;  // element types -> tests
  int node_pass = 0, node_total = 0, frozen = 0;
  for (const char* suite : kSuites) {
    int count[5] = {0, 0, 0, 0, 0};
    const auto names = TestsOf(suite);
    for (const std::string& name : names) {
      const Result r = RunCase(suite, name);
      ++count[static_cast<int>(r.outcome)];
      frozen += r.outcome == Outcome::kPass && !r.frozen.empty();
      if (r.outcome == Outcome::kLimitation) limits += fmt::format("| `{}/{}` | {} |\n", suite, name, r.detail);
      if (r.outcome == Outcome::kUnsupportedType) by_type[r.detail] += fmt::format("`{}/{}`, ", suite, name);
      if (r.outcome == Outcome::kUnsupportedOp) {
        std::string ops = r.detail;
        for (size_t at = 0, next; at <= ops.size(); at = next + 2) {
          next = ops.find(", ", at);
          if (next == std::string::npos) next = ops.size();
          ++unsupported_ops[ops.substr(at, next - at)];
        }
      }
    }
    if (std::string(suite) == "node") node_pass = count[0], node_total = static_cast<int>(names.size());
    summary += fmt::format("| `{}/` | {} | **{}** | {} | {} | {} |\n", suite, names.size(), count[0], count[1],
                           count[2], count[3]);
  }
  std::vector<std::pair<int, std::string>> ops;
  for (const auto& [op, n] : unsupported_ops) ops.emplace_back(-n, op);
  std::sort(ops.begin(), ops.end());
  std::string op_list;
  for (const auto& [n, op] : ops) op_list += fmt::format("{} ({}), ", op, -n);
  if (!op_list.empty()) op_list.resize(op_list.size() - 2);
  std::string types;
  for (auto& [t, tests] : by_type) types += fmt::format("| {} | {} |\n", t, tests.substr(0, tests.size() - 2));
  return fmt::format(
      "# ONNX conformance\n\n"
      "Generated by `tests/compiler/onnx_conformance_test.cc`; do not edit by hand. Regenerate (from the\n"
      "repository root, after building):\n\n"
      "```sh\nTESSERA_UPDATE_DOCS=1 build/tests/compiler/onnx_conformance_test --gtest_filter=ConformanceDoc.*\n```\n\n"
      "Data: Debian `libonnx-testdata` 1.12 (`/usr/share/libonnx-testdata/data/`). Each test imports `model.onnx`,\n"
      "runs every `test_data_set_*` on the fp32 CPU executor and compares with the ONNX backend tolerance\n"
      "(|got - want| <= 1e-7 + 1e-3 |want|; integer and bool outputs exactly). The test asserts that every test\n"
      "whose ops are all supported passes, except the limitations listed below, whose import must fail with\n"
      "the stated error; tests of unsupported op types or element types must be refused at import with an\n"
      "error naming them (every unsupported node of a model is reported at once).\n\n"
      "**Node tests: {} of {} pass ({:.1f}%).** Tests that pass operands the IR needs as constants (a Reshape's\n"
      "shape, Pad's pads, Slice's bounds, axes, quantization scales) as graph inputs are run with those inputs\n"
      "frozen from the test data (`ImportOptions::constant_inputs`), as a deployment would freeze them ({} of\n"
      "the passing tests).\n\n"
      "| suite | tests | pass | unsupported op | unsupported element type | limitation of a supported op |\n"
      "|---|---:|---:|---:|---:|---:|\n{}\n"
      "## Limitations of supported ops\n\n| test | reason |\n|---|---|\n{}\n"
      "## Unsupported element types\n\nTensors of FLOAT, INT8, UINT8, INT32, INT64 and BOOL are supported; these tests "
      "use another type:\n\n| element types | tests |\n|---|---|\n{}\n"
      "## Unsupported op types (number of tests)\n\n{}.\n",
      node_pass, node_total, 100.0 * node_pass / std::max(node_total, 1), frozen, summary, limits, types, op_list);
}

TEST(ConformanceDoc, IsCurrent) {
  const std::string path = "docs/onnx-conformance.md";
  const std::string md = Markdown();
  if (std::getenv("TESSERA_UPDATE_DOCS")) {
    ASSERT_TRUE(WriteFile(path, md).ok());
    return;
  }
  auto text = ReadTextFile(path);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, md) << path << " is stale: rerun with TESSERA_UPDATE_DOCS=1";
}

}  // namespace
}  // namespace tessera
