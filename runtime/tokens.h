// The four dependency-token queues as the JIT sees them, by index (the
// topology itself is isa/isa.def's TSR_TOKEN_QUEUE table): which module pushes
// and pops each, and which instruction flag does it.
#pragma once

#include <string>

#include "isa/isa.h"

namespace tessera {

inline constexpr int kNumTokenQueuePairs = kNumTokenQueues;

inline int TokenQueueOf(Module from, Module to) {
  const std::optional<TokenQueue> q = TokenQueueBetween(from, to);
  return q ? static_cast<int>(*q) : -1;
}
inline Module TokenQueueFrom(int q) { return kTokenQueues[q].from; }
inline Module TokenQueueTo(int q) { return kTokenQueues[q].to; }
inline const char* TokenQueueName(int q) { return kTokenQueues[q].name.data(); }
inline std::string TokenQueueList() {
  std::string s;
  for (const TokenQueueInfo& q : kTokenQueues) s += (s.empty() ? "" : ", ") + std::string(q.name);
  return s;
}

// The four dependency flags, in the order of their fields. The ISA table puts
// them at the same bit in every instruction format (isa/isa.def: header rows
// come first).
enum class TokenFlag : uint8_t { kPopPrev, kPopNext, kPushPrev, kPushNext };
inline constexpr int kNumTokenFlags = 4;
inline FieldId FieldOf(TokenFlag f) {
  constexpr FieldId kIds[] = {FieldId::pop_prev, FieldId::pop_next, FieldId::push_prev, FieldId::push_next};
  return kIds[static_cast<int>(f)];
}
inline TokenFlag FlagOfField(FieldId id) {
  for (int f = 0; f < kNumTokenFlags; ++f)
    if (FieldOf(static_cast<TokenFlag>(f)) == id) return static_cast<TokenFlag>(f);
  return TokenFlag::kPushNext;
}
// The flag on the producer's instruction (push towards `to`) and on the consumer's (pop from `from`).
inline TokenFlag TokenPushFlag(int q) { return FlagOfField(PushFlagOf(static_cast<TokenQueue>(q))); }
inline TokenFlag TokenPopFlag(int q) { return FlagOfField(PopFlagOf(static_cast<TokenQueue>(q))); }
inline int64_t& FlagOf(Instruction& in, TokenFlag f) { return in.Field(FieldOf(f)); }

}  // namespace tessera
