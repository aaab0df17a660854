// Dependency-token plumbing shared by every engine: which of the four token
// queues (isa/isa.def) an instruction's pop/push flags refer to, and the
// ISA's rule for the end of a stream.
#pragma once

#include <array>
#include <cstdint>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera {

struct HwConfig;

inline const char* TokenQueueName(TokenQueue q) { return TokenQueueOf(q).name.data(); }

struct TokenOps {
  // Queues to pop from before starting / push to after finishing (up to two each).
  std::array<TokenQueue, 2> pops{}, pushes{};
  int n_pops = 0, n_pushes = 0;
};

// Flags of a validated instruction mapped onto queues for its module.
TokenOps TokensOf(const Instruction& in);

// The end-of-stream rule (docs/isa.md, "Dependency tokens"): every
// instruction is ordered before FINISH by dependency tokens. Load and store
// reach compute (FINISH's module) only through their own queue towards it,
// and only their last instruction needs checking (program order covers the
// rest), so the rule holds exactly when the last instruction of each of them
// pushes towards compute — that token being popped, like every token, before
// FINISH retires. It depends on the stream alone, never on timing: every
// engine feeds it each instruction as it decodes it and checks it when
// FINISH retires, before looking at what is still running.
class FinishRule {
 public:
  // Every instruction of the stream, in order.
  void Add(const Instruction& in, int64_t index);
  // kTokenError at `finish` naming the first module whose last instruction
  // is not ordered before FINISH; OK otherwise.
  Status Check(const HwConfig& cfg, int64_t finish) const;

 private:
  std::array<int64_t, kNumModules> last_index_ = {-1, -1, -1};
  std::array<Instruction, kNumModules> last_{};
};

}  // namespace tessera
