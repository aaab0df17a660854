// Happens-before race detection, driven by dependency tokens (vector clocks).
// The agents are the load and store modules and the compute module's two
// pipes (sim/timing.h): its ALU pipe (ALU, its LOADs, FINISH) and its GEMM
// pipe. Scratchpad sharing: inp/wgt written by load and read by the GEMM pipe;
// the accumulator (out is its narrowed shadow) written and read by both pipes
// and read by store. Within compute, program order orders everything except
// an instruction with `ovl` and the older instruction on the other pipe it may
// overlap; across modules only tokens order. An access whose conflicting
// predecessor on another agent is not ordered before it is a race: a missing
// token, or an `ovl` whose disjointness promise does not hold (disjoint
// accumulator banks, sim/timing.h AccBank, not only rows).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera {

class Core;
struct HwConfig;

class RaceChecker {
 public:
  static constexpr int kAgents = kNumModules + 1;  // load, compute (ALU pipe), store, compute GEMM pipe
  using Clock = std::array<int64_t, kAgents>;

  RaceChecker(const HwConfig& cfg, const std::vector<Instruction>* stream);

  // Instruction `index` (global stream index) pops a token carrying `token`.
  void Pop(int64_t index, const Clock& token);
  // The clock a push of instruction `index` carries (after Start).
  Clock Snapshot(int64_t index) const { return vc_[AgentOf(index)]; }
  // Starts instruction `index` (after its pops) and checks and records its
  // scratchpad accesses.
  Status Start(int64_t index, const Core& core);

 private:
  struct Tracker {
    // Per entry: the latest write (agent, sequence) and each agent's latest read (0 = none).
    std::vector<int64_t> write_seq;
    std::vector<int8_t> write_agent;
    std::array<std::vector<int64_t>, kAgents> read_seq;
    const char* name;
  };
  int AgentOf(int64_t index) const;
  static Tracker MakeTracker(int64_t entries, const char* name);
  Status Access(Tracker& t, int64_t entry, bool write, int agent, int64_t index);
  Status Race(const Tracker& t, int64_t entry, bool write, int agent, int64_t index, int other, int64_t other_seq,
              bool other_write) const;
  Status RecordRange(Tracker& t, int64_t first, int64_t count, bool write, int agent, int64_t index);
  Status CheckBanks(int64_t index, int agent, int banks);

  const HwConfig& cfg_;
  const std::vector<Instruction>* stream_;
  Clock vc_[kAgents] = {};
  // Per compute pipe: its clock when its latest instruction started (before
  // counting it): what an overlapping instruction on the other pipe may assume done.
  Clock before_[kAgents] = {};
  std::vector<int64_t> seq_to_index_[kAgents];
  // Per compute pipe: the accumulator banks (bit b: bank b, timing::AccBank)
  // its latest instruction touches and that instruction's index (-1: none
  // an overlapping instruction could run beside).
  int banks_[kAgents] = {};
  int64_t banks_index_[kAgents] = {-1, -1, -1, -1};
  Tracker inp_, wgt_, acc_;
};

}  // namespace tessera
