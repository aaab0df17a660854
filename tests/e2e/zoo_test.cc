// The model zoo (tools/models/zoo_model.py: torchvision families with seeded
// random init and hand-written SE, concat, U-Net, transformer and LSTM
// models): each model imports, matches torch in fp32, compiles for the default
// config and runs on `sim` bit-exactly against the int8 CPU reference. Its
// accelerator MAC share must not fall, and its host round trips must not rise,
// below the figures recorded in docs/model-zoo.md (tools/models/zoo_table.py
// writes that table from the summaries this test leaves in
// <build>/models/zoo/<model>/summary.json).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "compiler/backend/offload.h"
#include "tests/e2e/e2e_util.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

std::string Dir(const std::string& m) { return kModels + "/zoo/" + m; }

ir::Tensor Load(const std::string& path) {
  auto t = compiler::LoadNpyTensor(path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : ir::Tensor();
}

struct Baseline {
  double share_percent = -1;
  int64_t round_trips = -1;
};

// The model's row of docs/model-zoo.md: "| `name` | share % | round trips | ...".
Baseline RecordedFigures(const std::string& m) {
  std::ifstream in("docs/model-zoo.md");
  EXPECT_TRUE(in.good()) << "run from the repository root";
  Baseline b;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `" + m + "` |", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    for (std::string c; std::getline(ss, c, '|');) cells.push_back(c);
    if (cells.size() < 3) break;
    b.share_percent = std::stod(cells[1]);
    b.round_trips = std::stoll(cells[2]);
  }
  return b;
}

class Zoo : public ::testing::TestWithParam<std::string> {};

TEST_P(Zoo, MatchesTorchAndRunsBitExactOnSim) {
  const std::string m = GetParam();
  // fp32: the imported graph after the default passes against torch.
  compiler::CompileOptions fo;
  auto f = compiler::Compile(Dir(m) + "/model.onnx", fo);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const ir::Tensor x = Load(Dir(m) + "/input.npy");
  auto ex = exec::Executor::Create(*f->graph);
  ASSERT_TRUE(ex.ok()) << ex.status().ToString();
  auto out = (*ex)->Run({x});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const ir::Tensor want = Load(Dir(m) + "/torch_out.npy");
  ASSERT_EQ((*out)[0].shape(), want.shape());
  double num = 0, den = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    num = std::max(num, double(std::fabs((*out)[0].data<float>()[i] - want.data<float>()[i])));
    den = std::max(den, double(std::fabs(want.data<float>()[i])));
  }
  EXPECT_LE(num / den, 1e-4) << m << ": fp32 differs from torch (max |diff| / max |torch|)";

  // int8 on sim against the int8 CPU reference.
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  Compiled c = CompileModel("zoo/" + m, cfg);
  ASSERT_TRUE(c.model);
  RunnerOptions ro;
  ro.target = "sim";
  auto runner = ModelRunner::Create(*c.model, ro);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  auto golden = exec::Executor::Create(*c.graph);
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  RunProfile prof;
  auto got = (*runner)->Run({x}, &prof);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto ref = (*golden)->Run({x});
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  ASSERT_EQ(got->size(), ref->size());
  for (size_t k = 0; k < got->size(); ++k)
    EXPECT_TRUE((*got)[k].BytesEqual((*ref)[k])) << m << ": output " << k << " differs from the int8 CPU reference";

  const OffloadSummary s = SummarizeOffload(*c.model, *c.graph);
  const double share = 100.0 * s.mac_share();
  std::ofstream(Dir(m) + "/summary.json") << fmt::format(
      "{{\"model\": \"{}\", \"mac_share_percent\": {:.2f}, \"round_trips\": {}, "
      "\"round_trip_bytes\": {}, \"total_macs\": {}, \"accel_macs\": {}, \"cycles\": {}, "
      "\"gemm_utilization_percent\": {:.2f}}}\n",
      m, share, s.round_trips, s.round_trip_bytes, s.total_macs, s.accel_macs, prof.device.cycles,
      100.0 * prof.device.GemmUtilization(cfg));
  std::printf("%s: %.2f%% of %lld MACs on the accelerator, %lld round trips (%lld bytes), %lld cycles\n", m.c_str(),
              share, static_cast<long long>(s.total_macs), static_cast<long long>(s.round_trips),
              static_cast<long long>(s.round_trip_bytes), static_cast<long long>(prof.device.cycles));
  const Baseline b = RecordedFigures(m);
  ASSERT_GE(b.share_percent, 0) << m << " has no row in docs/model-zoo.md (run tools/models/zoo_table.py)";
  EXPECT_GE(share, b.share_percent - 0.01) << m << ": the accelerator MAC share fell";
  EXPECT_LE(s.round_trips, b.round_trips) << m << ": more host round trips";
}

std::vector<std::string> Models() {
  std::vector<std::string> v;
  std::stringstream ss(TESSERA_ZOO_MODELS);
  for (std::string m; std::getline(ss, m, ',');) v.push_back(m);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Models, Zoo, ::testing::ValuesIn(Models()), [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tessera::backend
