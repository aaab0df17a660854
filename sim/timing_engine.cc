// The event-driven implementation of the timing contract. Engine::Step(t)
// runs the five phases of cycle t (docs/microarch.md, "The cycle") and
// reports whether anything changed; the next visited cycle is t + 1 after a
// change, else the earliest pending timer (instruction end, burst completion,
// DMA burst readiness). Between visited cycles no state can change, which is
// what EngineOptions::visit_every_cycle checks in tests.
#include "sim/timing_engine.h"

#include <algorithm>
#include <array>
#include <deque>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "sim/dma.h"
#include "sim/mem_port.h"
#include "sim/timing.h"
#include "sim/tokens.h"
#include "sim/trace.h"

namespace tessera {
namespace {

constexpr int64_t kNever = INT64_MAX;
constexpr int kUnits = kNumModules;  // load, compute, store

struct Queued {
  int64_t index;
  int64_t dispatched;  // cycle of dispatch; startable from the next cycle
};

struct Unit {
  Module id;
  std::deque<Queued> queue;
  enum class State { kFree, kBusy, kPushing } state = State::kFree;
  int64_t index = -1, start = 0, end = kNever, busy_part = 0;
  int64_t beside = 0;  // the ALU pipe's LOAD: its cycles with the GEMM pipe running
  DmaBursts dma;
  int64_t trailing_wait_queue = 0;
};

class Engine {
 public:
  Engine(const HwConfig& cfg, InstructionSource& src, const EngineOptions& opts, CycleStats* stats, uint64_t addr,
         int64_t count)
      : cfg_(cfg), src_(src), opts_(opts), stats_(*stats), port_(cfg), addr_(addr), count_(count) {
    for (int m = 0; m < kUnits; ++m) units_[m].id = static_cast<Module>(m);
    gemm_.id = Module::kCompute;
    stream_.reserve(static_cast<size_t>(std::min<int64_t>(count, 1 << 20)));
  }

  Status Run() {
    if (count_ <= 0) return regs::FaultError(regs::ErrorCode::kBadLaunch, -1, "empty instruction stream");
    limit_ = opts_.max_cycles > 0 ? opts_.max_cycles : int64_t{1000000000000};
    const int64_t limit = limit_;
    int64_t t = 0;
    for (;;) {
      changed_ = false;
      dispatched_now_ = false;
      TSR_RETURN_IF_ERROR(Step(t));
      if (finished_) break;
      int64_t next = changed_ || opts_.visit_every_cycle ? t + 1 : NextTimer(t);
      if (next == kNever) return Deadlock(t);
      if (next > limit) {
        Account(t, limit - t);
        return regs::FaultError(regs::ErrorCode::kWatchdog, -1,
                                "watchdog: the run passed {} cycles without finishing ({} of {} instructions "
                                "dispatched; {})",
                                limit, next_dispatch_, count_, UnitStates());
      }
      Account(t, next - t);
      t = next;
    }
    return Finish(t);
  }

 private:
  // ---- one cycle -----------------------------------------------------------
  Status Step(int64_t t) {
    TSR_RETURN_IF_ERROR(src_.AtCycle(t));
    // Phase 1: memory completions.
    if (port_.Retire(t) > 0) changed_ = true;
    while (!fetch_blocks_.empty() && fetch_blocks_.front().first == t) {
      in_flight_ -= fetch_blocks_.front().second;
      buffered_ += fetch_blocks_.front().second;
      fetch_blocks_.pop_front();
      changed_ = true;
    }
    // Phase 2: instruction completions and pushes (the compute module's two
    // pipes oldest first: a younger push may wait for an older one).
    for (Unit* u : Slots()) {
      if (u->state == Unit::State::kBusy && u->end == t) Complete(*u);
      if (u->state == Unit::State::kPushing) TryPush(*u, t);
    }
    if (finished_) return OkStatus();
    // Phase 3: instruction starts.
    for (Unit& u : units_) TSR_RETURN_IF_ERROR(TryStart(u, t));
    // Phase 4: fetch dispatch.
    TSR_RETURN_IF_ERROR(Dispatch(t));
    // Phase 5: memory requests.
    Request(t);
    return OkStatus();
  }

