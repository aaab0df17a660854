// Happens-before race detection between modules, driven by dependency tokens
// (vector clocks). Cross-module scratchpad sharing is: inp/wgt written by
// load and read by compute; out (the narrowed accumulator) written by compute
// and read by store. An access whose conflicting predecessor on another module
// is not ordered before it by tokens is a race: the program is missing a token.
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
  using Clock = std::array<int64_t, kNumModules>;

  RaceChecker(const HwConfig& cfg, const std::vector<Instruction>* stream);

  // Token bookkeeping: a pop merges the token's clock into the module's.
  void Pop(Module m, const Clock& token);
  Clock Snapshot(Module m) const { return vc_[static_cast<int>(m)]; }
  // Starts instruction `index` (global stream index) on module m and checks
  // and records its cross-module scratchpad accesses.
  Status Start(Module m, int64_t index, const Core& core);

 private:
  struct Tracker {
    std::vector<int64_t> write_seq, read_seq;  // latest per entry, 0 = none
    const char* name;
    Module writer, reader;
  };
  Status Access(Tracker& t, int64_t entry, bool write, Module m, int64_t index);
  Status RecordRange(Tracker& t, int64_t first, int64_t count, bool write, Module m, int64_t index);

  const HwConfig& cfg_;
  const std::vector<Instruction>* stream_;
  Clock vc_[kNumModules] = {};
  std::vector<int64_t> seq_to_index_[kNumModules];
  Tracker inp_, wgt_, out_;
};

}  // namespace tessera
