// Pools and residual adds generated for the accelerator, run through the
// runtime on ref and sim, against reference loops written from
// docs/quantization.md with the isa/alu.h primitives.
#include "compiler/backend/alu_codegen.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compiler/backend/cost_model.h"
#include "compiler/backend/layout.h"
#include "driver/registry.h"
#include "isa/alu.h"
#include "isa/config.h"
#include "runtime/runtime.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {
namespace {

using Bytes = std::vector<uint8_t>;

// Runs one recording with the given buffers (inputs copied in) and returns the
// last buffer. On a target with timing, also checks that the cost model
// predicts the cycles it counts.
StatusOr<Bytes> RunOn(const HwConfig& cfg, const std::string& target, const Recording& rec,
                      const std::vector<Bytes>& inputs, uint64_t out_bytes) {
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(target, cfg));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> rt, Runtime::Create(std::move(dev)));
  std::vector<Buffer> bufs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TSR_ASSIGN_OR_RETURN(Buffer b, rt->Alloc(std::max<uint64_t>(inputs[i].size(), 1), "in" + std::to_string(i)));
    TSR_RETURN_IF_ERROR(rt->CopyIn(b, inputs[i].data(), inputs[i].size()));
    bufs.push_back(b);
  }
  TSR_ASSIGN_OR_RETURN(Buffer out, rt->Alloc(out_bytes, "out"));
  bufs.push_back(out);
  TSR_ASSIGN_OR_RETURN(Executable exe, rt->Load(rec));
  TSR_RETURN_IF_ERROR(exe.BindAll(bufs));
  TSR_RETURN_IF_ERROR(exe.Run());
  if (exe.counters().cycles > 0) {
    TSR_ASSIGN_OR_RETURN(DeviceCounters predicted, PredictRecording(cfg, rec));
    EXPECT_EQ(predicted.cycles, exe.counters().cycles) << rec.name << " on " << cfg.name;
  }
  Bytes result(out_bytes);
  TSR_RETURN_IF_ERROR(rt->CopyOut(out, result.data(), out_bytes));
  return result;
}

// Generates pool `p` (shapes set) with random data and multiplier and checks
// it on ref and sim against the reference loop.
void ExpectPoolMatches(const char* config, PoolCodegen p, std::mt19937_64& rng, const std::string& label) {
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  HwConfig cfg = testing::LoadConfigOrDie(config);
  p.name = "pool";
  const int64_t mult = U(1 << 29, (int64_t{1} << 31) - 1);
  p.shift = static_cast<int>(U(30, 36));
  std::vector<int8_t> x(p.n * p.c * p.ih * p.iw);
  for (auto& v : x) v = static_cast<int8_t>(U(-128, 127));
  const ActShape in{p.n, p.c, p.ih, p.iw}, out{p.n, p.c, p.oh, p.ow};
  Bytes px = PackActivation(cfg, in, x.data()), pp = PackBroadcastRows(cfg, 1, {mult});
  Stream s(cfg, "pool");
  const int64_t cb = (p.c + cfg.block_in - 1) / cfg.block_in;
  p.in = NchwView(*s.DeclareSlot("x", px.size()), cb, p.ih, p.iw);
  p.params = *s.DeclareSlot("p", pp.size());
  p.out = NchwView(*s.DeclareSlot("y", ActBytes(cfg, out)), cb, p.oh, p.ow);
  ASSERT_TRUE(EmitPool(s, cfg, p).ok());
  auto rec = s.Finish();
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  for (const char* target : {"ref", "sim"}) {
    auto y = RunOn(cfg, target, *rec, {px, pp}, ActBytes(cfg, out));
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    std::vector<int8_t> got(out.Elements());
    UnpackActivation(cfg, out, y->data(), got.data());
    for (int64_t n = 0; n < p.n; ++n)
      for (int64_t c = 0; c < p.c; ++c)
        for (int64_t oh = 0; oh < p.oh; ++oh)
          for (int64_t ow = 0; ow < p.ow; ++ow) {
            int64_t acc = p.max ? -128 : 0;
            for (int64_t i2 = 0; i2 < p.kh; ++i2)
              for (int64_t j = 0; j < p.kw; ++j) {
                const int64_t ih = oh * p.sh - p.pt + i2, iw = ow * p.sw - p.pl + j;
                if (ih < 0 || ih >= p.ih || iw < 0 || iw >= p.iw) continue;
                const int64_t v = x[((n * p.c + c) * p.ih + ih) * p.iw + iw];
                acc = p.max ? alu::Apply(AluOp::kMax, acc, v, 0, 32) : alu::Apply(AluOp::kAdd, acc, v, 0, 32);
              }
            const int64_t want = p.max ? acc : alu::Requantize(acc, 0, mult, p.shift, -128, 127, 32);
            ASSERT_EQ(got[((n * p.c + c) * p.oh + oh) * p.ow + ow], want)
                << config << " " << target << " " << label << (p.max ? " max" : " avg") << " n" << n << " c" << c
                << " (" << oh << "," << ow << ")";
          }
  }
}

