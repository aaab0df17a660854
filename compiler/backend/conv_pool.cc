#include "compiler/backend/conv_pool.h"

#include "sim/timing.h"

namespace tessera::backend {

std::vector<PoolPass> PoolPasses(const PoolTile& t) {
  const int64_t tw = t.tw, pw = t.tw / 2, rows = t.th / 2, block = t.th * t.tw;
  std::vector<PoolPass> v;
  auto pass = [&](const char* what, AluOp op, KernelLoop outer, KernelLoop inner) -> PoolPass& {
    v.push_back(PoolPass{what, op, outer, inner, {}});
    return v.back();
  };
  // Rows: every conv row, anchors 0..tw-2 from their right and left neighbours.
  if (pw >= 2) {
    PoolPass& p = pass("pool rows", AluOp::kMax, {t.th, tw, tw}, {pw - 1, 2, 2});
    for (int64_t o = 0; o < t.tob; ++o) {
      const int64_t b = t.conv + o * block;
      p.uops.push_back({b, b + 1});
      p.uops.push_back({b + 2, b + 1});
    }
  }
  PoolPass& last_col = pass("pool last column", AluOp::kMax, {t.th, tw, tw}, {1, 0, 0});
  for (int64_t o = 0; o < t.tob; ++o)
    last_col.uops.push_back({t.conv + o * block + tw - 2, t.conv + o * block + tw - 1});
  // Columns: anchor rows from the odd rows below and above them.
  if (rows >= 2) {
    PoolPass& p = pass("pool cols", AluOp::kMax, {rows - 1, 2 * tw, 2 * tw}, {pw, 2, 2});
    for (int64_t o = 0; o < t.tob; ++o) {
      const int64_t b = t.conv + o * block;
      p.uops.push_back({b, b + tw});
      p.uops.push_back({b + 2 * tw, b + tw});
    }
  }
  PoolPass& last_row = pass("pool last row", AluOp::kMax, {1, 0, 0}, {pw, 2, 2});
  for (int64_t o = 0; o < t.tob; ++o)
    last_row.uops.push_back({t.conv + o * block + (t.th - 2) * tw, t.conv + o * block + (t.th - 1) * tw});
  if (t.carry >= 0) {
    PoolPass& p = pass("pool carry", AluOp::kMax, {1, 0, 0}, {pw, 2, 2});
    for (int64_t o = 0; o < t.tob; ++o)
      p.uops.push_back({t.conv + o * block, t.carry + o * t.carry_th * tw + (t.carry_th - 1) * tw});
  }
  PoolPass& compact = pass("pool compact", AluOp::kMov, {rows, pw, 2 * tw}, {pw, 1, 2});
  for (int64_t o = 0; o < t.tob; ++o) compact.uops.push_back({t.out + o * rows * pw, t.conv + o * block});
  return v;
}

int64_t PoolPassCycles(const HwConfig& cfg, const PoolTile& t) {
  int64_t cycles = 0;
  for (const PoolPass& p : PoolPasses(t)) {
    std::vector<int64_t> src;
    for (const auto& u : p.uops) src.push_back(u.second);
    cycles += timing::AluCycles(cfg, timing::AluLoopCycles(cfg, p.op, true, p.outer.extent, p.inner.extent, src.data(),
                                                           static_cast<int64_t>(src.size()), p.outer.src, p.inner.src));
  }
  return cycles;
}

}  // namespace tessera::backend
