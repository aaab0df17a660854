// ONNX conformance node tests (Debian libonnx-testdata, data/node/) on the
// fp32 executor, within the ONNX backend tolerance (atol 1e-7, rtol 1e-3;
// integers exact). Every candidate test for a supported op is listed: either
// it must pass, or it must be rejected with the stated error. The table also
// generates docs/onnx-conformance.md (TESSERA_UPDATE_DOCS=1 rewrites it; a
// test fails when the file is stale).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/onnx/importer.h"
#include "isa/base/file.h"
#include "onnx/onnx_pb.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
const char* kRoot = "/usr/share/libonnx-testdata/data/node";

StatusOr<ir::Tensor> LoadPb(const fs::path& p) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(p.string()));
  return frontend::ParseOnnxTensor(bytes, p.string());
}

// Runs one test data set. Operands the IR needs as constants (Reshape's shape,
// Pad's pads, Clip's bounds, quantization scales, axes) are passed by these
// tests as graph inputs; they are frozen from the data set, as a deployment
// would freeze them, and the importer is retried.
std::string RunSet(const fs::path& dir, const fs::path& set, std::set<std::string>* frozen) {
  onnx::ModelProto model;
  {
    auto bytes = ReadBinaryFile((dir / "model.onnx").string());
    if (!bytes.ok() || !model.ParseFromArray(bytes->data(), static_cast<int>(bytes->size()))) return "unreadable model";
  }
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
  StatusOr<std::unique_ptr<ir::Graph>> g = Status(StatusCode::kInternal, "not imported");
  for (int attempt = 0; attempt < 8; ++attempt) {
    g = frontend::ImportOnnxFile((dir / "model.onnx").string(), opt);
    if (g.ok()) break;
    const std::string& m = g.status().message();
    const size_t at = m.find("must be a constant");
    const size_t q1 = m.rfind(" '", at), q0 = m.rfind("input ", q1);
    if (at == std::string::npos || q1 == std::string::npos || q0 == std::string::npos) break;
    const std::string in = m.substr(q1 + 2, m.find('\'', q1 + 2) - q1 - 2);
    if (std::find(input_names.begin(), input_names.end(), in) == input_names.end()) break;
    auto t = LoadPb(file_of(in));
    if (!t.ok()) return t.status().message();
    opt.constant_inputs[in] = std::move(*t);
    frozen->insert(in);
  }
  if (!g.ok()) return "import: " + g.status().message();
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
    // The ONNX backend test tolerance: |got - want| <= atol + rtol * |want|.
    for (int64_t k = 0; k < got.numel(); ++k) {
      const double a = got.GetAsDouble(k), b = want->GetAsDouble(k);
      if (std::fabs(a - b) > 1e-7 + 1e-3 * std::fabs(b) && !(std::isnan(a) && std::isnan(b)))
        return fmt::format("output {} element {}: got {} want {}", i, k, a, b);
    }
  }
  return "";
}

struct Case {
  const char* name;
  const char* error;   // nullptr: must pass; else a substring of the expected import error
  const char* reason;  // why it is rejected (docs)
};

