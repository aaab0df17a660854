// Whole models compiled for the accelerator and run end to end: outputs on
// `sim` (and `ref`) must equal the int8 CPU reference executor's bit for bit,
// on every bundled config. Models are generated at build time (torchvision
// random-init exports, digits networks trained on sklearn's digits).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

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
  auto labels = compiler::LoadNpyTensor(kModels + "/digits/test_y.npy");
  ASSERT_TRUE(labels.ok());
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
    int64_t accel = 0;
    ExpectBitExact(c, "sim", inputs, &accel);
    EXPECT_GE(accel, 3) << model << " on " << cfg.name << ": expected its layers on the accelerator";
    ExpectBitExact(c, "ref", {inputs[0]});
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, EveryConfig, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         [](const auto& info) { return ConfigTestName(info.param); });

TEST(ModelE2E, ResNet18OnSimAndRef) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("resnet18", cfg);
  ASSERT_TRUE(c.model);
  auto inputs = Inputs(kModels + "/resnet18/input.npy", c.graph->inputs()[0]->type(), 1);
  int64_t accel = 0;
  ExpectBitExact(c, "sim", inputs, &accel);
  EXPECT_EQ(accel, 31);
  ExpectBitExact(c, "ref", inputs);
}

TEST(ModelE2E, MobileNetV2OnSim) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("mobilenet_v2", cfg);
  ASSERT_TRUE(c.model);
  int64_t accel = 0;
  ExpectBitExact(c, "sim", Inputs(kModels + "/mobilenet_v2/input.npy", c.graph->inputs()[0]->type(), 1), &accel);
  EXPECT_EQ(accel, 64);
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
  HwConfig pynq = testing::LoadConfigOrDie("configs/pynq-z1.json");
  ro.device_config = &pynq;
  EXPECT_TRUE(ModelRunner::Create(**back, ro).ok());
  // Corrupted and unknown files.
  std::ofstream(path + ".bad") << "not a model";
  EXPECT_EQ(LoadModelFile(path + ".bad").status().code(), StatusCode::kDataLoss);
  tsr::Model future = **back;
  future.set_format_version(kTsrFormatVersion + 1);
  ASSERT_TRUE(SaveModel(future, path + ".v2").ok());
  EXPECT_NE(LoadModelFile(path + ".v2").status().message().find("format version 2 is not supported"),
            std::string::npos);
  // Wrong input shape is an error, not a crash.
  ro.device_config = nullptr;
  auto runner = ModelRunner::Create(**back, ro);
  ASSERT_TRUE(runner.ok());
  auto bad = (*runner)->Run({ir::Tensor(ir::DType::kF32, {1, 1, 4, 4})});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera::backend
