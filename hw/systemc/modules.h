// The accelerator's inner modules (docs/systemc.md, "Inside"), mirroring the
// hardware of docs/microarch.md: fetch, the load/compute/store execution
// modules and the memory port, each an sc_module with its own process,
// connected by the command queues (Fifo<Command>, depth D_cmd) and the four
// dependency-token channels (Fifo, depth D_tok) that the Accelerator owns
// with the scratchpads (the shared core). The Accelerator's clock runs each
// cycle's phases as successive delta cycles and triggers the processes
// through one event per phase; a process acts only in its phases:
//   phase 2 (complete/push) and 3 (start)   ExecUnit   (SC_METHOD)
//   phase 1 (fetch arrival) and 4 (dispatch) Fetch     (SC_METHOD)
//   phase 1 (retire) and 5 (grant, b_transport) MemPort (SC_THREAD)
// Phase 1's effects are read only in phases 4 and 5, so fetch and the port
// apply them at the start of those. Instruction semantics are sim/core.h's,
// every timing rule is sim/timing.h's.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <deque>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "hw/systemc/fifo.h"
#include "isa/base/status.h"
#include "isa/isa.h"
#include "sim/core.h"
#include "sim/cycle_stats.h"
#include "sim/dma.h"
#include "sim/timing.h"
#include "sim/tokens.h"

namespace tessera {
class TraceSink;
}

namespace tessera::systemc {

inline constexpr int64_t kNever = INT64_MAX;

// The phases the clock runs as delta cycles (docs/microarch.md, "The cycle").
enum class Phase { kComplete, kStart, kDispatch, kRequest };

// One run, shared by the clock and the modules: where the clock is, the
// run's parameters, and what the modules report back.
struct RunState {
  const HwConfig* cfg = nullptr;
  Core* core = nullptr;
  TraceSink* trace = nullptr;
  uint64_t stream_addr = 0, dram_base = 0;
  int64_t count = 0, limit = 0;
  uint64_t t0 = 0, period = 0;  // SystemC time of cycle 0 and of one cycle, in ticks
  int64_t cycle = 0;
  Phase phase = Phase::kComplete;
  bool changed = false, finished = false;
  int64_t unretired = 0;   // dispatched and not yet done pushing (a serial core dispatches at 0)
  FinishRule finish_rule;  // the end-of-stream token rule, fed at decode
  CycleStats stats;
  Status error;
  int error_rank = INT_MAX;

  sc_core::sc_time Time(int64_t c) const {
    return sc_core::sc_time::from_value(t0 + period * static_cast<uint64_t>(c));
  }
  // A module reports an error; within a phase the lowest rank (module order) wins.
  void Fail(int rank, Status s) {
    if (rank < error_rank) error = std::move(s), error_rank = rank;
  }
  bool failed() const { return !error.ok(); }
};

struct Command {
  int64_t index = 0, dispatched = 0;  // startable from cycle dispatched + 1
  Instruction in;
};
using CommandQueue = Fifo<Command>;
using TokenChannel = Fifo<int64_t>;  // a token carries its producer's instruction index

// A burst the memory port performs on behalf of a module.
struct Burst {
  bool write = false;
  uint64_t addr = 0, bytes = 0;  // device byte address (DRAM_BASE is the port's)
  uint8_t* data = nullptr;
  int64_t index = 0;  // the instruction it belongs to
};

// A module's side of the memory port: a request ready in cycle t, the burst,
// and its acceptance (completion cycle from the target's annotated delay).
class Requester {
 public:
  virtual ~Requester() = default;
  virtual bool Ready(int64_t t) const = 0;
  virtual Burst Next() = 0;
  virtual void Accepted(const Burst& b, int64_t t, int64_t completion, int64_t beats) = 0;
};

class Fetch : public sc_core::sc_module, public Requester {
 public:
  Fetch(sc_core::sc_module_name name, RunState& run, std::array<CommandQueue*, kNumModules> queues,
        sc_core::sc_event& dispatch_phase);
  SC_HAS_PROCESS(Fetch);
  void Reset();
  bool Wants(int64_t t) const;
  void Finish(int64_t end);  // accounts the cycles up to the end of the run
  int64_t dispatched() const { return next_dispatch_; }
  int64_t buffered() const { return buffered_; }

  bool Ready(int64_t t) const override;
  Burst Next() override;
  void Accepted(const Burst& b, int64_t t, int64_t completion, int64_t beats) override;

