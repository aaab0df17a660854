// Compiled models on the Verilated RTL against `sim`: the digits CNN on the
// default and tiny configs, through the model session (the same artifact,
// the same images): identical outputs, identical counters for the whole
// run and for every accelerator layer (cycles, stall categories, traffic).
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/backend/session.h"
#include "driver/registry.h"
#include "isa/regs.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

RunResult RunOn(const tsr::Model& model, const std::string& target, const ir::Tensor& x) {
  SessionOptions o;
  o.target = target;
  auto s = Session::Open(std::make_unique<tsr::Model>(model), o);
  EXPECT_TRUE(s.ok()) << target << ": " << s.status().ToString();
  if (!s.ok()) return {};
  auto r = (*s)->Run({x});
  EXPECT_TRUE(r.ok()) << target << ": " << r.status().ToString();
  return r.ok() ? std::move(*r) : RunResult{};
}

class RtlModel : public ::testing::TestWithParam<const char*> {};

TEST_P(RtlModel, DigitsCnnMatchesSimToTheCycle) {
  HwConfig cfg = testing::LoadConfigOrDie(std::string("configs/") + GetParam() + ".json");
  Compiled c = CompileModel("digits", cfg);
  ASSERT_TRUE(c.model);
  const std::vector<ir::Tensor> images = Inputs(kModels + "/digits/test_x.npy", c.graph->inputs()[0]->type(), 2);
  ASSERT_EQ(images.size(), 2u);
  for (const ir::Tensor& x : images) {
    const RunResult sim = RunOn(*c.model, "sim", x), rtl = RunOn(*c.model, "rtl", x);
    ASSERT_EQ(sim.outputs.size(), rtl.outputs.size());
    for (size_t i = 0; i < sim.outputs.size(); ++i) {
      ASSERT_EQ(sim.outputs[i].nbytes(), rtl.outputs[i].nbytes());
      EXPECT_EQ(std::memcmp(sim.outputs[i].raw(), rtl.outputs[i].raw(), sim.outputs[i].nbytes()), 0) << "output " << i;
    }
    EXPECT_GT(sim.stats.device.cycles, 0);
    EXPECT_TRUE(sim.stats.device == rtl.stats.device)
        << "cycles: sim " << sim.stats.device.cycles << ", rtl " << rtl.stats.device.cycles;
    ASSERT_EQ(sim.stats.layers.size(), rtl.stats.layers.size());
    for (size_t l = 0; l < sim.stats.layers.size(); ++l)
      EXPECT_TRUE(sim.stats.layers[l].counters == rtl.stats.layers[l].counters)
          << sim.stats.layers[l].node << ": cycles sim " << sim.stats.layers[l].counters.cycles << ", rtl "
          << rtl.stats.layers[l].counters.cycles;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, RtlModel, ::testing::Values("default", "tiny"));

}  // namespace
}  // namespace tessera::backend
