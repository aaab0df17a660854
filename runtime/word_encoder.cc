#include "runtime/word_encoder.h"

namespace tessera {
namespace {

constexpr int64_t Instruction::*kMembers[] = {
#define TSR_FIELD(id, ...) &Instruction::id,
#include "isa/isa.def"
};
static_assert(sizeof(kMembers) / sizeof(kMembers[0]) == kNumFields, "one member per field");

}  // namespace

WordEncoder::WordEncoder(const HwConfig& cfg) {
  for (int f = 0; f < kNumFormats; ++f)
    for (const FieldInfo& fi : kFields) {
      const FieldSlot& s = cfg.layout.slot(static_cast<Format>(f), fi.id);
      if (s.present()) slots_[f].push_back(Slot{kMembers[static_cast<int>(fi.id)], s.lsb, s.width});
    }
}

Word128 WordEncoder::Encode(const Instruction& in) const {
  Word128 w;
  for (const Slot& s : slots_[static_cast<int>(FormatOf(in.op()))]) {
    const uint64_t v = static_cast<uint64_t>(in.*s.member) & (s.width >= 64 ? ~0ull : (1ull << s.width) - 1);
    if (s.lsb >= 64) {
      w.hi |= v << (s.lsb - 64);
    } else {
      w.lo |= v << s.lsb;
      if (s.lsb + s.width > 64) w.hi |= v >> (64 - s.lsb);
    }
  }
  return w;
}

}  // namespace tessera
