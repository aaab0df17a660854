// The model session (compiler/backend/session.h): batching over the leading
// dimension, output concatenation, per-layer sums, the renderings the CLI
// writes, and its errors, on every built target from the same artifact.
#include "compiler/backend/session.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compiler/backend/tsr.pb.h"
#include "driver/registry.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

// Three digits images as one [3, 1, 8, 8] batch.
ir::Tensor ThreeImages(const ir::TensorType& t) {
  auto x = compiler::LoadNpyTensor(kModels + "/digits/test_x.npy");
  EXPECT_TRUE(x.ok()) << x.status().ToString();
  ir::Shape shape = t.shape;
  shape[0] *= 3;
  ir::Tensor out(t.dtype, shape);
  if (x.ok()) std::memcpy(out.raw(), x->raw(), out.nbytes());
  return out;
}

class SessionOnEveryTarget : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionOnEveryTarget, BatchesConcatenatesAndSumsLayers) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("digits", cfg);
  ASSERT_TRUE(c.model);
  const ir::TensorType in = c.graph->inputs()[0]->type();
  SessionOptions o;
  o.target = GetParam();
  o.trace = true;
  auto s = Session::Open(std::make_unique<tsr::Model>(*c.model), o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const ir::Tensor x = ThreeImages(in);
  auto r = (*s)->Run({x});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].dim(0), 3 * c.graph->outputs()[0]->type().shape[0]);
  // Each batch equals the golden executor's output for that image.
  auto golden = exec::Executor::Create(*c.graph);
  ASSERT_TRUE(golden.ok());
  const std::vector<ir::Tensor> images = Inputs(kModels + "/digits/test_x.npy", in, 3);
  ASSERT_EQ(images.size(), 3u);
  const size_t out_bytes = r->outputs[0].nbytes() / 3;
  for (int i = 0; i < 3; ++i) {
    auto want = (*golden)->Run({images[i]});
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(std::memcmp(r->outputs[0].raw() + i * out_bytes, (*want)[0].raw(), out_bytes), 0) << "image " << i;
  }
  const RunStats& st = r->stats;
  EXPECT_EQ(st.batches, 3);
  const bool device = (*FindBackend(GetParam()))->is_device();
  EXPECT_EQ(st.layers.empty(), !device);
  for (const LayerStats& l : st.layers) EXPECT_EQ(l.runs, 3) << l.node;
  EXPECT_EQ(st.device.cycles > 0, (*s)->has_timing());
  // The renderings.
  const auto j = nlohmann::json::parse((*s)->StatsJson(st));
  EXPECT_EQ(j["batches"], 3);
  EXPECT_EQ(j["target"], GetParam());
  for (const char* k : {"cycles", "gemm_utilization", "dram_read_bytes", "dram_write_bytes", "fetch", "layers"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["layers"].size(), st.layers.size());
  EXPECT_NE((*s)->LayerTable(st).find("layer"), std::string::npos);
  EXPECT_NE((*s)->Summary(st).find("host"), std::string::npos);
  auto trace = (*s)->TraceJson(st);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const auto events = nlohmann::json::parse(*trace)["traceEvents"];
  EXPECT_GT(events.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Targets, SessionOnEveryTarget, ::testing::ValuesIn([] {
                           std::vector<std::string> t = SelfContainedDeviceTargets();
                           t.insert(t.begin(), "cpu");
                           return t;
                         }()),
                         [](const auto& info) { return info.param; });

TEST(Session, InputErrors) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("digits", cfg);
  ASSERT_TRUE(c.model);
  auto s = Session::Open(std::make_unique<tsr::Model>(*c.model));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const ir::TensorType in = c.graph->inputs()[0]->type();
  ir::Shape empty = in.shape;
  empty[0] = 0;
  auto zero = (*s)->Run({ir::Tensor(in.dtype, empty)});
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(zero.status().message().find("positive multiple"), std::string::npos) << zero.status().message();
  EXPECT_EQ((*s)->Run({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*s)->Run({ir::Tensor(ir::DType::kI8, in.shape)}).status().code(), StatusCode::kInvalidArgument);
  auto r = (*s)->Run({ThreeImages(in)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*s)->TraceJson(r->stats).status().code(), StatusCode::kFailedPrecondition);
  SessionOptions bad;
  bad.target = "rtl";
  EXPECT_EQ(Session::Open(std::make_unique<tsr::Model>(*c.model), bad).status().message(),
            FindBackend("rtl").status().message());
  EXPECT_EQ(Session::Open("no/such/model.tsr").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tessera::backend
