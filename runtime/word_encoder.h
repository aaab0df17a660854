// Encoding of instructions the JIT has already validated: per format, the
// list of present fields with their bit slots, precomputed once per config,
// so encoding a word is a handful of shifts (isa/encoding.h's Encode
// re-validates every field of every format, which the JIT did at emission).
#pragma once

#include <array>
#include <vector>

#include "isa/config.h"
#include "isa/isa.h"

namespace tessera {

class WordEncoder {
 public:
  explicit WordEncoder(const HwConfig& cfg);
  // `in` must satisfy ValidateInstruction for the config.
  Word128 Encode(const Instruction& in) const;

 private:
  struct Slot {
    int64_t Instruction::*member;
    int lsb, width;
  };
  std::array<std::vector<Slot>, kNumFormats> slots_;
};

}  // namespace tessera