TEST(PoolCodegen, RandomPoolsMatchTheReference) {
  std::mt19937_64 rng(7);
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (const char* config : {"configs/default.json", "configs/tiny.json", "configs/large.json"})
    for (int i = 0; i < 24; ++i) {
      PoolCodegen p;
      p.max = i % 2 == 0;
      p.n = U(1, 2), p.c = U(1, 40), p.ih = U(1, 16), p.iw = U(1, 16);
      p.kh = U(1, 4), p.kw = U(1, 4), p.sh = U(1, 3), p.sw = U(1, 3);
      if (i % 6 == 5) p.kh = p.ih, p.kw = p.iw, p.sh = p.sw = 1;  // global pool
      p.pt = p.max ? U(0, (p.kh - 1) / 2) : 0, p.pl = p.max ? U(0, (p.kw - 1) / 2) : 0;
      if (p.ih + 2 * p.pt < p.kh || p.iw + 2 * p.pl < p.kw) continue;
      p.oh = (p.ih + 2 * p.pt - p.kh) / p.sh + 1, p.ow = (p.iw + 2 * p.pl - p.kw) / p.sw + 1;
      ExpectPoolMatches(config, p, rng, "case " + std::to_string(i));
      if (HasFatalFailure()) return;
    }
}

// On tiny, a 3x1 average pool with strides (1,3) over 5x178 tiles its 3x60
// outputs as 2x8 blocks; the edge tiles 2x4 and 1x8 hold 8 outputs each but
// at different accumulator rows, so their rescale kernels must differ.
TEST(PoolCodegen, EdgeTilesWithEqualOutputCountsRescaleTheirOwnRows) {
  std::mt19937_64 rng(11);
  PoolCodegen p;
  p.max = false;
  p.n = 1, p.c = 4, p.ih = 5, p.iw = 178;
  p.kh = 3, p.kw = 1, p.sh = 1, p.sw = 3;
  p.oh = 3, p.ow = 60;
  ExpectPoolMatches("configs/tiny.json", p, rng, "edge tiles");
}