const Case kCases[] = {
    {"test_add", nullptr, nullptr},
    {"test_add_bcast", nullptr, nullptr},
    {"test_add_uint8", nullptr, nullptr},
    {"test_averagepool_1d_default", nullptr, nullptr},
    {"test_averagepool_2d_ceil", nullptr, nullptr},
    {"test_averagepool_2d_default", nullptr, nullptr},
    {"test_averagepool_2d_pads", nullptr, nullptr},
    {"test_averagepool_2d_pads_count_include_pad", nullptr, nullptr},
    {"test_averagepool_2d_precomputed_pads", nullptr, nullptr},
    {"test_averagepool_2d_precomputed_pads_count_include_pad", nullptr, nullptr},
    {"test_averagepool_2d_precomputed_same_upper", nullptr, nullptr},
    {"test_averagepool_2d_precomputed_strides", nullptr, nullptr},
    {"test_averagepool_2d_same_lower", nullptr, nullptr},
    {"test_averagepool_2d_same_upper", nullptr, nullptr},
    {"test_averagepool_2d_strides", nullptr, nullptr},
    {"test_averagepool_3d_default", "only 1-D and 2-D (NCL, NCHW) inputs are supported",
     "3-D pooling (1-D and 2-D spatial ops only)"},
    {"test_basic_conv_with_padding", nullptr, nullptr},
    {"test_basic_conv_without_padding", nullptr, nullptr},
    {"test_basic_convinteger", nullptr, nullptr},
    {"test_batchnorm_epsilon", nullptr, nullptr},
    {"test_batchnorm_epsilon_training_mode", "attribute 'training_mode' = 1 is not supported",
     "training-mode BatchNormalization"},
    {"test_batchnorm_example", nullptr, nullptr},
    {"test_batchnorm_example_training_mode", "attribute 'training_mode' = 1 is not supported",
     "training-mode BatchNormalization"},
    {"test_clip", nullptr, nullptr},
    {"test_clip_default_inbounds", nullptr, nullptr},
    {"test_clip_default_int8_inbounds", nullptr, nullptr},
    {"test_clip_default_int8_max", nullptr, nullptr},
    {"test_clip_default_int8_min", nullptr, nullptr},
    {"test_clip_default_max", nullptr, nullptr},
    {"test_clip_default_min", nullptr, nullptr},
    {"test_clip_example", nullptr, nullptr},
    {"test_clip_inbounds", nullptr, nullptr},
    {"test_clip_outbounds", nullptr, nullptr},
    {"test_clip_splitbounds", nullptr, nullptr},
    {"test_concat_1d_axis_0", nullptr, nullptr},
    {"test_concat_1d_axis_negative_1", nullptr, nullptr},
    {"test_concat_2d_axis_0", nullptr, nullptr},
    {"test_concat_2d_axis_1", nullptr, nullptr},
    {"test_concat_2d_axis_negative_1", nullptr, nullptr},
    {"test_concat_2d_axis_negative_2", nullptr, nullptr},
    {"test_concat_3d_axis_0", nullptr, nullptr},
    {"test_concat_3d_axis_1", nullptr, nullptr},
    {"test_concat_3d_axis_2", nullptr, nullptr},
    {"test_concat_3d_axis_negative_1", nullptr, nullptr},
    {"test_concat_3d_axis_negative_2", nullptr, nullptr},
    {"test_concat_3d_axis_negative_3", nullptr, nullptr},
    {"test_constant", nullptr, nullptr},
    {"test_constant_pad", nullptr, nullptr},
    {"test_conv_with_autopad_same", nullptr, nullptr},
    {"test_conv_with_strides_and_asymmetric_padding", nullptr, nullptr},
    {"test_conv_with_strides_no_padding", nullptr, nullptr},
    {"test_conv_with_strides_padding", nullptr, nullptr},
    {"test_convinteger_with_padding", nullptr, nullptr},
    {"test_convinteger_without_padding", nullptr, nullptr},
    {"test_convtranspose", nullptr, nullptr},
    {"test_convtranspose_1d", nullptr, nullptr},
    {"test_convtranspose_3d", "only 1-D and 2-D (NCL, NCHW) inputs are supported", "3-D transposed convolution"},
    {"test_convtranspose_autopad_same", nullptr, nullptr},
    {"test_convtranspose_dilations", nullptr, nullptr},
    {"test_convtranspose_kernel_shape", nullptr, nullptr},
    {"test_convtranspose_output_shape", nullptr, nullptr},
    {"test_convtranspose_pad", nullptr, nullptr},
    {"test_convtranspose_pads", nullptr, nullptr},
    {"test_convtranspose_with_kernel", "differs from opset 11", "opset 8 ConvTranspose (older definition)"},
    {"test_dequantizelinear", nullptr, nullptr},
    {"test_dequantizelinear_axis", nullptr, nullptr},
    {"test_div", nullptr, nullptr},
    {"test_div_bcast", nullptr, nullptr},
    {"test_div_example", nullptr, nullptr},
    {"test_div_uint8", nullptr, nullptr},
    {"test_edge_pad", nullptr, nullptr},
    {"test_flatten_axis0", nullptr, nullptr},
    {"test_flatten_axis1", nullptr, nullptr},
    {"test_flatten_axis2", nullptr, nullptr},
    {"test_flatten_axis3", nullptr, nullptr},
    {"test_flatten_default_axis", nullptr, nullptr},
    {"test_flatten_negative_axis1", nullptr, nullptr},
    {"test_flatten_negative_axis2", nullptr, nullptr},
    {"test_flatten_negative_axis3", nullptr, nullptr},
    {"test_flatten_negative_axis4", nullptr, nullptr},
    {"test_gemm_all_attributes", nullptr, nullptr},
    {"test_gemm_alpha", nullptr, nullptr},
    {"test_gemm_beta", nullptr, nullptr},
    {"test_gemm_default_matrix_bias", nullptr, nullptr},
    {"test_gemm_default_no_bias", nullptr, nullptr},
    {"test_gemm_default_scalar_bias", nullptr, nullptr},
    {"test_gemm_default_single_elem_vector_bias", nullptr, nullptr},
    {"test_gemm_default_vector_bias", nullptr, nullptr},
    {"test_gemm_default_zero_bias", nullptr, nullptr},
    {"test_gemm_transposeA", nullptr, nullptr},
    {"test_gemm_transposeB", nullptr, nullptr},
    {"test_globalaveragepool", nullptr, nullptr},
    {"test_globalaveragepool_precomputed", nullptr, nullptr},
    {"test_globalmaxpool", nullptr, nullptr},
    {"test_globalmaxpool_precomputed", nullptr, nullptr},
    {"test_identity", nullptr, nullptr},
    {"test_leakyrelu", nullptr, nullptr},
    {"test_leakyrelu_default", nullptr, nullptr},
    {"test_leakyrelu_example", nullptr, nullptr},
    {"test_matmul_2d", nullptr, nullptr},
    {"test_matmul_3d", nullptr, nullptr},
    {"test_matmul_4d", nullptr, nullptr},
    {"test_matmulinteger", nullptr, nullptr},
    {"test_maxpool_1d_default", nullptr, nullptr},
    {"test_maxpool_2d_ceil", nullptr, nullptr},
    {"test_maxpool_2d_default", nullptr, nullptr},
    {"test_maxpool_2d_dilations", nullptr, nullptr},
    {"test_maxpool_2d_pads", nullptr, nullptr},
    {"test_maxpool_2d_precomputed_pads", nullptr, nullptr},
    {"test_maxpool_2d_precomputed_same_upper", nullptr, nullptr},
    {"test_maxpool_2d_precomputed_strides", nullptr, nullptr},
    {"test_maxpool_2d_same_lower", nullptr, nullptr},
    {"test_maxpool_2d_same_upper", nullptr, nullptr},
    {"test_maxpool_2d_strides", nullptr, nullptr},
    {"test_maxpool_2d_uint8", nullptr, nullptr},
    {"test_maxpool_3d_default", "only 1-D and 2-D (NCL, NCHW) inputs are supported",
     "3-D pooling (1-D and 2-D spatial ops only)"},
    {"test_maxpool_with_argmax_2d_precomputed_pads", "optional output 1 'z' is not supported",
     "MaxPool Indices output"},
    {"test_maxpool_with_argmax_2d_precomputed_strides", "attribute 'storage_order' = 1 is not supported",
     "MaxPool Indices output, storage_order = 1"},
    {"test_mul", nullptr, nullptr},
    {"test_mul_bcast", nullptr, nullptr},
    {"test_mul_example", nullptr, nullptr},
    {"test_mul_uint8", nullptr, nullptr},
    {"test_qlinearconv", nullptr, nullptr},
    {"test_qlinearmatmul_2D", nullptr, nullptr},
    {"test_qlinearmatmul_3D", nullptr, nullptr},
    {"test_quantizelinear", nullptr, nullptr},
    {"test_quantizelinear_axis", nullptr, nullptr},
    {"test_reflect_pad", nullptr, nullptr},
    {"test_relu", nullptr, nullptr},
    {"test_reshape_allowzero_reordered", nullptr, nullptr},
    {"test_reshape_extended_dims", nullptr, nullptr},
    {"test_reshape_negative_dim", nullptr, nullptr},
    {"test_reshape_negative_extended_dims", nullptr, nullptr},
    {"test_reshape_one_dim", nullptr, nullptr},
    {"test_reshape_reduced_dims", nullptr, nullptr},
    {"test_reshape_reordered_all_dims", nullptr, nullptr},
    {"test_reshape_reordered_last_dims", nullptr, nullptr},
    {"test_reshape_zero_and_negative_dim", nullptr, nullptr},
    {"test_reshape_zero_dim", nullptr, nullptr},
    {"test_sigmoid", nullptr, nullptr},
    {"test_sigmoid_example", nullptr, nullptr},
    {"test_softmax_axis_0", nullptr, nullptr},
    {"test_softmax_axis_0_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_axis_1", nullptr, nullptr},
    {"test_softmax_axis_1_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_axis_2", nullptr, nullptr},
    {"test_softmax_axis_2_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_default_axis", nullptr, nullptr},
    {"test_softmax_default_axis_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_example", nullptr, nullptr},
    {"test_softmax_example_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_large_number", nullptr, nullptr},
    {"test_softmax_large_number_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_softmax_negative_axis", nullptr, nullptr},
    {"test_softmax_negative_axis_expanded", "op type 'ReduceMax' is not supported",
     "expanded into ReduceMax/Exp/ReduceSum, which are not supported"},
    {"test_squeeze", nullptr, nullptr},
    {"test_squeeze_negative_axes", nullptr, nullptr},
    {"test_sub", nullptr, nullptr},
    {"test_sub_bcast", nullptr, nullptr},
    {"test_sub_example", nullptr, nullptr},
    {"test_sub_uint8", nullptr, nullptr},
    {"test_tanh", nullptr, nullptr},
    {"test_tanh_example", nullptr, nullptr},
    {"test_transpose_all_permutations_0", nullptr, nullptr},
    {"test_transpose_all_permutations_1", nullptr, nullptr},
    {"test_transpose_all_permutations_2", nullptr, nullptr},
    {"test_transpose_all_permutations_3", nullptr, nullptr},
    {"test_transpose_all_permutations_4", nullptr, nullptr},
    {"test_transpose_all_permutations_5", nullptr, nullptr},
    {"test_transpose_default", nullptr, nullptr},
    {"test_unsqueeze_axis_0", nullptr, nullptr},
    {"test_unsqueeze_axis_1", nullptr, nullptr},
    {"test_unsqueeze_axis_2", nullptr, nullptr},
    {"test_unsqueeze_axis_3", nullptr, nullptr},
    {"test_unsqueeze_negative_axes", nullptr, nullptr},
    {"test_unsqueeze_three_axes", nullptr, nullptr},
    {"test_unsqueeze_two_axes", nullptr, nullptr},
    {"test_unsqueeze_unsorted_axes", nullptr, nullptr},
};