  void Complete(Unit& u) {
    StallCycles& mc = stats_.unit(u.id);
    const timing::DmaSplit split = timing::SplitDmaCycles(u.end - u.start, u.busy_part, u.beside);
    mc.busy += split.busy;
    mc.wait_memory += split.wait_memory;
    const Instruction& in = stream_[u.index];
    if (opts_.record_instructions) stats_.instructions.push_back({u.index, u.id, u.start, u.end});
    if (opts_.trace) opts_.trace->Span(1 + static_cast<int>(u.id), InstructionSpanName(in), u.start, u.end, u.index);
    u.state = Unit::State::kPushing;
    changed_ = true;
  }

  // load, the compute module's pipes (oldest instruction first), store.
  std::array<Unit*, kUnits + 1> Slots() {
    Unit* a = &units_[static_cast<int>(Module::kCompute)];
    Unit* g = &gemm_;
    if (g->state != Unit::State::kFree && (a->state == Unit::State::kFree || g->index < a->index)) std::swap(a, g);
    return {&units_[0], a, g, &units_[2]};
  }
  Unit& OtherPipe(const Unit& u) { return &u == &gemm_ ? units_[static_cast<int>(Module::kCompute)] : gemm_; }
  timing::PipeHolds Holds(const Unit& u) const {
    return timing::HoldsOf(u.state == Unit::State::kFree ? nullptr : &stream_[u.index]);
  }

  void TryPush(Unit& u, int64_t t) {
    const TokenOps ops = TokensOf(stream_[u.index]);
    if (u.id == Module::kCompute) {  // per queue in stream order (sim/timing.h)
      const Unit& o = OtherPipe(u);
      if (o.state != Unit::State::kFree && o.index < u.index &&
          timing::PushWaitsForOlder(stream_[u.index], stream_[o.index]))
        return;  // retry next cycle
    }
    for (int i = 0; i < ops.n_pushes; ++i)
      if (tokens_[static_cast<int>(ops.pushes[i])] >= cfg_.token_queue_depth) return;  // retry next cycle
    for (int i = 0; i < ops.n_pushes; ++i) {
      const int q = static_cast<int>(ops.pushes[i]);
      ++tokens_[q];
      TraceToken(q, t);
    }
    u.state = Unit::State::kFree;
    changed_ = true;
    if (stream_[u.index].op() == Opcode::kFinish) finished_ = true;
  }

  Status TryStart(Unit& queue_unit, int64_t t) {
    if (queue_unit.queue.empty() || queue_unit.queue.front().dispatched >= t) return OkStatus();
    const int64_t idx = queue_unit.queue.front().index;
    const Instruction& in = stream_[idx];
    if (queue_unit.id == Module::kCompute) {
      if (!timing::PipesAllow(cfg_, in, Holds(queue_unit), Holds(gemm_))) return OkStatus();
    } else if (queue_unit.state != Unit::State::kFree) {
      return OkStatus();
    }
    Unit& u = queue_unit.id == Module::kCompute && timing::PipeOf(in) == timing::Pipe::kGemm ? gemm_ : queue_unit;
    const TokenOps ops = TokensOf(in);
    for (int i = 0; i < ops.n_pops; ++i)
      if (tokens_[static_cast<int>(ops.pops[i])] == 0) return OkStatus();
    for (int i = 0; i < ops.n_pops; ++i) {
      const int q = static_cast<int>(ops.pops[i]);
      --tokens_[q];
      TraceToken(q, t);
    }
    queue_unit.queue.pop_front();
    TraceQueue(queue_unit, t);
    StallCycles& mc = stats_.unit(u.id);
    mc.wait_queue += queue_unit.trailing_wait_queue;
    queue_unit.trailing_wait_queue = 0;
    u.state = Unit::State::kBusy;
    u.index = idx;
    u.start = t;
    u.beside = 0;
    changed_ = true;
    // A GEMM/ALU takes at least one cycle per iteration: one that cannot end
    // within the watchdog stops the run now, before its data work (which
    // for 2^40 iterations would take the host hours).
    if (in.op() == Opcode::kGemm || in.op() == Opcode::kAlu) {
      const int64_t at_least =
          timing::GemmIterations(in) + (in.op() == Opcode::kGemm ? cfg_.gemm_pipeline_depth : cfg_.alu_pipeline_depth);
      if (at_least > limit_ - t)
        return regs::FaultError(regs::ErrorCode::kWatchdog, -1,
                                "watchdog: the run passes {} cycles without finishing: instruction {} ({}) starts "
                                "in cycle {} and takes at least {} cycles",
                                limit_, idx, InstructionSpanName(in), t, at_least);
    }
    // The instruction's effects happen at its start (for an ALU: its iteration cycles).
    TSR_ASSIGN_OR_RETURN(const int64_t alu_cycles, src_.Start(in, idx));
    switch (in.op()) {
      case Opcode::kLoad:
      case Opcode::kStore: StartDma(u, in, t); break;
      case Opcode::kGemm: {
        const int64_t iters = timing::GemmIterations(in);
        u.end = t + timing::GemmCycles(cfg_, iters);
        u.busy_part = u.end - t;
        break;
      }
      case Opcode::kAlu:
        u.end = t + timing::AluCycles(cfg_, alu_cycles);
        u.busy_part = u.end - t;
        break;
      case Opcode::kFinish:
        u.end = t + timing::kFinishCycles;
        u.busy_part = timing::kFinishCycles;
        break;
    }
    return OkStatus();
  }

