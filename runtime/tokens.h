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
// The flag on the producer's instruction (push towards `to`) and on the consumer's (pop from `from`).
using InsnFlag = int64_t Instruction::*;
inline InsnFlag TokenPushFlag(int q) {
  constexpr InsnFlag kPush[] = {&Instruction::push_next, &Instruction::push_prev, &Instruction::push_next,
                                &Instruction::push_prev};
  return kPush[q];
}
inline InsnFlag TokenPopFlag(int q) {
  constexpr InsnFlag kPop[] = {&Instruction::pop_prev, &Instruction::pop_next, &Instruction::pop_prev,
                               &Instruction::pop_next};
  return kPop[q];
}

}  // namespace tessera