struct Result {
  std::string error;
  std::set<std::string> frozen;
};

Result RunCase(const std::string& name) {
  const fs::path dir = fs::path(kRoot) / name;
  Result r;
  int sets = 0;
  for (; fs::exists(dir / ("test_data_set_" + std::to_string(sets))); ++sets) {
    r.error = RunSet(dir, dir / ("test_data_set_" + std::to_string(sets)), &r.frozen);
    if (!r.error.empty()) return r;
  }
  if (!sets) r.error = "no test data";
  return r;
}

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, Node) {
  const Case& c = GetParam();
  ASSERT_TRUE(fs::exists(fs::path(kRoot) / c.name)) << "install libonnx-testdata";
  const Result r = RunCase(c.name);
  if (c.error == nullptr) {
    EXPECT_EQ(r.error, "") << c.name;
  } else {
    EXPECT_NE(r.error.find(c.error), std::string::npos) << c.name << ": " << r.error;
  }
}

INSTANTIATE_TEST_SUITE_P(OnnxNode, Conformance, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

std::string Markdown() {
  int pass = 0;
  for (const Case& c : kCases) pass += c.error == nullptr;
  std::string md = fmt::format(
      "# ONNX conformance node tests\n\n"
      "Generated by `tests/compiler/onnx_conformance_test.cc` from the test table; do not edit by hand.\n"
      "Regenerate: `TESSERA_UPDATE_DOCS=1 build/tests/compiler/onnx_conformance_test "
      "--gtest_filter=ConformanceDoc.*` (run from the repository root).\n\n"
      "Data: Debian `libonnx-testdata` 1.12 (`/usr/share/libonnx-testdata/data/node/`). Each test imports\n"
      "`model.onnx`, runs every `test_data_set_*` on the fp32 CPU executor and compares with the ONNX backend\n"
      "tolerance (|got - want| <= 1e-7 + 1e-3 |want|; integer outputs must match exactly).\n\n"
      "Candidates are all node tests of the supported ops: {} run and pass, {} are rejected with a clear error\n"
      "(the test checks the error). Some tests pass operands the IR needs as constants (Reshape's shape, Pad's\n"
      "pads, Clip's bounds, quantization scales and zero points, Squeeze/Unsqueeze axes) as graph inputs; the\n"
      "harness freezes those from the test data with `ImportOptions::constant_inputs`, as a deployment would.\n\n"
      "| test | result | frozen inputs / reason |\n|---|---|---|\n",
      pass, std::size(kCases) - pass);
  for (const Case& c : kCases) {
    if (c.error) {
      md += fmt::format("| `{}` | rejected | {} |\n", c.name, c.reason);
      continue;
    }
    const Result r = RunCase(c.name);
    std::string frozen;
    for (const auto& f : r.frozen) frozen += (frozen.empty() ? "" : ", ") + ("`" + f + "`");
    md += fmt::format("| `{}` | pass | {} |\n", c.name, frozen);
  }
  return md;
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
