#include "sim/tokens.h"

#include "isa/asm.h"
#include "isa/base/check.h"
#include "isa/regs.h"

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

void FinishRule::Add(const Instruction& in, int64_t index) {
  const int m = static_cast<int>(ModuleOf(in));
  last_index_[m] = index;
  last_[m] = in;
}

Status FinishRule::Check(const HwConfig& cfg, int64_t finish) const {
  Instruction fin;
  fin.opcode = static_cast<int64_t>(Opcode::kFinish);
  const Module fm = ModuleOf(fin);
  for (int i = 0; i < kNumModules; ++i) {
    const Module m = static_cast<Module>(i);
    if (m == fm || last_index_[i] < 0) continue;
    const std::optional<TokenQueue> q = TokenQueueBetween(m, fm);
    TSR_CHECK(q.has_value(), "the {} module has no token queue towards FINISH's module", ModuleName(m));
    if (last_[i].Field(PushFlagOf(*q))) continue;
    return regs::FaultError(regs::ErrorCode::kTokenError, finish,
                            "#{} {} is the {} module's last instruction and pushes no token towards {} ({}=0): it "
                            "is not ordered before FINISH (instruction {}); a dependency token is missing before "
                            "FINISH",
                            last_index_[i], FormatInstruction(cfg, last_[i]), ModuleName(m), ModuleName(fm),
                            kFields[static_cast<int>(PushFlagOf(*q))].name, finish);
  }
  return OkStatus();
}

}  // namespace tessera