  void StartDma(Unit& u, const Instruction& in, int64_t t) {
    DmaBursts& d = u.dma;
    d = DmaBursts::Start(cfg_, in, t);
    u.busy_part = timing::DmaBusyCycles(cfg_, d.padding, 0);
    u.end = d.Done() ? timing::DmaEnd(t, d.ready_base, 0) : kNever;
  }

  Status Dispatch(int64_t t) {
    if (buffered_ == 0 || (cfg_.serial != 0 && !Idle())) return OkStatus();
    const int64_t idx = next_dispatch_;
    if (static_cast<int64_t>(stream_.size()) == idx) TSR_RETURN_IF_ERROR(DecodeNext(idx));
    Unit& u = units_[static_cast<int>(ModuleOf(stream_[idx]))];
    if (static_cast<int64_t>(u.queue.size()) >= cfg_.command_queue_depth) return OkStatus();
    u.queue.push_back({idx, t});
    TraceQueue(u, t);
    --buffered_;
    ++next_dispatch_;
    dispatched_now_ = true;
    changed_ = true;
    return OkStatus();
  }

  // No instruction queued, executing or pushing: when a serial core dispatches.
  bool Idle() const {
    for (const Unit* u : {&units_[0], &units_[1], &units_[2], &gemm_})
      if (u->state != Unit::State::kFree || !u->queue.empty()) return false;
    return true;
  }

  Status DecodeNext(int64_t idx) {
    Instruction in;
    TSR_RETURN_IF_ERROR(src_.Decode(idx, &in));
    stream_.push_back(in);
    finish_rule_.Add(in, idx);
    stats_.counters.insn_fetch_bytes += kInsnBytes;
    return OkStatus();
  }

  void Request(int64_t t) {
    if (!port_.CanAccept()) return;
    // Priority: fetch > compute > store > load.
    if (next_request_ < count_) {
      const int64_t n = timing::FetchBlockInsns(cfg_, addr_, next_request_, count_);
      if (cfg_.fetch_buffer - (in_flight_ + buffered_) >= n) {
        auto g = port_.Accept(addr_ + static_cast<uint64_t>(next_request_) * kInsnBytes, n * kInsnBytes, false, t);
        fetch_blocks_.emplace_back(g.completion, n);
        in_flight_ += n;
        next_request_ += n;
        changed_ = true;
        return;
      }
    }
    for (Module m : timing::kDmaPriority) {
      Unit& u = units_[static_cast<int>(m)];
      DmaBursts& d = u.dma;
      if (u.state != Unit::State::kBusy || !d.active || d.Done() || d.NextReady() > t) continue;
      const uint64_t a = d.NextAddr();
      const uint64_t bytes = port_.BurstBytes(a, d.row_bytes - d.offset);
      auto g = port_.Accept(a, bytes, d.write, t);
      u.busy_part += g.beats;
      d.Accepted(bytes, t, g.completion);
      if (d.Done()) u.end = timing::DmaEnd(u.start, d.ready_base, d.last_completion);
      changed_ = true;
      return;
    }
  }

