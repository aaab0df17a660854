// Dependency-token plumbing shared by every engine: the four token queues
// between neighbouring modules and which of them an instruction's pop/push
// flags refer to.
#pragma once

#include <array>

#include "isa/isa.h"

namespace tessera {

enum class TokenQueue : uint8_t { kLoadToCompute, kComputeToLoad, kComputeToStore, kStoreToCompute };
inline constexpr int kNumTokenQueues = 4;
const char* TokenQueueName(TokenQueue q);  // "load->compute", ...

struct TokenOps {
  // Queues to pop from before starting / push to after finishing (up to two each).
  std::array<TokenQueue, 2> pops{}, pushes{};
  int n_pops = 0, n_pushes = 0;
};

// Flags of a validated instruction mapped onto queues for its module.
TokenOps TokensOf(const Instruction& in);

}  // namespace tessera
