// A pixel-shuffled conv (shuffle_codegen.h) with forced tilings on `ref` and
// `sim`, bit for bit against plain loops (conv, requantize, shuffle, crop):
// DCGAN's 4x4/2 padding 1 phase conv with 2x2 tiles gives windows of 3x3,
// 3x4, 4x3 and 4x4 result pixels in one layer (per-phase GEMM kernels must
// not be shared by windows of one area).
#include "compiler/backend/shuffle_codegen.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <tuple>

#include "compiler/backend/layout.h"
#include "driver/registry.h"
#include "isa/alu.h"
#include "isa/base/math.h"
#include "isa/config.h"
#include "runtime/runtime.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

struct Case {
  ConvGeometry g;  // the phase conv: oc = P * m channels, block-major ([m / BLK][P][BLK])
  PixelShuffle s;
  std::vector<int8_t> x, w;
  std::vector<int64_t> bias, mult;
  int shift = 40;
};

// 3x3 phase conv (pad 1) of `ic` to 4 * m channels over h x w, 2x2 phases,
// the result cropped by one pixel on every side (a 4x4/2 pad 1 conv_transpose).
Case DcganCase(std::mt19937_64& rng, int64_t ic, int64_t m, int64_t h, int64_t w) {
  Case c;
  ConvGeometry& g = c.g;
  g.ic = ic, g.oc = 4 * m, g.kh = g.kw = 3, g.pt = g.pl = 1;
  g.ih = g.oh = h, g.iw = g.ow = w;
  c.s = PixelShuffle{2, 2, 1, 1, 2 * h - 2, 2 * w - 2};
  std::uniform_int_distribution<int> u8(-128, 127);
  c.x.resize(static_cast<size_t>(ic * h * w));
  c.w.resize(static_cast<size_t>(g.oc * ic * 9));
  for (auto& v : c.x) v = static_cast<int8_t>(u8(rng));
  for (auto& v : c.w) v = static_cast<int8_t>(u8(rng) / 2);
  for (int64_t o = 0; o < g.oc; ++o) {
    c.bias.push_back(static_cast<int64_t>(rng() % 20001) - 10000);
    c.mult.push_back((int64_t{1} << 30) + static_cast<int64_t>(rng() % (int64_t{1} << 30)));
  }
  return c;
}

// Conv, requantize, then conv channel (ob, lane) pixel (i, j) to shuffled
// channel ob / P * BLK + lane, pixel (i * sh + ob % P / sw, j * sw + ob % P % sw), cropped.
std::vector<int8_t> Reference(const Case& c, int64_t blk) {
  const ConvGeometry& g = c.g;
  const PixelShuffle& s = c.s;
  const int64_t m = g.oc / s.phases();
  std::vector<int8_t> y(static_cast<size_t>(m * s.oh * s.ow));
  for (int64_t o = 0; o < g.oc; ++o)
    for (int64_t i = 0; i < g.oh; ++i)
      for (int64_t j = 0; j < g.ow; ++j) {
        int64_t acc = 0;
        for (int64_t ci = 0; ci < g.ic; ++ci)
          for (int64_t a = 0; a < g.kh; ++a)
            for (int64_t b = 0; b < g.kw; ++b) {
              const int64_t ih = i - g.pt + a, iw = j - g.pl + b;
              if (ih >= 0 && ih < g.ih && iw >= 0 && iw < g.iw)
                acc += int64_t{c.x[(ci * g.ih + ih) * g.iw + iw]} * c.w[((o * g.ic + ci) * g.kh + a) * g.kw + b];
            }
        const int64_t ob = o / blk, p = ob % s.phases(), k = ob / s.phases() * blk + o % blk;
        const int64_t r = i * s.sh + p / s.sw - s.crop_h, q = j * s.sw + p % s.sw - s.crop_w;
        if (r >= 0 && r < s.oh && q >= 0 && q < s.ow)
          y[(k * s.oh + r) * s.ow + q] =
              static_cast<int8_t>(alu::Requantize(acc, c.bias[o], c.mult[o], c.shift, -128, 127, 32));
      }
  return y;
}