 private:
  void Dispatch();  // SC_METHOD, phase 4
  void Account(int64_t until);

  struct Block {
    int64_t completion = kNever, first = 0, n = 0;
    std::vector<uint8_t> bytes;
  };
  RunState& run_;
  std::array<CommandQueue*, kNumModules> queues_;
  std::deque<Block> blocks_;  // requested, in stream order; the first `arrived_` have arrived
  size_t arrived_ = 0;
  int64_t next_request_ = 0, next_dispatch_ = 0, in_flight_ = 0, buffered_ = 0;
  bool decoded_ = false;
  Instruction head_;
  int64_t accounted_ = 0;                 // cycles before this one are accounted
  int64_t StallCycles::*tail_ = nullptr;  // category of the cycles since the last dispatch phase (null: idle)
};

class ExecUnit : public sc_core::sc_module, public Requester {
 public:
  ExecUnit(sc_core::sc_module_name name, Module id, RunState& run, CommandQueue& queue,
           std::array<TokenChannel*, kNumTokenQueues> tokens, sc_core::sc_event& complete_phase,
           sc_core::sc_event& start_phase);
  SC_HAS_PROCESS(ExecUnit);
  void Reset();
  bool Wants(Phase p, int64_t t) const;
  int64_t NextTimer(int64_t t) const;
  void Finish(int64_t end);
  bool HasWork() const { return alu_.state == State::kBusy || gemm_.state == State::kBusy || queue_.size() > 0; }
  std::string Describe() const;

  bool Ready(int64_t t) const override;
  Burst Next() override;
  void Accepted(const Burst& b, int64_t t, int64_t completion, int64_t beats) override;

 private:
  enum class State { kFree, kBusy, kPushing };
  // An instruction in execution. The compute module has two (sim/timing.h):
  // alu_ (ALU, its LOADs, FINISH) and gemm_; the other modules use alu_.
  struct Slot {
    State state = State::kFree;
    Command cur;
    int64_t start = 0, end = kNever, busy_part = 0;
    int64_t beside = 0;  // alu_'s LOAD: its cycles with gemm_ running
  };

  void Step();  // SC_METHOD, phases 2 and 3
  void Complete(Slot& s, int64_t t);
  void TryPush(Slot& s, int64_t t);
  void TryStart(int64_t t);
  Status Begin(Slot& s, int64_t t);
  StallCycles& stalls() { return run_.stats.unit(id_); }
  bool Compute() const { return id_ == Module::kCompute; }
  Slot& Other(const Slot& s) { return &s == &gemm_ ? alu_ : gemm_; }
  timing::PipeHolds Holds(const Slot& s) const;
  // Compute: attributes the cycles since the last call while a pipe is busy
  // or pushing (both busy: counted once; pushing, none busy: wait_token).
  void AccountTo(int64_t t);

  Module id_;
  RunState& run_;
  CommandQueue& queue_;
  std::array<TokenChannel*, kNumTokenQueues> tokens_;
  timing::Port port_;
  Slot alu_, gemm_;
  int64_t since_ = 0;      // free since (both slots kFree) / holding its pushes since (kPushing, not compute)
  int64_t accounted_ = 0;  // compute: AccountTo's cursor
  DmaBursts dma_;
  std::vector<uint8_t> row_;
};

class MemPort : public sc_core::sc_module {
 public:
  // `requesters` in grant priority: fetch, compute, store, load (sim/timing.h).
  MemPort(sc_core::sc_module_name name, RunState& run, tlm::tlm_initiator_socket<>& socket,
          std::array<Requester*, 4> requesters, sc_core::sc_event& request_phase, sc_core::sc_event& done);
  SC_HAS_PROCESS(MemPort);
  void Reset();
  bool Wants(int64_t t) const;
  int64_t NextCompletion(int64_t t) const;
  void Finish();

 private:
  void Thread();  // phase 5
  void Grant(int64_t t);
  int Outstanding(int64_t t) const;

  RunState& run_;
  tlm::tlm_initiator_socket<>& socket_;
  std::array<Requester*, 4> requesters_;
  sc_core::sc_event& request_phase_;
  sc_core::sc_event& done_;
  timing::Port port_;
  std::vector<int64_t> completions_;  // of outstanding bursts
  int64_t beats_ = 0, bursts_ = 0, slot_cycles_ = 0;
};

}  // namespace tessera::systemc
