// The compiler's cost model against `sim` on whole models: every accelerator
// layer of ResNet-18, MobileNetV2 and the digits CNN, compiled for each
// bundled config, is predicted within 3% of the cycles `sim` counts, and the
// roofline of the prediction names the same bound as the roofline of the run.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/backend/cost_model.h"
#include "runtime/recording.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

constexpr double kMaxError = 0.03;

class CostModelEveryConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(CostModelEveryConfig, EveryLayerWithinThreePercentOfSim) {
  const HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  for (const char* name : {"resnet18", "mobilenet_v2", "digits"}) {
    if (!testing::HoldsBundledWorkloads(cfg) && std::string(name) != "digits") continue;
    Compiled c = CompileModel(name, cfg);
    ASSERT_TRUE(c.model);
    RunnerOptions ro;
    ro.target = "sim";
    ro.backend.Set("timing-only", "true");  // the same cycles, without the data
    auto runner = ModelRunner::Create(*c.model, ro);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    const std::string x = kModels + "/" + name + (std::string(name) == "digits" ? "/test_x.npy" : "/input.npy");
    const auto inputs = Inputs(x, c.graph->inputs()[0]->type(), 1);
    ASSERT_EQ(inputs.size(), 1u);
    RunProfile prof;
    auto out = (*runner)->Run(inputs, &prof);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    // The profile lists the layers in step order; pair each ACCEL step with its entry.
    size_t li = 0;
    int accel = 0;
    for (const tsr::Step& st : c.model->steps()) {
      if (st.kind() != tsr::Step::ACCEL && st.kind() != tsr::Step::CPU) continue;
      ASSERT_LT(li, prof.layers.size());
      const LayerProfile& lp = prof.layers[li++];
      if (st.kind() != tsr::Step::ACCEL) continue;
      ++accel;
      const DeviceCounters& sim = lp.counters;
      ASSERT_GT(sim.cycles, 0) << st.node();
      const double err = static_cast<double>(lp.predicted_cycles - sim.cycles) / static_cast<double>(sim.cycles);
      EXPECT_LE(std::abs(err), kMaxError) << name << " on " << cfg.name << ", layer " << st.node() << " (" << st.op()
                                          << "): predicted " << lp.predicted_cycles << ", sim " << sim.cycles;
      // The stored prediction is the recording on the timing engine; its roofline names the run's bound.
      std::vector<uint8_t> bytes(st.recording().begin(), st.recording().end());
      auto rec = Recording::Deserialize(bytes, st.node());
      ASSERT_TRUE(rec.ok()) << rec.status().ToString();
      auto predicted = PredictRecording(cfg, *rec);
      ASSERT_TRUE(predicted.ok()) << predicted.status().ToString();
      EXPECT_EQ(predicted->cycles, lp.predicted_cycles) << st.node();
      // Compared as a device of cfg reports them (without counters.categories
      // neither side has the units' busy cycles).
      const Roofline want = LayerRoofline(cfg, sim), got = LayerRoofline(cfg, predicted->InRegisters(cfg));
      EXPECT_EQ(std::string(BoundName(got.bound)), BoundName(want.bound))
          << name << " on " << cfg.name << ", layer " << st.node();
      EXPECT_LE(want.bound_cycles, sim.cycles) << st.node() << ": a lower bound above the cycles";
    }
    EXPECT_GT(accel, 5) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, CostModelEveryConfig, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera::backend
