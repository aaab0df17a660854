// Whole models compiled for the accelerator and run end to end: outputs on
// `sim` (and `ref`) must equal the int8 CPU reference executor's bit for bit,
// on every bundled config. Models are generated at build time (torchvision
// random-init exports, digits networks trained on sklearn's digits).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

// The helpers report what is missing as a test failure, never by aborting on
// an errored StatusOr, and a comparison over no inputs fails: it checks nothing.
const Compiled& Digits() {
  static const Compiled c = CompileModel("digits", testing::LoadConfigOrDie("configs/default.json"));
  return c;
}
void CompareNoInputs() { ExpectBitExact(Digits(), "sim", {}); }
void CompareNoModel() { ExpectBitExact(Compiled{}, "sim", {}); }
void MissingModel() {
  EXPECT_FALSE(CompileModel("no_such_model", testing::LoadConfigOrDie("configs/default.json")).model);
}
void MissingInputs() { EXPECT_TRUE(Inputs("no_such_inputs.npy", Digits().graph->inputs()[0]->type(), 1).empty()); }
void TooFewInputs() { Inputs(kModels + "/digits/test_x.npy", Digits().graph->inputs()[0]->type(), 100000); }

TEST(E2EHelpers, FailInsteadOfAborting) {
  ASSERT_TRUE(Digits().model);
  EXPECT_FATAL_FAILURE(CompareNoInputs(), "no inputs to compare");
  EXPECT_FATAL_FAILURE(CompareNoModel(), "no compiled model");
  EXPECT_NONFATAL_FAILURE(MissingModel(), "no_such_model: calibration data");
  EXPECT_NONFATAL_FAILURE(MissingInputs(), "no_such_inputs.npy");
  EXPECT_NONFATAL_FAILURE(TooFewInputs(), "100000 wanted");
}

TEST(ModelE2E, DigitsCnnTestSplitOnSimMatchesTheReferenceAndAccuracy) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("digits", cfg);
  ASSERT_TRUE(c.model);
  auto inputs = Inputs(kModels + "/digits/test_x.npy", c.graph->inputs()[0]->type(), 450);
  ASSERT_EQ(inputs.size(), 450u);
  RunnerOptions ro;
  ro.target = "sim";
  auto runner = ModelRunner::Create(*c.model, ro);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  auto golden = exec::Executor::Create(*c.graph);
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  auto labels = compiler::LoadNpyTensor(kModels + "/digits/test_y.npy");
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  int correct = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto got = (*runner)->Run({inputs[i]});
    auto want = (*golden)->Run({inputs[i]});
    ASSERT_TRUE(got.ok() && want.ok());
    ASSERT_TRUE((*got)[0].BytesEqual((*want)[0])) << "image " << i;
    const float* p = (*got)[0].data<float>();
    correct += std::max_element(p, p + 10) - p == labels->data<int64_t>()[i];
  }
  double torch_acc = 0;
  std::ifstream(kModels + "/digits/torch_accuracy.txt") >> torch_acc;
  const double acc = correct / 450.0;
  EXPECT_GE(acc, torch_acc - 0.01) << "int8 on the accelerator " << acc << " vs torch fp32 " << torch_acc;
}

class EveryConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryConfig, DigitsCnnAndMlp) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  for (const char* model : {"digits", "digits_mlp"}) {
    Compiled c = CompileModel(model, cfg);
    ASSERT_TRUE(c.model);
    auto inputs = Inputs(kModels + "/" + model + "/test_x.npy", c.graph->inputs()[0]->type(), 6);
    ASSERT_EQ(inputs.size(), 6u);
    int64_t accel = 0;
    ExpectBitExact(c, "sim", inputs, &accel);
    EXPECT_GE(accel, 3) << model << " on " << cfg.name << ": expected its layers on the accelerator";
    ExpectBitExact(c, "ref", {inputs[0]});
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, EveryConfig, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         testing::ConfigParamName());

TEST(ModelE2E, ResNet18OnSimAndRef) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("resnet18", cfg);
  ASSERT_TRUE(c.model);
  auto inputs = Inputs(kModels + "/resnet18/input.npy", c.graph->inputs()[0]->type(), 1);
  int64_t accel = 0;
  ExpectBitExact(c, "sim", inputs, &accel);
  // 20 convolutions (the max pool runs in conv1's epilogue, each block's
  // residual add in its second conv's), the average pool and fc.
  EXPECT_EQ(accel, 22);
  ExpectBitExact(c, "ref", inputs);
}

