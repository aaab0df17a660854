// ResNet-18 and MobileNetV2 compiled for the non-default configs and run on
// sim, bit-exact against the int8 CPU reference (the tiny config simulates
// 120 M cycles of ResNet-18, streaming each layer's code into its 16 MiB DRAM).
#include <gtest/gtest.h>

#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

class LargeModelsEveryConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(LargeModelsEveryConfig, ResNet18AndMobileNetV2OnSim) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  for (const char* model : {"resnet18", "mobilenet_v2"}) {
    Compiled c = CompileModel(model, cfg);
    ASSERT_TRUE(c.model);
    ExpectBitExact(c, "sim", Inputs(kModels + "/" + model + "/input.npy", c.graph->inputs()[0]->type(), 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, LargeModelsEveryConfig,
                         ::testing::Values("configs/pynq-z1.json", "configs/large.json", "configs/tiny.json"),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera::backend
