// The schedule choice (conv_schedule.h) on the default config: a small
// depthwise layer keeps the plain schedule, a large 3x3 conv the overlap one;
// every GEMM layer's predicted cycles are the lesser of the two forced
// schedules', and its summary line names the one it runs; every layer
// that fits the banked split fits the plain one (EmitScheduled asserts it).
#include "compiler/backend/conv_schedule.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <initializer_list>
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

// EmitScheduled asserts that a layer with a banked (compute_overlap) tiling
// has a plain one: over random layers and epilogues, PlanConv never fails on
// the plain split where it fits the banked one.
TEST(ConvSchedule, EveryBankedTilingHasAPlainOne) {
  std::mt19937 rng(13);
  auto pick = [&](std::initializer_list<int64_t> v) { return v.begin()[rng() % v.size()]; };
  int banked = 0;
  for (const char* path : {"configs/default.json", "configs/large.json"}) {
    const HwConfig cfg = testing::LoadConfigOrDie(path);
    ASSERT_NE(cfg.compute_overlap, 0) << path;
    HwConfig plain = cfg;
    plain.compute_overlap = 0;
    for (int i = 0; i < 100; ++i) {
      ConvGeometry g;
      g.ic = 16 * pick({1, 2, 4, 8, 16}), g.oc = 16 * pick({1, 2, 4, 8, 16});
      g.kh = g.kw = pick({1, 3, 5, 7});
      g.sh = g.sw = pick({1, 1, 2});
      g.pt = g.pl = g.kh / 2;
      g.ih = pick({7, 14, 28, 56}), g.iw = g.ih * pick({1, 2});
      g.oh = (g.ih + 2 * g.pt - g.kh) / g.sh + 1, g.ow = (g.iw + 2 * g.pl - g.kw) / g.sw + 1;
      ConvEpilogue e = ConvEpilogue::ForRange(-128, 127);
      switch (rng() % 4) {
        case 1: e.max_pool = g.oh % 2 == 0 && g.ow % 2 == 0; break;
        case 2: e.residual_passes = 1; break;
        case 3:  // a 2x2 pixel shuffle of the whole grid
          if (g.oc % 64 == 0) e.shuffle = PixelShuffle{2, 2, 0, 0, 2 * g.oh, 2 * g.ow};
          break;
      }
      const StatusOr<ConvTiling> t = PlanConv(cfg, g, e);
      if (!t.ok()) continue;
      ++banked;
      const StatusOr<ConvTiling> p = PlanConv(plain, g, e);
      EXPECT_TRUE(p.ok()) << path << " " << g.ToString() << ": " << t->ToString() << "; " << p.status().ToString();
    }
  }
  EXPECT_GT(banked, 150) << banked;  // (most layers fit)
}

}  // namespace
}  // namespace tessera::backend