// The layer with tiles of tob oc blocks x tib ic blocks x th x tw pixels on `target`.
StatusOr<std::vector<int8_t>> Run(const HwConfig& cfg, const std::string& target, const Case& c, ConvTiling t) {
  const ConvGeometry& g = c.g;
  const int64_t m = g.oc / c.s.phases();
  TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg, g));
  t.shuffle = c.s;
  TSR_RETURN_IF_ERROR(CheckConvTiling(cfg, g, blocks, &t));
  const ActShape in_shape{1, g.ic, g.ih, g.iw}, out_shape{1, m, c.s.oh, c.s.ow};
  std::vector<uint8_t> x = PackActivation(cfg, in_shape, c.x.data()), w = PackConvWeights(cfg, g, blocks, c.w.data());
  std::vector<uint8_t> p = PackChannelParams(cfg, g.oc, c.bias, c.mult);
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(target, cfg));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> rt, Runtime::Create(std::move(dev)));
  std::vector<Buffer> bufs;
  Stream s(cfg, "shuffle");
  std::vector<Slot> slots;
  for (const std::vector<uint8_t>* data : {&x, &w, &p}) {
    TSR_ASSIGN_OR_RETURN(Buffer b, rt->Alloc(data->size(), "in"));
    TSR_RETURN_IF_ERROR(rt->CopyIn(b, data->data(), data->size()));
    TSR_ASSIGN_OR_RETURN(Slot sl, s.DeclareSlot(fmt::format("in{}", bufs.size()), data->size()));
    bufs.push_back(b), slots.push_back(sl);
  }
  TSR_ASSIGN_OR_RETURN(Buffer by, rt->Alloc(ActBytes(cfg, out_shape), "y"));
  TSR_ASSIGN_OR_RETURN(Slot sy, s.DeclareSlot("y", by.bytes()));
  bufs.push_back(by);
  ConvCodegen cg;
  cg.name = "shuffle";
  cg.geo = g, cg.blocks = blocks, cg.tiling = t;
  cg.in = NchwView(slots[0], blocks.icb, g.ih, g.iw);
  cg.out = NchwView(sy, CeilDiv(m, cfg.block_out), c.s.oh, c.s.ow);
  cg.weights = slots[1], cg.params = slots[2];
  cg.shift = c.shift;
  TSR_RETURN_IF_ERROR(EmitConv(s, cfg, cg));
  TSR_ASSIGN_OR_RETURN(Recording rec, s.Finish());
  TSR_ASSIGN_OR_RETURN(Executable exe, rt->Load(rec));
  TSR_RETURN_IF_ERROR(exe.BindAll(bufs));
  TSR_RETURN_IF_ERROR(exe.Run());
  std::vector<uint8_t> packed(by.bytes());
  TSR_RETURN_IF_ERROR(rt->CopyOut(by, packed.data(), packed.size()));
  std::vector<int8_t> y(static_cast<size_t>(out_shape.Elements()));
  UnpackActivation(cfg, out_shape, packed.data(), y.data());
  return y;
}

// 6x6 conv pixels in 2x2 tiles: windows 3x3 (corners), 3x4 (top and bottom
// edges), 4x3 (left and right edges) and 4x4 (middle) of the 10x10 result;
// (shuffled blocks, phase groups per oc tile, ic blocks per ic tile) of two ic blocks.
using Tiles = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
void Check(const std::string& config, const std::string& target, const Tiles& tiles) {
  const HwConfig cfg = testing::LoadConfigOrDie(config);
  const int64_t blk = cfg.block_out;
  std::mt19937_64 rng(13);
  for (const auto& [blocks, tob_groups, tib] : tiles) {
    const Case c = DcganCase(rng, 2 * cfg.block_in, blocks * blk, 6, 6);
    ConvTiling t;
    t.tob = 4 * tob_groups, t.tib = tib, t.th = t.tw = 2;
    auto y = Run(cfg, target, c, t);
    ASSERT_TRUE(y.ok()) << config << " " << target << ": " << y.status().ToString();
    EXPECT_EQ(*y, Reference(c, blk)) << config << " " << target << " blocks " << blocks << " tob " << t.tob << " tib "
                                     << tib;
  }
}

const Tiles kTiny = {{1, 1, 1}, {2, 1, 1}, {1, 1, 2}};  // (the weight half holds 64 tiles)
const Tiles kDefault = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {1, 1, 2}};
TEST(ShuffleCodegen, WindowsOfOneAreaOnRefTiny) { Check("configs/tiny.json", "ref", kTiny); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnSimTiny) { Check("configs/tiny.json", "sim", kTiny); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnRefDefault) { Check("configs/default.json", "ref", kDefault); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnSimDefault) { Check("configs/default.json", "sim", kDefault); }

// The tile layouts those windows come from (ShuffleTileOf).
TEST(ShuffleCodegen, TileWindows) {
  const PixelShuffle s{2, 2, 1, 1, 10, 10};
  auto window = [&](int64_t oh0, int64_t ow0) {
    const ShuffleWindow w = ShuffleTileOf(s, oh0, 2, ow0, 2).window;
    return std::vector<int64_t>{w.y0, w.h, w.x0, w.w};
  };
  EXPECT_EQ(window(0, 0), (std::vector<int64_t>{0, 3, 0, 3}));
  EXPECT_EQ(window(0, 2), (std::vector<int64_t>{0, 3, 3, 4}));
  EXPECT_EQ(window(2, 0), (std::vector<int64_t>{3, 4, 0, 3}));
  EXPECT_EQ(window(4, 4), (std::vector<int64_t>{7, 3, 7, 3}));
  const ShuffledTile corner = ShuffleTileOf(s, 0, 2, 0, 2);
  EXPECT_FALSE(corner.whole);  // phase (0, 0)'s first row and column are cropped
  EXPECT_EQ(corner.spans[0].pixels(), 1);
  EXPECT_EQ(corner.spans[3].pixels(), 4);
  EXPECT_TRUE(ShuffleTileOf(s, 2, 2, 2, 2).whole);
}

}  // namespace
}  // namespace tessera::backend
