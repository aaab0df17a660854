// Checks hw/rtl/tsr_alu_lane.v (Verilated) against isa/alu.h on every ALU
// operation: edge values crossed with each other plus seeded random values.
// With TSR_LANE_K = K > 1 every case is clocked through mstep 0 .. K-1 and the
// result read in the last step.
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <random>
#include <vector>

#include "Vtsr_alu_lane.h"
#include "isa/alu.h"

#ifndef TSR_LANE_W
#error "TSR_LANE_W must name the lane width the model was built with"
#endif
#ifndef TSR_LANE_K
#define TSR_LANE_K 1
#endif

int main() {
  constexpr int kW = TSR_LANE_W, kK = TSR_LANE_K;
  using tessera::AluOp;
  Vtsr_alu_lane m;
  const int64_t hi = (int64_t{1} << (kW - 1)) - 1, lo = -hi - 1;
  std::vector<int64_t> edge = {0,   1,   -1,  2,   -2,  31,   32, 33, 63,     64,    -31,
                               -32, -33, -63, -64, 127, -128, hi, lo, hi - 1, lo + 1};
  std::mt19937_64 rng(10);
  std::vector<std::pair<int64_t, int64_t>> cases;
  for (int64_t a : edge)
    for (int64_t b : edge) cases.push_back({a, b});
  for (int i = 0; i < 200000 / kK; ++i) {
    int64_t a = tessera::alu::Wrap(static_cast<int64_t>(rng()), kW);
    int64_t b = tessera::alu::Wrap(static_cast<int64_t>(rng()), kW);
    if (i % 3 == 1) b = static_cast<int64_t>(rng() % 140) - 70;  // shift-sized operands
    if (i % 5 == 2) a = static_cast<int64_t>(rng() % 512) - 256;
    cases.push_back({a, b});
  }
  const uint64_t mask = kW == 64 ? ~0ull : ((uint64_t{1} << kW) - 1);
  long failures = 0, checked = 0;
  for (int op = 0; op < static_cast<int>(std::size(tessera::kAluOps)); ++op) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const auto [a, b] = cases[i];
      const int sh = static_cast<int>((static_cast<uint64_t>(a ^ b) + i) % 64);
      const int clip = static_cast<int>((static_cast<uint64_t>(a) * 7 + i) % 32);            // MULSHRC's imm[10:6]
      const int64_t imm = op == static_cast<int>(AluOp::kMulShrClip) ? sh | clip << 6 : sh;  // others: imm <= 63
      const int64_t want = tessera::alu::Apply(static_cast<AluOp>(op), a, b, imm, kW);
      m.op = op;
      m.dst = static_cast<uint32_t>(static_cast<uint64_t>(a) & mask);
      m.b = static_cast<uint32_t>(static_cast<uint64_t>(b) & mask);
      m.shamt = sh;
      m.clip = clip;
      for (int step = 0; step < kK; ++step) {  // the result of the last step, before its clock edge
        m.mstep = step;
        m.clk = 0;
        m.eval();
        if (step + 1 == kK) break;
        m.clk = 1;
        m.eval();
      }
      const int64_t got = tessera::alu::Wrap(static_cast<int64_t>(m.result), kW);
      ++checked;
      if (got != want && ++failures <= 10)
        std::printf("op %d dst %lld b %lld shamt %d clip %d: rtl %lld, isa/alu.h %lld\n", op, static_cast<long long>(a),
                    static_cast<long long>(b), sh, clip, static_cast<long long>(got), static_cast<long long>(want));
    }
  }
  std::printf("tsr_alu_lane W=%d K=%d: %ld of %ld cases differ from isa/alu.h\n", kW, kK, failures, checked);
  return failures == 0 ? 0 : 1;
}
