#include "sim/tokens.h"

#include "isa/base/check.h"

namespace tessera {

TokenOps TokensOf(const Instruction& in) {
  TokenOps t;
  const Module m = ModuleOf(in);
  for (const TokenQueueInfo& q : kTokenQueues) {
    if (q.to == m && in.Field(PopFlagOf(q.queue))) t.pops[t.n_pops++] = q.queue;
    if (q.from == m && in.Field(PushFlagOf(q.queue))) t.pushes[t.n_pushes++] = q.queue;
  }
  return t;
}

}  // namespace tessera