TEST(ModelE2E, MobileNetV2OnSim) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("mobilenet_v2", cfg);
  ASSERT_TRUE(c.model);
  int64_t accel = 0;
  ExpectBitExact(c, "sim", Inputs(kModels + "/mobilenet_v2/input.npy", c.graph->inputs()[0]->type(), 1), &accel);
  // 52 convolutions (each of the 10 residual adds runs in its producer's
  // epilogue), the average pool and the classifier.
  EXPECT_EQ(accel, 54);
}

TEST(Artifact, SaveLoadRoundTripAndErrors) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("digits", cfg);
  ASSERT_TRUE(c.model);
  const std::string path = std::string(TESSERA_TEST_OUTPUT_DIR) + "/digits.tsr";
  ASSERT_TRUE(SaveModel(*c.model, path).ok());
  auto back = LoadModelFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->SerializeAsString(), c.model->SerializeAsString());
  // A device with another ISA is refused, naming both configs.
  HwConfig tiny = testing::LoadConfigOrDie("configs/tiny.json");
  RunnerOptions ro;
  ro.target = "sim";
  ro.device_config = &tiny;
  auto r = ModelRunner::Create(**back, ro);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("compiled for config 'default'"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("the device has config 'tiny'"), std::string::npos);
  // A device with the same ISA but other timing is accepted.
  HwConfig slower = testing::LoadConfigOrDie("configs/default.json");
  slower.dram_latency_cycles *= 2;
  slower.dram_bytes_per_cycle /= 2;
  ASSERT_TRUE(ValidateHwConfig(slower, "slower").ok());
  ro.device_config = &slower;
  EXPECT_TRUE(ModelRunner::Create(**back, ro).ok());
  // Corrupted and unknown files.
  std::ofstream(path + ".bad") << "not a model";
  EXPECT_EQ(LoadModelFile(path + ".bad").status().code(), StatusCode::kDataLoss);
  // Another format version (older files, which stored weights twice, or newer) is refused with both numbers.
  for (uint32_t version : {1u, kTsrFormatVersion + 1}) {
    tsr::Model other = **back;
    other.set_format_version(version);
    const std::string other_path = path + ".v" + std::to_string(version);
    ASSERT_TRUE(SaveModel(other, other_path).ok());
    const Status st = LoadModelFile(other_path).status();
    EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(st.message().find(
                  fmt::format("format version {} is not supported (this build reads {})", version, kTsrFormatVersion)),
              std::string::npos)
        << st.message();
  }
  // Weights are stored once, in the graph: weight and channel-parameter buffers hold their packing, no bytes.
  int packed = 0;
  for (const tsr::DeviceBuffer& b : (*back)->buffers()) {
    if (b.name().rfind("w:", 0) == 0) {
      EXPECT_EQ(b.packing().kind(), tsr::Packing::CONV_WEIGHTS) << b.name();
      EXPECT_TRUE(b.data().empty()) << b.name();
      ++packed;
    }
  }
  EXPECT_GT(packed, 0);
  // A packing that names no node of the graph, or disagrees with the buffer size, is refused naming the buffer.
  for (int bad_case = 0; bad_case < 2; ++bad_case) {
    tsr::Model broken = **back;
    for (tsr::DeviceBuffer& b : *broken.mutable_buffers()) {
      if (b.packing().kind() != tsr::Packing::CONV_WEIGHTS) continue;
      if (bad_case == 0) b.mutable_packing()->set_node("no such node");
      if (bad_case == 1) b.set_bytes(b.bytes() + 64);
      break;
    }
    ro.device_config = nullptr;
    auto r2 = ModelRunner::Create(broken, ro);
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.status().code(), StatusCode::kDataLoss) << r2.status().ToString();
    EXPECT_NE(r2.status().message().find("constant buffer 'w:"), std::string::npos) << r2.status().message();
  }
  // Wrong input shape is an error, not a crash.
  ro.device_config = nullptr;
  auto runner = ModelRunner::Create(**back, ro);
  ASSERT_TRUE(runner.ok());
  auto bad = (*runner)->Run({ir::Tensor(ir::DType::kF32, {1, 1, 4, 4})});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::backend
