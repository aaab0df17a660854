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
#include "isa/encoding.h"
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

// k x k phase conv (3: padding 1, as a 4x4/2 pad 1 conv_transpose's) of `ic`
// to 4 * m channels over h x w, 2x2 phases, the result cropped by one pixel
// on every side.
Case DcganCase(std::mt19937_64& rng, int64_t ic, int64_t m, int64_t h, int64_t w, int64_t k) {
  Case c;
  ConvGeometry& g = c.g;
  g.ic = ic, g.oc = 4 * m, g.kh = g.kw = k, g.pt = g.pl = k / 2;
  g.ih = g.oh = h, g.iw = g.ow = w;
  c.s = PixelShuffle{2, 2, 1, 1, 2 * h - 2, 2 * w - 2};
  std::uniform_int_distribution<int> u8(-128, 127);
  c.x.resize(static_cast<size_t>(ic * h * w));
  c.w.resize(static_cast<size_t>(g.oc * ic * k * k));
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

// The layer with tiling `t` (its shuffle c.s) recorded against slots of
// `bytes` (input, weights, parameters, result).
StatusOr<Recording> Record(const HwConfig& cfg, const Case& c, const ConvTiling& t,
                           const std::vector<uint64_t>& bytes) {
  const ConvGeometry& g = c.g;
  TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg, g));
  Stream s(cfg, "shuffle");
  std::vector<Slot> slots;
  for (uint64_t n : bytes) {
    TSR_ASSIGN_OR_RETURN(Slot sl, s.DeclareSlot(fmt::format("slot{}", slots.size()), n));
    slots.push_back(sl);
  }
  ConvCodegen cg;
  cg.name = "shuffle";
  cg.geo = g, cg.blocks = blocks, cg.tiling = t;
  cg.in = NchwView(slots[0], blocks.icb, g.ih, g.iw);
  cg.out = NchwView(slots[3], CeilDiv(g.oc / c.s.phases(), cfg.block_out), c.s.oh, c.s.ow);
  cg.weights = slots[1], cg.params = slots[2];
  cg.shift = c.shift;
  TSR_RETURN_IF_ERROR(EmitConv(s, cfg, cg));
  return s.Finish();
}

// The layer with tiles of tob oc blocks x tib ic blocks x th x tw pixels on `target`.
StatusOr<std::vector<int8_t>> Run(const HwConfig& cfg, const std::string& target, const Case& c, ConvTiling t) {
  const ConvGeometry& g = c.g;
  TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg, g));
  t.shuffle = c.s;
  TSR_RETURN_IF_ERROR(CheckConvTiling(cfg, g, blocks, &t));
  const ActShape in_shape{1, g.ic, g.ih, g.iw}, out_shape{1, g.oc / c.s.phases(), c.s.oh, c.s.ow};
  std::vector<uint8_t> x = PackActivation(cfg, in_shape, c.x.data()), w = PackConvWeights(cfg, g, blocks, c.w.data());
  std::vector<uint8_t> p = PackChannelParams(cfg, g.oc, c.bias, c.mult);
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(target, cfg));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> rt, Runtime::Create(std::move(dev)));
  std::vector<Buffer> bufs;
  for (const std::vector<uint8_t>* data : {&x, &w, &p}) {
    TSR_ASSIGN_OR_RETURN(Buffer b, rt->Alloc(data->size(), "in"));
    TSR_RETURN_IF_ERROR(rt->CopyIn(b, data->data(), data->size()));
    bufs.push_back(b);
  }
  TSR_ASSIGN_OR_RETURN(Buffer by, rt->Alloc(ActBytes(cfg, out_shape), "y"));
  bufs.push_back(by);
  TSR_ASSIGN_OR_RETURN(Recording rec, Record(cfg, c, t, {x.size(), w.size(), p.size(), by.bytes()}));
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
// (shuffled blocks, phase groups per oc tile, ic blocks per ic tile) with
// `ic_blocks` input blocks and a k x k kernel (tiny's uop scratchpad holds
// the kernels of 1x1 ones over one ic block).
using Tiles = std::vector<std::tuple<int64_t, int64_t, int64_t>>;
void Check(const std::string& config, const std::string& target, int64_t ic_blocks, int64_t k, const Tiles& tiles) {
  const HwConfig cfg = testing::LoadConfigOrDie(config);
  const int64_t blk = cfg.block_out;
  std::mt19937_64 rng(13);
  for (const auto& [blocks, tob_groups, tib] : tiles) {
    const Case c = DcganCase(rng, ic_blocks * cfg.block_in, blocks * blk, 6, 6, k);
    ConvTiling t;
    t.tob = 4 * tob_groups, t.tib = tib, t.th = t.tw = 2;
    auto y = Run(cfg, target, c, t);
    ASSERT_TRUE(y.ok()) << config << " " << target << ": " << y.status().ToString();
    EXPECT_EQ(*y, Reference(c, blk)) << config << " " << target << " blocks " << blocks << " tob " << t.tob << " tib "
                                     << tib;
  }
}

