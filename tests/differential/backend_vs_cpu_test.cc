// Random int8 networks built in the graph IR (tests/support/random_net.h:
// convolution of any kernel size, stride, padding, odd channel counts, or
// depthwise, optional max pool, a residual add with a 1x1 branch, global
// average pool, flatten, dense) compiled for every bundled config and run on
// `sim`, bit-exact against the int8 CPU reference executor (the golden
// model) on the same graph.
#include <gtest/gtest.h>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "tests/support/random_isa.h"
#include "tests/support/random_net.h"

namespace tessera::backend {
namespace {

class BackendVsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendVsCpu, RandomNetworksAreBitExactOnSim) {
  HwConfig cfg = testing::LoadConfigOrDie(GetParam());
  int too_big = 0;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    testing::NetBuilder b(seed * 7919 + cfg.block_in);
    std::string desc;
    std::unique_ptr<ir::Graph> g = b.Make(&desc);
    auto model = CompileGraph(*g, cfg);
    if (!model.ok() && model.status().code() == StatusCode::kResourceExhausted) {
      // A layer too big for the config's scratchpads (ice40-up5k): a smaller network.
      testing::NetChoices choices;
      choices.max_channels = 8;
      g = testing::NetBuilder(seed * 7919 + cfg.block_in).Make(&desc, choices);
      model = CompileGraph(*g, cfg);
      // A reduction too long for half the weight scratchpad (a 7x7 kernel on 1 KiB) is refused.
      if (!model.ok() && model.status().code() == StatusCode::kResourceExhausted) {
        ++too_big;
        continue;
      }
    }
    ASSERT_TRUE(ir::Verify(*g).ok()) << ir::Verify(*g).ToString() << "\n" << ir::PrintGraph(*g);
    ASSERT_TRUE(model.ok()) << desc << ": " << model.status().ToString();
    int accel = 0;
    for (const tsr::Step& s : (*model)->steps())  // a step with fused nodes (a conv's pool or add) computes them too
      accel += s.kind() == tsr::Step::ACCEL ? 1 + s.fused_size() : 0;
    EXPECT_EQ(accel, static_cast<int>(g->num_nodes()) - 1) << desc << ": every layer but flatten on the accelerator";
    RunnerOptions ro;
    ro.target = "sim";
    auto runner = ModelRunner::Create(**model, ro);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    auto golden = exec::Executor::Create(*g);
    ASSERT_TRUE(golden.ok());
    ir::Tensor x(ir::DType::kI8, g->inputs()[0]->type().shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(b.U(-128, 127));
    auto got = (*runner)->Run({x});
    auto want = (*golden)->Run({x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_TRUE((*got)[0].BytesEqual((*want)[0])) << GetParam() << " seed " << seed << ": " << desc << "\n"
                                                  << ir::PrintGraph(*g);
  }
  EXPECT_LE(too_big, 4) << "most random networks must fit every bundled config";
}

INSTANTIATE_TEST_SUITE_P(Configs, BackendVsCpu, ::testing::ValuesIn(testing::BundledConfigPaths()),
                         testing::ConfigParamName());

}  // namespace
}  // namespace tessera::backend
