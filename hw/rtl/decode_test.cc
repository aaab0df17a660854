// tsr_decode (Verilated at one config) against the C++ decoder: for random
// words — legal instructions from RandomLegalInstruction, then one to three
// random bit flips — and random stream positions, `illegal` must equal
// !(Decode(cfg, word).ok() && CheckFinishPlacement(...).ok()) and, when
// legal, `module_id` must be ModuleOf(instruction).
// Usage: rtl_decode_test CONFIG.json [--seed S] [--words N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "Vtsr_decode.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "sim/core.h"
#include "tests/support/random_isa.h"
#include "verilated.h"

using namespace tessera;

int main(int argc, char** argv) {
  const testing::RtlUnitArgs args = testing::ParseRtlUnitArgs(argc, argv, 200000);
  const HwConfig& cfg = args.cfg;
  const uint64_t seed = args.seed, words = args.words;
  std::mt19937_64 rng(seed);
  Vtsr_decode dut;
  uint64_t legal = 0, differ = 0;
  for (uint64_t n = 0; n < words; ++n) {
    auto enc = Encode(cfg, testing::RandomLegalInstruction(cfg, rng));
    if (!enc.ok()) return 1;
    Word128 w = *enc;
    // Half the words get one field set to a boundary or random value.
    const Instruction base = *Decode(cfg, w);
    if (rng() % 2) {
      const FieldInfo& fi = kFields[rng() % std::size(kFields)];
      const FieldSlot& slot = cfg.layout.slot(FormatOf(base.op()), fi.id);
      if (slot.present()) {
        const uint64_t mask = slot.width >= 64 ? ~uint64_t{0} : (uint64_t{1} << slot.width) - 1;
        const uint64_t picks[] = {0, 1, 62, 63, 64, 65, mask, mask - 1, rng()};
        w.Set(slot.lsb, slot.width, picks[rng() % std::size(picks)] & mask);
      }
    }
    const int flips = static_cast<int>(rng() % 3);  // 0: no flip
    for (int f = 0; f < flips; ++f) {
      const int bit = static_cast<int>(rng() % 128);
      if (bit < 64)
        w.lo ^= uint64_t{1} << bit;
      else
        w.hi ^= uint64_t{1} << (bit - 64);
    }
    const uint32_t count = 1 + static_cast<uint32_t>(rng() % 8);
    const uint32_t index = rng() % 2 ? count - 1 : static_cast<uint32_t>(rng() % count);
    auto in = Decode(cfg, w);
    const bool ok = in.ok() && CheckFinishPlacement(cfg, *in, index, count).ok();
    for (int i = 0; i < 4; ++i) dut.insn[i] = static_cast<uint32_t>((i < 2 ? w.lo : w.hi) >> (32 * (i % 2)));
    dut.index = index;
    dut.count = count;
    dut.eval();
    const bool rtl_ok = !dut.illegal;
    bool bad = rtl_ok != ok;
    if (ok && !bad && dut.module_id != static_cast<int>(ModuleOf(*in))) bad = true;
    legal += ok;
    if (bad && ++differ <= 10)
      std::printf("differ: word %016llx%016llx index %u of %u: C++ %s (%s), RTL illegal=%d module=%d\n",
                  static_cast<unsigned long long>(w.hi), static_cast<unsigned long long>(w.lo), index, count,
                  ok ? "legal" : "illegal", ok ? "" : (in.ok() ? "stream rule" : in.status().message().c_str()),
                  dut.illegal, dut.module_id);
  }
  std::printf("%llu words (%llu legal), %llu differ\n", static_cast<unsigned long long>(words),
              static_cast<unsigned long long>(legal), static_cast<unsigned long long>(differ));
  return differ == 0 ? 0 : 1;
}