  // ---- time advance and accounting ------------------------------------------
  int64_t NextTimer(int64_t t) const {
    int64_t next = port_.NextCompletion();
    for (const Unit* up : {&units_[0], &units_[1], &units_[2], &gemm_}) {
      const Unit& u = *up;
      if (u.state != Unit::State::kBusy) continue;
      if (u.end != kNever) next = std::min(next, u.end);
      if (u.dma.active && !u.dma.Done() && u.dma.NextReady() > t) next = std::min(next, u.dma.NextReady());
    }
    return next;
  }

  // Attributes cycles [t, t + dt) to each module's current category.
  void Account(int64_t t, int64_t dt) {
    if (dt <= 0) return;
    for (Unit& u : units_) {
      StallCycles& mc = stats_.unit(u.id);
      if (u.id == Module::kCompute) {
        // Busy while either pipe runs an instruction: a cycle both pipes'
        // instructions count is counted once (beside a LOAD: SplitDmaCycles).
        const bool alu = u.state == Unit::State::kBusy, gemm = gemm_.state == Unit::State::kBusy;
        if (alu && gemm) {
          if (stream_[u.index].op() == Opcode::kLoad)
            u.beside += dt;
          else
            mc.busy -= dt;
        }
        if (alu || gemm) continue;
        if (gemm_.state == Unit::State::kPushing) {
          mc.wait_token += dt;
          continue;
        }
      }
      if (u.state == Unit::State::kPushing)
        mc.wait_token += dt;
      else if (u.state == Unit::State::kFree) {
        if (!u.queue.empty() && u.queue.front().dispatched < t)
          mc.wait_token += dt;
        else
          u.trailing_wait_queue += dt;
      }
    }
    StallCycles& fetch = stats_.counters.unit(regs::Unit::kFetch);
    if (dispatched_now_)
      fetch.busy += dt;
    else if (buffered_ > 0)
      fetch.wait_queue += dt;
    else if (next_dispatch_ < count_)
      fetch.wait_memory += dt;
  }

  Status Finish(int64_t t) {
    stats_.counters.cycles = t;
    for (Unit& u : units_) u.trailing_wait_queue = 0;  // idle: after the unit's last instruction
    for (Unit* u : {&units_[0], &units_[1], &units_[2], &gemm_})
      if (u->state == Unit::State::kBusy) stats_.unit(u->id).busy += t - u->start;  // only with a missing token
    stats_.counters.dram_busy_cycles = port_.data_busy_cycles();
    stats_.counters.port_bursts = port_.bursts();
    stats_.port_slot_cycles = port_.slot_cycles();
    src_.Finished(&stats_);
    TSR_RETURN_IF_ERROR(finish_rule_.Check(cfg_, count_ - 1));
    for (const Unit* up : {&units_[0], &units_[1], &units_[2], &gemm_}) {
      const Unit& u = *up;
      if (u.state == Unit::State::kBusy || !u.queue.empty())
        return regs::FaultError(regs::ErrorCode::kTokenError, count_ - 1,
                                "FINISH (instruction {}) retired in cycle {} while the {} module still had work: {}: a "
                                "dependency token is missing before FINISH",
                                count_ - 1, t, ModuleName(u.id), UnitStates());
    }
    for (int q = 0; q < kNumTokenQueues; ++q)
      if (tokens_[q] != 0)
        return regs::FaultError(regs::ErrorCode::kTokenError, count_ - 1,
                                "unbalanced dependency tokens at FINISH: {} token(s) left unconsumed ({})", tokens_[q],
                                TokenCounts());
    return OkStatus();
  }