const Tiles kTiny = {{1, 1, 1}};
const Tiles kDefault = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {1, 1, 2}};
TEST(ShuffleCodegen, WindowsOfOneAreaOnRefTiny) { Check("configs/tiny.json", "ref", 1, 1, kTiny); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnSimTiny) { Check("configs/tiny.json", "sim", 1, 1, kTiny); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnRefDefault) { Check("configs/default.json", "ref", 2, 3, kDefault); }
TEST(ShuffleCodegen, WindowsOfOneAreaOnSimDefault) { Check("configs/default.json", "sim", 2, 3, kDefault); }

// The tiler counts what the codegen emits for the tilings it picks: its uop
// budget holds every kernel of the layer (none evicted) and its estimate's
// GEMM iterations are the emitted GEMMs' (the phase pixels inside the crop).
TEST(ShuffleCodegen, TilerCountsTheEmittedKernels) {
  std::mt19937_64 rng(7);
  int ran = 0, cropped = 0;
  for (const char* path : {"configs/tiny.json", "configs/default.json", "configs/ice40-up5k.json"}) {
    const HwConfig cfg = testing::LoadConfigOrDie(path);
    for (const auto& [k, h, crop] : {std::tuple{3, 6, 1}, {3, 12, 1}, {3, 24, 1}, {1, 16, 0}, {1, 9, 1}, {3, 20, 0}}) {
      Case c = DcganCase(rng, 2 * cfg.block_in, 2 * cfg.block_out, h, h, k);
      c.s.crop_h = c.s.crop_w = crop;
      c.s.oh = c.s.ow = 2 * h - 2 * crop;
      ConvEpilogue e;
      e.shuffle = c.s;
      const StatusOr<ConvTiling> t = PlanConv(cfg, c.g, e);
      if (!t.ok()) continue;  // (ice40's scratchpads)
      const ConvBlocking b = BlockConv(cfg, c.g).value();
      const uint64_t x = ActBytes(cfg, ActShape{1, c.g.ic, h, h}), w = PackConvWeights(cfg, c.g, b, c.w.data()).size(),
                     p = PackChannelParams(cfg, c.g.oc, c.bias, c.mult).size();
      auto rec =
          Record(cfg, c, *t, {x, w, p, static_cast<uint64_t>(ActBytes(cfg, ActShape{1, c.g.oc / 4, c.s.oh, c.s.ow}))});
      ASSERT_TRUE(rec.ok()) << path << " " << c.g.ToString() << ": " << rec.status().ToString();
      int64_t words = 0, gemm = 0;
      for (const auto& img : rec->kernels) words += static_cast<int64_t>(img->words.size());
      for (const auto& piece : rec->pieces)
        for (const Word128& word : piece) {
          const Instruction in = Decode(cfg, word).value();
          if (in.op() == Opcode::kGemm) gemm += int64_t{in.iter_out} * in.iter_in * (in.uop_end - in.uop_bgn);
        }
      const std::string what = std::string(path) + " " + c.g.ToString() + ": " + t->ToString();
      EXPECT_EQ(rec->stats.uop_evictions, 0) << what;
      EXPECT_LE(words, t->uops) << what;
      EXPECT_EQ(t->gemm_cycles, gemm) << what;
      ++ran, cropped += crop && t->h_tiles * t->w_tiles > 1;
    }
  }
  EXPECT_GE(ran, 12);
  EXPECT_GE(cropped, 4);
}

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
