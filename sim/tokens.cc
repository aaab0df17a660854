#include "sim/tokens.h"

#include "isa/base/check.h"

namespace tessera {

const char* TokenQueueName(TokenQueue q) {
  switch (q) {
    case TokenQueue::kLoadToCompute: return "load->compute";
    case TokenQueue::kComputeToLoad: return "compute->load";
    case TokenQueue::kComputeToStore: return "compute->store";
    case TokenQueue::kStoreToCompute: return "store->compute";
  }
  return "?";
}

TokenOps TokensOf(const Instruction& in) {
  TokenOps t;
  auto pop = [&](TokenQueue q) { t.pops[t.n_pops++] = q; };
  auto push = [&](TokenQueue q) { t.pushes[t.n_pushes++] = q; };
  switch (ModuleOf(in)) {
    case Module::kLoad:
      TSR_CHECK(!in.pop_prev && !in.push_prev, "load instruction with prev flags");
      if (in.pop_next) pop(TokenQueue::kComputeToLoad);
      if (in.push_next) push(TokenQueue::kLoadToCompute);
      break;
    case Module::kCompute:
      if (in.pop_prev) pop(TokenQueue::kLoadToCompute);
      if (in.pop_next) pop(TokenQueue::kStoreToCompute);
      if (in.push_prev) push(TokenQueue::kComputeToLoad);
      if (in.push_next) push(TokenQueue::kComputeToStore);
      break;
    case Module::kStore:
      TSR_CHECK(!in.pop_next && !in.push_next, "store instruction with next flags");
      if (in.pop_prev) pop(TokenQueue::kComputeToStore);
      if (in.push_prev) push(TokenQueue::kStoreToCompute);
      break;
  }
  return t;
}

}  // namespace tessera