  // ---- diagnostics and tracing ----------------------------------------------
  std::string TokenCounts() const {
    std::string s;
    for (int q = 0; q < kNumTokenQueues; ++q)
      s += fmt::format("{}{} {}", q ? ", " : "", TokenQueueName(static_cast<TokenQueue>(q)), tokens_[q]);
    return s;
  }

  std::string Describe(int64_t idx) const { return fmt::format("#{} {}", idx, FormatInstruction(cfg_, stream_[idx])); }

  std::string UnitState(const Unit& u) const {
    switch (u.state) {
      case Unit::State::kBusy: return fmt::format("executing {} since cycle {}", Describe(u.index), u.start);
      case Unit::State::kPushing: return fmt::format("cannot push the tokens of {} (queue full)", Describe(u.index));
      case Unit::State::kFree: break;
    }
    if (u.queue.empty()) return "idle (command queue empty)";
    const Instruction& in = stream_[u.queue.front().index];
    const TokenOps ops = TokensOf(in);
    std::string why;
    for (int i = 0; i < ops.n_pops; ++i)
      if (tokens_[static_cast<int>(ops.pops[i])] == 0)
        why += fmt::format("; waits for a token on {} (empty)", TokenQueueName(ops.pops[i]));
    return fmt::format("next {}{}", Describe(u.queue.front().index), why);
  }

  std::string UnitStates() const {
    std::string s;
    for (const Unit& u : units_) s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", ModuleName(u.id), UnitState(u));
    if (gemm_.state != Unit::State::kFree) s += fmt::format("; compute GEMM pipe: {}", UnitState(gemm_));
    return s;
  }

  Status Deadlock(int64_t t) const {
    std::string msg = fmt::format("deadlock in cycle {}: no module can make progress", t);
    for (const Unit& u : units_) msg += fmt::format("\n  {:<8} {}", std::string(ModuleName(u.id)) + ":", UnitState(u));
    if (gemm_.state != Unit::State::kFree) msg += fmt::format("\n  compute GEMM pipe: {}", UnitState(gemm_));
    msg += fmt::format("\n  fetch:   {} of {} instructions dispatched", next_dispatch_, count_);
    if (buffered_ > 0)
      msg += cfg_.serial != 0 ? " (blocked: the serial core dispatches one instruction at a time, in stream order)"
                              : " (blocked: the next instruction's command queue is full)";
    msg += "\n  tokens:  " + TokenCounts();
    return regs::FaultError(regs::ErrorCode::kDeadlock, -1, "{}", msg);
  }

  void TraceQueue(const Unit& u, int64_t t) {
    if (opts_.trace)
      opts_.trace->Counter(fmt::format("{} command queue", ModuleName(u.id)), t, static_cast<int64_t>(u.queue.size()));
  }
  void TraceToken(int q, int64_t t) {
    if (opts_.trace)
      opts_.trace->Counter(fmt::format("tokens {}", TokenQueueName(static_cast<TokenQueue>(q))), t, tokens_[q]);
  }

  const HwConfig& cfg_;
  InstructionSource& src_;
  const EngineOptions& opts_;
  CycleStats& stats_;
  MemPort port_;
  uint64_t addr_;
  int64_t count_;
  int64_t limit_ = 0;                // the watchdog (cycles)
  std::vector<Instruction> stream_;  // decoded at dispatch, by index
  FinishRule finish_rule_;
  Unit units_[kUnits];
  Unit gemm_;  // the compute module's GEMM pipe (units_[kCompute] is its ALU pipe and queue)
  int64_t tokens_[kNumTokenQueues] = {};
  // fetch
  int64_t next_request_ = 0, next_dispatch_ = 0, in_flight_ = 0, buffered_ = 0;
  std::deque<std::pair<int64_t, int64_t>> fetch_blocks_;  // (completion cycle, instructions)
  bool changed_ = false, dispatched_now_ = false, finished_ = false;
};

}  // namespace

Status RunTimingEngine(const HwConfig& cfg, InstructionSource& src, uint64_t stream_addr, int64_t count,
                       const EngineOptions& opts, CycleStats* stats) {
  *stats = CycleStats();
  Engine engine(cfg, src, opts, stats, stream_addr, count);
  return engine.Run();
}

}  // namespace tessera
