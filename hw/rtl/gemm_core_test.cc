// Checks hw/rtl/tsr_gemm_core.v (Verilated at BATCH=1, BLOCK_IN=BLOCK_OUT=4,
// int8, 32-bit accumulators, PIPE=2) against a direct dot product: a random
// stream of iterations (some reset, some idle cycles) whose results must leave
// exactly PIPE cycles later with acc_in + inp . wgt^T wrapped to 32 bits.
// Then every int8 triple (x, w_lo, w_hi) of the packed products (outputs 2q
// and 2q+1 share one multiplier per input lane): input lane 0 carries x and
// each output pair a (w_lo, w_hi), the other lanes' weights are 0, so each
// output is one product (2^23 iterations, two triples each).
#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>

#include "Vtsr_gemm_core.h"

namespace {

constexpr int kIn = 4, kOut = 4, kPipe = 2;

struct Iter {
  bool valid, reset;
  uint32_t dst;
  int8_t inp[kIn];
  int8_t wgt[kOut][kIn];
};

}  // namespace

int main() {
  Vtsr_gemm_core m;
  std::mt19937 rng(10);
  std::deque<Iter> flight;
  m.clk = 0;
  m.rst = 1;
  m.eval();
  m.clk = 1;
  m.eval();
  m.rst = 0;
  long checked = 0, failures = 0;
  constexpr long kRandom = 100000, kTriples = long{1} << 23;
  for (long cycle = 0; cycle < kRandom + kTriples + kPipe; ++cycle) {
    Iter it{};
    if (cycle < kRandom) {
      it.valid = rng() % 8 != 0;
      it.reset = rng() % 16 == 0;
      it.dst = rng() % 256;
      for (int k = 0; k < kIn; ++k) it.inp[k] = static_cast<int8_t>(rng());
      for (int o = 0; o < kOut; ++o)
        for (int k = 0; k < kIn; ++k) it.wgt[o][k] = static_cast<int8_t>(rng());
    } else if (cycle < kRandom + kTriples) {  // t = x:8 | pair:15; pairs 2*pair and 2*pair + 1
      const long t = cycle - kRandom;
      it.valid = true;
      for (int k = 0; k < kIn; ++k) it.inp[k] = static_cast<int8_t>(rng());
      it.inp[0] = static_cast<int8_t>(t >> 15);
      for (int q = 0; q < kOut / 2; ++q) {
        const long w = 2 * (t & 0x7FFF) + q;
        it.wgt[2 * q][0] = static_cast<int8_t>(w & 0xFF);
        it.wgt[2 * q + 1][0] = static_cast<int8_t>(w >> 8);
      }
    }  // else: idle cycles draining the pipeline
    m.clk = 0;
    m.in_valid = it.valid;
    m.in_reset = it.reset;
    m.in_dst = it.dst;
    m.inp = 0;
    for (int k = 0; k < kIn; ++k) m.inp |= static_cast<uint32_t>(static_cast<uint8_t>(it.inp[k])) << (8 * k);
    for (int w = 0; w < 4; ++w) m.wgt[w] = 0;
    for (int o = 0; o < kOut; ++o)
      for (int k = 0; k < kIn; ++k) {
        const int bit = (o * kIn + k) * 8;
        m.wgt[bit / 32] |= static_cast<uint32_t>(static_cast<uint8_t>(it.wgt[o][k])) << (bit % 32);
      }
    uint32_t acc_in[kOut];
    for (int o = 0; o < kOut; ++o) m.acc_in[o] = acc_in[o] = static_cast<uint32_t>(rng());
    m.eval();
    if (flight.size() == kPipe) {
      const Iter& w = flight.front();
      bool ok = m.out_valid == w.valid && (!w.valid || (m.out_reset == w.reset && m.out_dst == w.dst));
      for (int o = 0; w.valid && o < kOut; ++o) {
        uint32_t want = 0;
        if (!w.reset) {
          int32_t dot = 0;
          for (int k = 0; k < kIn; ++k) dot += w.inp[k] * w.wgt[o][k];
          want = acc_in[o] + static_cast<uint32_t>(dot);
        }
        ok = ok && m.out_acc[o] == want;
      }
      ++checked;
      if (!ok && ++failures <= 10) std::printf("cycle %ld: result differs from the dot product\n", cycle);
      flight.pop_front();
    }
    flight.push_back(it);
    m.clk = 1;
    m.eval();
  }
  std::printf("tsr_gemm_core: %ld of %ld cycles differ\n", failures, checked);
  return failures == 0 && checked == kRandom + kTriples ? 0 : 1;
}
