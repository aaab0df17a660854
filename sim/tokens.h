// Dependency-token plumbing shared by every engine: which of the four token
// queues (isa/isa.def) an instruction's pop/push flags refer to.
#pragma once

#include <array>

#include "isa/isa.h"

namespace tessera {

inline const char* TokenQueueName(TokenQueue q) { return TokenQueueOf(q).name.data(); }

struct TokenOps {
  // Queues to pop from before starting / push to after finishing (up to two each).
  std::array<TokenQueue, 2> pops{}, pushes{};
  int n_pops = 0, n_pushes = 0;
};

// Flags of a validated instruction mapped onto queues for its module.
TokenOps TokensOf(const Instruction& in);

}  // namespace tessera