// The DMA padding fields hold 3 bits: a pool padded by 7 (kernel 8) runs,
// one padded by 8 (kernel 9, or a bottom edge needing 8 rows) is refused
// before emission instead of being mis-encoded.
TEST(PoolCodegen, PaddingBeyondTheDmaFieldsIsRefused) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  PoolCodegen p;
  p.name = "pool";
  p.max = true;
  p.n = 1, p.c = 4, p.ih = 5, p.iw = 6, p.kh = 8, p.kw = 8, p.sh = p.sw = 1, p.pt = p.pl = 7;
  p.oh = p.ih + 2 * p.pt - p.kh + 1, p.ow = p.iw + 2 * p.pl - p.kw + 1;
  EXPECT_TRUE(CheckPool(cfg, p).ok());
  std::mt19937_64 rng(3);
  ExpectPoolMatches("configs/default.json", p, rng, "padding 7");
  p.kh = p.kw = 9, p.pt = p.pl = 8;
  p.oh = p.ih + 2 * p.pt - p.kh + 1, p.ow = p.iw + 2 * p.pl - p.kw + 1;
  Status s = CheckPool(cfg, p);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.ToString();
  EXPECT_NE(s.message().find("padding above 7"), std::string::npos) << s.ToString();
  p.kh = p.kw = 8, p.pt = p.pl = 0, p.oh = p.ih + 8 - p.kh + 1, p.ow = 1;  // 8 rows of bottom padding
  EXPECT_EQ(CheckPool(cfg, p).code(), StatusCode::kUnimplemented);
}

TEST(AddCodegen, RandomAddsMatchTheReference) {
  std::mt19937_64 rng(9);
  auto U = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (const char* config : {"configs/default.json", "configs/tiny.json"})
    for (int i = 0; i < 12; ++i) {
      HwConfig cfg = testing::LoadConfigOrDie(config);
      const ActShape shape{U(1, 2), U(1, 70), U(1, 40), U(1, 40)};
      std::vector<int8_t> a(shape.Elements()), b(shape.Elements());
      for (auto& v : a) v = static_cast<int8_t>(U(-128, 127));
      for (auto& v : b) v = static_cast<int8_t>(U(-128, 127));
      AddCodegen g;
      g.name = "add";
      g.tiles = ActTiles(cfg, shape);
      const int64_t ma = U(1 << 29, (int64_t{1} << 31) - 1), mb = U(1 << 29, (int64_t{1} << 31) - 1);
      g.shift_a = static_cast<int>(U(10, 13)), g.shift_b = static_cast<int>(U(10, 13)), g.post_shift = 20;
      if (i % 2) g.act_min = 0;                          // post-shift and clamp: one MULSHRC by ones
      if (i % 4 == 2) g.act_min = -100, g.act_max = 90;  // SHR, MAX, MIN
      if (i % 6 == 5) g.post_shift = 0;
      Bytes pa = PackActivation(cfg, shape, a.data()), pb = PackActivation(cfg, shape, b.data()),
            pp = PackBroadcastRows(cfg, 3, {ma, mb, 1});
      Stream s(cfg, "add");
      g.a = *s.DeclareSlot("a", pa.size());
      g.b = *s.DeclareSlot("b", pb.size());
      g.params = *s.DeclareSlot("p", pp.size());
      g.out = *s.DeclareSlot("y", pa.size());
      ASSERT_TRUE(EmitAdd(s, cfg, g).ok());
      auto rec = s.Finish();
      ASSERT_TRUE(rec.ok()) << rec.status().ToString();
      for (const char* target : {"ref", "sim"}) {
        auto y = RunOn(cfg, target, *rec, {pa, pb, pp}, pa.size());
        ASSERT_TRUE(y.ok()) << y.status().ToString();
        std::vector<int8_t> got(shape.Elements());
        UnpackActivation(cfg, shape, y->data(), got.data());
        for (int64_t k = 0; k < shape.Elements(); ++k) {
          int64_t ta = alu::Apply(AluOp::kMulShr, a[k], ma, g.shift_a, 32);
          const int64_t tb = alu::Apply(AluOp::kMulShr, b[k], mb, g.shift_b, 32);
          ta = alu::Apply(AluOp::kAdd, ta, tb, 0, 32);
          ta = alu::Apply(AluOp::kShr, ta, g.post_shift, 0, 32);
          ta = alu::Apply(AluOp::kMin, alu::Apply(AluOp::kMax, ta, g.act_min, 0, 32), g.act_max, 0, 32);
          ASSERT_EQ(got[k], ta) << config << " " << target << " case " << i << " element " << k;
        }
      }
    }
}

}  // namespace
}  // namespace tessera::backend
