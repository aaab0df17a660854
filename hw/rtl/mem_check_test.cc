// tsr_mem_check (Verilated at one config) against sim's range rule
// (Core::BeginLoad / BeginStore fail exactly when CheckMem does): random
// LOAD/STORE words, half of them moved onto a limit (the scratchpad end, the
// DRAM end, a product at a power of two) by one field, +-1. `fault` must be
// the C++ decision on every word.
// Usage: rtl_mem_check_test CONFIG.json [--seed S] [--words N]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "Vtsr_mem_check.h"
#include "isa/asm.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "sim/core.h"
#include "tests/support/random_isa.h"
#include "verilated.h"

using namespace tessera;

namespace {

// A field value near a limit: lim + d (d in -2..2) clamped to the field.
int64_t Near(int64_t lim, std::mt19937_64& rng, int64_t max) {
  const int64_t v = lim + static_cast<int64_t>(rng() % 5) - 2;
  return v < 0 ? 0 : v > max ? max : v;
}

// One LOAD or STORE, its fields random or pushed onto a limit.
Instruction Pick(const HwConfig& cfg, std::mt19937_64& rng) {
  Instruction in;
  const bool store = rng() % 3 == 0;
  in.opcode = static_cast<int64_t>(store ? Opcode::kStore : Opcode::kLoad);
  const MemType loads[] = {MemType::kUop, MemType::kWgt, MemType::kInp, MemType::kAcc, MemType::kAcc8};
  in.mem = static_cast<int64_t>(store ? MemType::kOut : loads[rng() % std::size(loads)]);
  auto max_of = [&](FieldId f) {
    const int w = cfg.layout.slot(Format::kMem, f).width;
    return w >= 63 ? INT64_MAX : (int64_t{1} << w) - 1;
  };
  auto rnd = [&](FieldId f) {
    const int64_t m = max_of(f);
    switch (rng() % 4) {
      case 0: return int64_t{0};
      case 1: return m;
      case 2: return static_cast<int64_t>(rng() % 8);
      default: return static_cast<int64_t>(rng() % (static_cast<uint64_t>(m) + 1));
    }
  };
  for (FieldId f : {FieldId::sram, FieldId::dram, FieldId::y_size, FieldId::x_size, FieldId::x_stride, FieldId::y_pad0,
                    FieldId::y_pad1, FieldId::x_pad0, FieldId::x_pad1})
    in.Field(f) = rnd(f);
  if (in.mem_type() == MemType::kUop) in.y_pad0 = in.y_pad1 = in.x_pad0 = in.x_pad1 = 0;  // not encodable
  if (rng() % 2) {  // small sizes from the scratchpad's start: the DRAM side decides
    in.sram = static_cast<int64_t>(rng() % 4);
    in.y_size = static_cast<int64_t>(rng() % 10);
    in.x_size = static_cast<int64_t>(rng() % 10);
  }
  const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1, cols = in.x_pad0 + in.x_size + in.x_pad1;
  const int64_t rs = store ? rows : in.y_size, cs = store ? cols : in.x_size;
  const int64_t entries = cfg.Entries(in.mem_type());
  const int64_t elems = static_cast<int64_t>(cfg.dram_size_bytes / cfg.ElementBytes(in.mem_type()));
  switch (rng() % 6) {
    case 0: {  // the scratchpad's end, the DRAM transfer in range
      const int64_t n = store ? in.y_size * in.x_size : rows * cols;
      in.sram = Near(entries - n, rng, max_of(FieldId::sram));
      in.dram = 0;
      in.x_stride = cs;
      break;
    }
    case 1:  // the DRAM's end through the start
      in.dram = Near(elems - (rs > 0 ? (rs - 1) * in.x_stride : 0) - cs, rng, max_of(FieldId::dram));
      break;
    case 2:  // the DRAM's end through the stride
      if (rs > 1) in.x_stride = Near((elems - in.dram - cs) / (rs - 1), rng, max_of(FieldId::x_stride));
      break;
    case 3: {  // (rs - 1) * stride at a power of two
      if (rs > 1) in.x_stride = Near((int64_t{1} << (rng() % 18)) / (rs - 1), rng, max_of(FieldId::x_stride));
      break;
    }
    default: break;
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  const testing::RtlUnitArgs args = testing::ParseRtlUnitArgs(argc, argv, 300000);
  const HwConfig& cfg = args.cfg;
  const uint64_t seed = args.seed, words = args.words;
  std::mt19937_64 rng(seed);
  Core core(cfg, cfg.dram_size_bytes);
  Vtsr_mem_check dut;
  uint64_t faults = 0, differ = 0;
  for (uint64_t n = 0; n < words; ++n) {
    const Instruction in = Pick(cfg, rng);
    auto enc = Encode(cfg, in);
    if (!enc.ok()) {
      std::printf("cannot encode %s: %s\n", FormatInstruction(cfg, in).c_str(), enc.status().ToString().c_str());
      return 1;
    }
    const Status s = in.op() == Opcode::kStore ? core.BeginStore(in, 0) : core.BeginLoad(in, 0);
    const bool fault = !s.ok();
    for (int i = 0; i < 4; ++i) dut.insn[i] = static_cast<uint32_t>((i < 2 ? enc->lo : enc->hi) >> (32 * (i % 2)));
    dut.eval();
    faults += fault;
    if (static_cast<bool>(dut.fault) != fault && ++differ <= 10)
      std::printf("differ: %s: C++ %s, RTL fault=%d\n", FormatInstruction(cfg, in).c_str(),
                  fault ? s.ToString().c_str() : "in range", dut.fault);
  }
  std::printf("%llu words (%llu out of range), %llu differ\n", static_cast<unsigned long long>(words),
              static_cast<unsigned long long>(faults), static_cast<unsigned long long>(differ));
  return differ == 0 && faults > 0 && faults < words ? 0 : 1;
}
