// Compiled models on the Verilated RTL against `sim`: the digits CNN on the
// default and tiny configs, through the model session (the same artifact,
// the same images), and random networks with every kind of layer the
// compiler puts on the accelerator (convolution, depthwise convolution, max
// pool, residual add, average pool, dense) on every config with an rtl model:
// identical outputs, identical counters for the whole run and for every
// accelerator layer (cycles, stall categories, traffic).
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/session.h"
#include "compiler/backend/tsr.pb.h"
#include "driver/registry.h"
#include "isa/regs.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"
#include "tests/support/random_net.h"

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

class RtlLayers : public ::testing::TestWithParam<std::string> {};

// Four random networks per config (tests/support/random_net.h), two with a
// plain and two with a depthwise convolution, all with a max pool: each
// layer of the compiler's accelerator set runs on rtl and on sim.
TEST_P(RtlLayers, CompiledLayersMatchSimToTheCycle) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  std::set<std::string> accel_ops;
  for (int seed = 0; seed < 4; ++seed) {
    testing::NetBuilder b(static_cast<uint64_t>(seed) * 7919 + 17);
    testing::NetChoices choices;
    choices.depthwise = seed % 2;
    choices.max_pool = 1;
    std::string desc;
    std::unique_ptr<ir::Graph> g = b.Make(&desc, choices);
    auto model = CompileGraph(*g, cfg);
    if (!model.ok() && model.status().code() == StatusCode::kResourceExhausted) {
      // A layer too big for the config's scratchpads (ice40-up5k): a smaller network.
      choices.max_channels = 8;
      g = testing::NetBuilder(static_cast<uint64_t>(seed) * 7919 + 17).Make(&desc, choices);
      model = CompileGraph(*g, cfg);
    }
    ASSERT_TRUE(model.ok()) << desc << ": " << model.status().ToString();
    ir::Tensor x(ir::DType::kI8, g->inputs()[0]->type().shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(b.U(-128, 127));
    RunProfile prof[2];
    std::vector<ir::Tensor> out[2];
    const char* const targets[2] = {"sim", "rtl"};
    for (int t = 0; t < 2; ++t) {
      RunnerOptions ro;
      ro.target = targets[t];
      auto runner = ModelRunner::Create(**model, ro);
      ASSERT_TRUE(runner.ok()) << targets[t] << ": " << runner.status().ToString();
      auto r = (*runner)->Run({x}, &prof[t]);
      ASSERT_TRUE(r.ok()) << targets[t] << ": " << r.status().ToString();
      out[t] = std::move(*r);
    }
    const std::string what = cfg.name + " seed " + std::to_string(seed) + ": " + desc;
    ASSERT_EQ(out[0].size(), 1u);
    ASSERT_EQ(out[1].size(), 1u);
    EXPECT_TRUE(out[0][0].BytesEqual(out[1][0])) << what;
    EXPECT_GT(prof[0].device.cycles, 0) << what;
    EXPECT_TRUE(prof[0].device == prof[1].device)
        << what << ": cycles sim " << prof[0].device.cycles << ", rtl " << prof[1].device.cycles;
    ASSERT_EQ(prof[0].layers.size(), prof[1].layers.size()) << what;
    for (size_t l = 0; l < prof[0].layers.size(); ++l) {
      const LayerProfile &a = prof[0].layers[l], &r = prof[1].layers[l];
      EXPECT_TRUE(a.counters == r.counters) << what << ", layer " << a.node << " (" << a.op << "): cycles sim "
                                            << a.counters.cycles << ", rtl " << r.counters.cycles;
      if (!a.accel) continue;
      // A fused layer ("qconv+max_pool", "qconv+qadd") runs each of its ops' sequences. The network's
      // first convolution is the depthwise one when chosen.
      for (size_t at = 0;;) {
        const size_t plus = a.op.find('+', at);
        const std::string op = a.op.substr(at, plus - at);
        const bool depthwise = op == "qconv" && choices.depthwise == 1 && !accel_ops.count("qconv depthwise");
        accel_ops.insert(depthwise ? "qconv depthwise" : op);
        if (plus == std::string::npos) break;
        at = plus + 1;
      }
    }
  }
  for (const char* op : {"qconv", "qconv depthwise", "max_pool", "qadd", "qavg_pool", "qmatmul"})
    EXPECT_TRUE(accel_ops.count(op)) << cfg.name << ": no " << op << " layer ran on the accelerator";
}

INSTANTIATE_TEST_SUITE_P(RtlConfigs, RtlLayers, ::testing::ValuesIn(testing::ConfigPathList(TESSERA_RTL_CONFIG_FILES)),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera::backend
