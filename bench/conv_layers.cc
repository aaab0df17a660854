// ResNet-18's convolution layers (and a few others) compiled by the tiler and
// conv code generator and run on `sim`: simulated cycles, GEMM utilization,
// the cost model's prediction (the recorded stream on the timing engine) and
// the tiler's closed-form estimate. Run: build/bench/conv_layers [CONFIG]
// (table recorded in docs/compiler-backend.md).
#include <cstdio>
#include <random>

#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/cost_model.h"
#include "compiler/backend/layout.h"
#include "driver/registry.h"
#include "isa/config.h"
#include "runtime/runtime.h"

namespace tessera::backend {
namespace {

ConvGeometry Conv(int64_t ic, int64_t oc, int64_t hw, int64_t k, int64_t s, int64_t p) {
  ConvGeometry g;
  g.ic = ic, g.oc = oc, g.ih = g.iw = hw, g.kh = g.kw = k, g.sh = g.sw = s, g.pt = g.pl = p;
  g.oh = g.ow = (hw + 2 * p - k) / s + 1;
  return g;
}

int Main(int argc, char** argv) {
  auto cfg = LoadHwConfig(argc > 1 ? argv[1] : TESSERA_SOURCE_DIR "/configs/default.json");
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s\n", cfg.status().ToString().c_str());
    return 1;
  }
  struct Layer {
    const char* name;
    ConvGeometry g;
    int count;  // occurrences in ResNet-18
  };
  ConvGeometry conv1 = Conv(147, 64, 1, 1, 1, 0);  // 7x7x3 conv as an im2col matmul over 112x112 pixels
  conv1.ih = conv1.oh = 112 * 112;
  ConvGeometry dw = Conv(96, 96, 56, 3, 1, 1);
  dw.groups = 96;
  const Layer layers[] = {
      {"conv1 (im2col 147->64, 112x112)", conv1, 1},
      {"layer1 3x3 64->64 56x56", Conv(64, 64, 56, 3, 1, 1), 4},
      {"layer2 3x3 64->128 s2", Conv(64, 128, 56, 3, 2, 1), 1},
      {"layer2 3x3 128->128 28x28", Conv(128, 128, 28, 3, 1, 1), 3},
      {"layer2 1x1 64->128 s2", Conv(64, 128, 56, 1, 2, 0), 1},
      {"layer3 3x3 128->256 s2", Conv(128, 256, 28, 3, 2, 1), 1},
      {"layer3 3x3 256->256 14x14", Conv(256, 256, 14, 3, 1, 1), 3},
      {"layer3 1x1 128->256 s2", Conv(128, 256, 28, 1, 2, 0), 1},
      {"layer4 3x3 256->512 s2", Conv(256, 512, 14, 3, 2, 1), 1},
      {"layer4 3x3 512->512 7x7", Conv(512, 512, 7, 3, 1, 1), 3},
      {"layer4 1x1 256->512 s2", Conv(256, 512, 14, 1, 2, 0), 1},
      {"fc 512->1000 (batch 1)", Conv(512, 1000, 1, 1, 1, 0), 1},
      {"depthwise 3x3 96 56x56", dw, 0},
  };
  std::printf("%-34s %10s %10s %7s %10s %7s %10s %7s  %s\n", "layer", "cycles", "predicted", "error", "estimated",
              "error", "GEMM util", "x", "tiling");
  int64_t total_cycles = 0, total_macs = 0;
  std::mt19937_64 rng(1);
  for (const Layer& l : layers) {
    const ConvGeometry& g = l.g;
    auto tiling = PlanConv(*cfg, g);
    auto blocks = BlockConv(*cfg, g);
    if (!tiling.ok() || !blocks.ok()) {
      std::printf("%-34s %s\n", l.name, (tiling.ok() ? blocks.status() : tiling.status()).ToString().c_str());
      continue;
    }
    auto dev = OpenDevice("sim", *cfg);
    auto rt = Runtime::Create(std::move(*dev));
    const ActShape in{g.n, g.ic, g.ih, g.iw}, out{g.n, g.oc, g.oh, g.ow};
    std::vector<int8_t> x(in.Elements()), w(g.oc * (g.ic / g.groups) * g.kh * g.kw);
    for (auto& v : x) v = static_cast<int8_t>(rng());
    for (auto& v : w) v = static_cast<int8_t>(rng());
    auto px = PackActivation(*cfg, in, x.data());
    auto pw = PackConvWeights(*cfg, g, *blocks, w.data());
    auto pp = PackChannelParams(*cfg, g.oc, {0}, {1 << 30});
    auto bx = (*rt)->Alloc(px.size(), "x"), bw = (*rt)->Alloc(pw.size(), "w"), bp = (*rt)->Alloc(pp.size(), "p"),
         by = (*rt)->Alloc(ActBytes(*cfg, out), "y");
    (void)(*rt)->CopyIn(*bx, px.data(), px.size());
    (void)(*rt)->CopyIn(*bw, pw.data(), pw.size());
    (void)(*rt)->CopyIn(*bp, pp.data(), pp.size());
    Stream s(*cfg, l.name);
    ConvCodegen cg;
    cg.name = l.name;
    cg.geo = g, cg.blocks = *blocks, cg.tiling = *tiling;
    cg.in = NchwView(*s.DeclareSlot("x", px.size()), blocks->icb, g.ih, g.iw);
    cg.weights = *s.DeclareSlot("w", pw.size());
    cg.params = *s.DeclareSlot("p", pp.size());
    cg.out = NchwView(*s.DeclareSlot("y", by->bytes()), blocks->ocb, g.oh, g.ow);
    cg.shift = 40;
    Status st = EmitConv(s, *cfg, cg);
    auto rec = s.Finish();
    if (!st.ok() || !rec.ok()) {
      std::printf("%-34s %s\n", l.name, (st.ok() ? rec.status() : st).ToString().c_str());
      continue;
    }
    auto predicted = PredictRecording(*cfg, *rec);
    if (!predicted.ok()) {
      std::printf("%-34s %s\n", l.name, predicted.status().ToString().c_str());
      continue;
    }
    auto exe = (*rt)->Load(*rec);
    (void)exe->BindAll({*bx, *bw, *bp, *by});
    st = exe->Run();
    if (!st.ok()) {
      std::printf("%-34s %s\n", l.name, st.ToString().c_str());
      continue;
    }
    const DeviceCounters& c = exe->counters();
    const int64_t useful = g.n * g.oc * g.oh * g.ow * (g.ic / g.groups) * g.kh * g.kw;
    const double util = static_cast<double>(useful) / (cfg->macs_per_cycle * static_cast<double>(c.cycles));
    auto err = [&](int64_t v) { return 100.0 * (static_cast<double>(v) - c.cycles) / c.cycles; };
    std::printf("%-34s %10lld %10lld %6.1f%% %10lld %6.1f%% %9.1f%% %7d  %s\n", l.name,
                static_cast<long long>(c.cycles), static_cast<long long>(predicted->cycles), err(predicted->cycles),
                static_cast<long long>(tiling->estimated_cycles), err(tiling->estimated_cycles), 100.0 * util, l.count,
                tiling->ToString().c_str());
    total_cycles += c.cycles * l.count;
    total_macs += useful * l.count;
  }
  std::printf("ResNet-18 convolutions (weighted by occurrence): %lld cycles, GEMM utilization %.1f%%\n",
              static_cast<long long>(total_cycles),
              100.0 * static_cast<double>(total_macs) / (cfg->macs_per_cycle * static_cast<double>(total_cycles)));
  return 0;
}

}  // namespace
}  // namespace tessera::backend

int main(int argc, char** argv) { return tessera::backend::Main(argc, argv); }
