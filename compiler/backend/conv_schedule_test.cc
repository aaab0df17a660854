// The schedule choice (conv_schedule.h) on the default config: a small
// depthwise layer keeps the plain schedule, a large 3x3 conv the overlap one;
// every GEMM layer's predicted cycles are the lesser of the two forced
// schedules', and its summary line names the one it runs.
#include "compiler/backend/conv_schedule.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "compiler/backend/compile.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/ir/parser.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

std::string Ints(int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(-127, 127);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += fmt::format("{}{}", i ? ", " : "", u(rng));
  return s + "]";
}

// %small: a 1x1 depthwise conv (a batch norm) over 48 channels of 8x8 (three
// short tiles);
// %large: a 3x3 conv of 64 to 64 channels over 32x32.
std::string Graph() {
  std::mt19937 rng(5);
  return fmt::format(
      "graph @g(%x: i8[1,48,8,8]<s=0.5>, %y: i8[1,64,32,32]<s=0.5>) {{\n"
      "  %wd: i8[48,1,1,1]<s=0.01> = const {}\n"
      "  %w: i8[64,64,3,3]<s=0.01> = const {}\n"
      "  %small: i8[1,48,8,8]<s=0.5> = qconv(%x, %wd) {{group=48, multiplier=[1073741824], shift=34}}\n"
      "  %large: i8[1,64,32,32]<s=0.5> = qconv(%y, %w) {{multiplier=[1073741824], pads=[1, 1, 1, 1], shift=38}}\n"
      "  return %small, %large\n"
      "}}\n",
      Ints(48, rng), Ints(64 * 64 * 9, rng));
}

struct Layer {
  int64_t cycles = 0;
  std::string reason;
};

// Each accelerator step by its node's output value.
std::map<std::string, Layer> Compile(const HwConfig& cfg, ConvSchedule want) {
  auto g = ir::ParseGraph(Graph());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  BackendOptions o;
  o.conv_schedule = want;
  auto m = CompileGraph(**g, cfg, o);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  std::map<std::string, Layer> out;
  for (const tsr::Step& s : (*m)->steps())
    if (s.kind() == tsr::Step::ACCEL) out[s.value()] = Layer{s.predicted_cycles(), s.reason()};
  return out;
}

TEST(ConvSchedule, SmallLayerPlainLargeLayerOverlap) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  ASSERT_NE(cfg.compute_overlap, 0);
  auto chosen = Compile(cfg, ConvSchedule::kCheapest);
  auto overlap = Compile(cfg, ConvSchedule::kOverlap), plain = Compile(cfg, ConvSchedule::kPlain);
  ASSERT_EQ(chosen.size(), 2u);
  for (const auto& [name, l] : chosen) {
    EXPECT_EQ(l.cycles, std::min(overlap[name].cycles, plain[name].cycles)) << name;
    EXPECT_NE(overlap[name].cycles, plain[name].cycles) << name;  // (so the choice matters)
  }
  const Layer& small = chosen["small"];
  EXPECT_EQ(small.cycles, plain["small"].cycles);
  EXPECT_NE(small.reason.find(fmt::format("; plain schedule (overlap {} cycles)", overlap["small"].cycles)),
            std::string::npos)
      << small.reason;
  const Layer& large = chosen["large"];
  EXPECT_EQ(large.cycles, overlap["large"].cycles);
  EXPECT_NE(large.reason.find(fmt::format("; overlap schedule (plain {} cycles)", plain["large"].cycles)),
            std::string::npos)
      << large.reason;
  EXPECT_LT(large.cycles, plain["large"].cycles);
  EXPECT_LT(small.cycles, overlap["small"].cycles);
}

// The plain schedule is the layer as the config without compute_overlap
// compiles it; there nothing is chosen and the summary says nothing.
TEST(ConvSchedule, PlainIsTheConfigWithoutOverlap) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto plain = Compile(cfg, ConvSchedule::kPlain);
  cfg.compute_overlap = 0;
  for (ConvSchedule want : {ConvSchedule::kCheapest, ConvSchedule::kOverlap}) {
    auto off = Compile(cfg, want);
    for (const auto& [name, l] : off) {
      EXPECT_EQ(l.cycles, plain[name].cycles) << name;
      EXPECT_EQ(l.reason.find("schedule"), std::string::npos) << l.reason;
    }
  }
}

}  // namespace
}  // namespace tessera::backend
