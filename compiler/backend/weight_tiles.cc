#include "compiler/backend/weight_tiles.h"

#include <algorithm>

#include "compiler/backend/layout.h"
#include "isa/config.h"

namespace tessera::backend {

WeightTileMask NonzeroWeightTiles(const HwConfig& cfg, const WeightPacking& p, const int8_t* w) {
  const int64_t BO = cfg.block_out, BI = cfg.block_in;
  WeightTileMask m(static_cast<size_t>(p.ocb * p.ibpo * p.kk), 0);
  bool dense = true;
  for (int64_t ob = 0; ob < p.ocb; ++ob)
    for (int64_t j = 0; j < p.ibpo; ++j)
      for (int64_t k = 0; k < p.kk; ++k) {
        // Block-diagonal tiles hold every input of their outputs' groups; the others input block j's.
        const int64_t c0 = p.depthwise ? 0 : j * BI, c1 = p.depthwise ? p.icg : std::min(p.icg, c0 + BI);
        bool any = false;
        for (int64_t o = ob * BO; o < std::min(p.oc, ob * BO + BO) && !any; ++o)
          for (int64_t c = c0; c < c1 && !any; ++c) any = w[(o * p.icg + c) * p.kk + k] != 0;
        m[static_cast<size_t>((ob * p.ibpo + j) * p.kk + k)] = any;
        dense = dense && any;
      }
  if (dense) m.clear();  // every tile: the dense path
  return m;
}

namespace {

void MarkReads(IcTile* x, int64_t tob, int64_t kk, bool depthwise) {
  x->read.assign(static_cast<size_t>(depthwise ? tob : x->tib), false);
  for (int64_t u : x->taps) x->read[static_cast<size_t>(depthwise ? u / (x->tib * kk) : u / kk % x->tib)] = true;
  x->reads = std::count(x->read.begin(), x->read.end(), true);
}

}  // namespace

std::vector<IcTile> IcTilesOf(const ConvBlocking& b, const ConvTiling& t, int64_t kk, const WeightTileMask& m,
                              int64_t ob0) {
  const int64_t tob = std::min(t.tob, b.ocb - ob0);
  std::vector<IcTile> out;
  for (int64_t it = 0; it < t.ic_tiles; ++it) {
    IcTile x;
    x.j0 = it * t.tib;
    x.tib = b.depthwise ? 1 : std::min(t.tib, b.ibpo - x.j0);
    for (int64_t o = 0; o < tob; ++o)
      for (int64_t j = 0; j < x.tib; ++j)
        for (int64_t k = 0; k < kk; ++k) {
          // Block-diagonal tiles are [OCB][1][KK]; the others [OCB][IBPO][KK].
          const int64_t tile = ((ob0 + o) * b.ibpo + (b.depthwise ? 0 : x.j0 + j)) * kk + k;
          if (m.empty() || m[static_cast<size_t>(tile)]) x.taps.push_back((o * x.tib + j) * kk + k);
        }
    x.all = static_cast<int64_t>(x.taps.size()) == tob * x.tib * kk;
    MarkReads(&x, tob, kk, b.depthwise);
    if (!x.taps.empty()) out.push_back(std::move(x));
  }
  if (out.empty()) {
    IcTile x;
    x.tib = b.depthwise ? 1 : std::min(t.tib, b.ibpo);
    x.taps = {0};
    x.all = tob * x.tib * kk == 1;
    MarkReads(&x, tob, kk, b.depthwise);
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<WeightRun> WeightRuns(const IcTile& x, const ConvBlocking& b, int64_t kk, int64_t ob0, bool resident) {
  std::vector<WeightRun> runs;
  for (int64_t u : x.taps) {
    const int64_t o = u / (x.tib * kk), j = u / kk % x.tib, k = u % kk;
    const int64_t dram = ((ob0 + o) * b.ibpo + x.j0 + j) * kk + k;
    const int64_t wgt = resident ? dram : u;
    if (!runs.empty() && runs.back().wgt + runs.back().n == wgt && runs.back().dram + runs.back().n == dram) {
      ++runs.back().n;
    } else {
      runs.push_back(WeightRun{wgt, dram, 1});
    }
  }
  return runs;
}

}  // namespace tessera::backend
