// The four dependency-token queues as the JIT sees them: which module pushes
// and pops each, and which instruction flag does it (docs/isa.md: for load
// *next* is compute; for compute *prev* is load and *next* is store).
#pragma once

#include "isa/isa.h"

namespace tessera {

// 0 load->compute, 1 compute->load, 2 compute->store, 3 store->compute.
inline constexpr int kNumTokenQueuePairs = 4;

inline int TokenQueueOf(Module from, Module to) {
  if (from == Module::kLoad && to == Module::kCompute) return 0;
  if (from == Module::kCompute && to == Module::kLoad) return 1;
  if (from == Module::kCompute && to == Module::kStore) return 2;
  if (from == Module::kStore && to == Module::kCompute) return 3;
  return -1;
}
inline Module TokenQueueFrom(int q) {
  constexpr Module kFrom[] = {Module::kLoad, Module::kCompute, Module::kCompute, Module::kStore};
  return kFrom[q];
}
inline Module TokenQueueTo(int q) {
  constexpr Module kTo[] = {Module::kCompute, Module::kLoad, Module::kStore, Module::kCompute};
  return kTo[q];
}
inline const char* TokenQueueName(int q) {
  constexpr const char* kNames[] = {"load->compute", "compute->load", "compute->store", "store->compute"};
  return kNames[q];
}
inline const char* TokenQueueList() { return "load->compute, compute->load, compute->store, store->compute"; }
// The flag on the producer's instruction (push towards `to`) and on the consumer's (pop from
// `from`). The four dependency flags. The ISA table puts them at the same bit in every instruction
// format (isa/isa.def: header rows come first).
enum class TokenFlag : uint8_t { kPopPrev, kPopNext, kPushPrev, kPushNext };
inline constexpr int kNumTokenFlags = 4;
inline TokenFlag TokenPushFlag(int q) {
  constexpr TokenFlag kPush[] = {TokenFlag::kPushNext, TokenFlag::kPushPrev, TokenFlag::kPushNext,
                                 TokenFlag::kPushPrev};
  return kPush[q];
}
inline TokenFlag TokenPopFlag(int q) {
  constexpr TokenFlag kPop[] = {TokenFlag::kPopPrev, TokenFlag::kPopNext, TokenFlag::kPopPrev, TokenFlag::kPopNext};
  return kPop[q];
}
inline int64_t& FlagOf(Instruction& in, TokenFlag f) {
  switch (f) {
    case TokenFlag::kPopPrev: return in.pop_prev;
    case TokenFlag::kPopNext: return in.pop_next;
    case TokenFlag::kPushPrev: return in.push_prev;
    case TokenFlag::kPushNext: return in.push_next;
  }
  return in.push_next;
}
inline FieldId FieldOf(TokenFlag f) {
  constexpr FieldId kIds[] = {FieldId::pop_prev, FieldId::pop_next, FieldId::push_prev, FieldId::push_next};
  return kIds[static_cast<int>(f)];
}

}  // namespace tessera
