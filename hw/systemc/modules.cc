#include "hw/systemc/modules.h"

#include <algorithm>

#include "isa/regs.h"
#include "sim/cycle_sim.h"
#include "sim/tokens.h"
#include "sim/trace.h"

namespace tessera::systemc {
namespace {

void TraceCount(const RunState& run, const std::string& name, int64_t value) {
  if (run.trace) run.trace->Counter(name, run.cycle, value);
}

}  // namespace

// ---- fetch -------------------------------------------------------------------

Fetch::Fetch(sc_core::sc_module_name name, RunState& run, std::array<CommandQueue*, kNumModules> queues,
             sc_core::sc_event& dispatch_phase)
    : sc_module(name), run_(run), queues_(queues) {
  SC_METHOD(Dispatch);
  sensitive << dispatch_phase;
  dont_initialize();
}

void Fetch::Reset() {
  blocks_.clear();
  arrived_ = 0;
  next_request_ = next_dispatch_ = in_flight_ = buffered_ = 0;
  decoded_ = false;
  accounted_ = 0;
  tail_ = &StallCycles::wait_memory;
}

bool Fetch::Wants(int64_t t) const {
  return buffered_ > 0 || (arrived_ < blocks_.size() && blocks_[arrived_].completion <= t);
}

void Fetch::Account(int64_t until) {
  if (tail_ && until > accounted_) run_.stats.counters.unit(regs::Unit::kFetch).*tail_ += until - accounted_;
  accounted_ = std::max(accounted_, until);
}

void Fetch::Finish(int64_t end) { Account(end); }

void Fetch::Dispatch() {
  const int64_t t = run_.cycle;
  Account(t);
  // Phase 1: blocks whose burst completed arrive, in stream order.
  while (arrived_ < blocks_.size() && blocks_[arrived_].completion <= t) {
    in_flight_ -= blocks_[arrived_].n;
    buffered_ += blocks_[arrived_].n;
    ++arrived_;
    run_.changed = true;
  }
  // Phase 4: the oldest fetched instruction enters its module's command queue.
  bool dispatched = false;
  if (buffered_ > 0 && (run_.cfg->serial == 0 || run_.unretired == 0)) {
    const Block& b = blocks_.front();
    if (!decoded_) {
      const int64_t idx = next_dispatch_;
      const uint64_t at = run_.stream_addr + static_cast<uint64_t>(idx) * kInsnBytes;
      auto in =
          DecodeStreamWord(*run_.cfg, &b.bytes[static_cast<size_t>(idx - b.first) * kInsnBytes], idx, at, run_.count);
      if (!in.ok()) return run_.Fail(0, in.status());
      head_ = *in;
      run_.finish_rule.Add(head_, idx);
      decoded_ = true;
      run_.stats.counters.insn_fetch_bytes += kInsnBytes;
    }
    CommandQueue& q = *queues_[static_cast<int>(ModuleOf(head_))];
    if (q.num_free() > 0) {
      q.write(Command{next_dispatch_, t, head_});
      TraceCount(run_, fmt::format("{} command queue", ModuleName(ModuleOf(head_))), q.size());
      --buffered_;
      ++next_dispatch_;
      ++run_.unretired;
      decoded_ = false;
      dispatched = run_.changed = true;
      if (next_dispatch_ == b.first + b.n) blocks_.pop_front(), --arrived_;
    }
  }
  // Cycle t's category, and that of the cycles until the next dispatch phase.
  int64_t StallCycles::*waiting = buffered_ > 0                 ? &StallCycles::wait_queue
                                  : next_dispatch_ < run_.count ? &StallCycles::wait_memory
                                                                : nullptr;
  tail_ = dispatched ? &StallCycles::busy : waiting;
  Account(t + 1);
  tail_ = waiting;
}

bool Fetch::Ready(int64_t) const {
  if (next_request_ >= run_.count) return false;
  const int64_t n = timing::FetchBlockInsns(*run_.cfg, run_.stream_addr, next_request_, run_.count);
  return run_.cfg->fetch_buffer - (in_flight_ + buffered_) >= n;
}

Burst Fetch::Next() {
  const int64_t n = timing::FetchBlockInsns(*run_.cfg, run_.stream_addr, next_request_, run_.count);
  Block& b = blocks_.emplace_back();
  b.first = next_request_;
  b.n = n;
  b.bytes.resize(static_cast<size_t>(n) * kInsnBytes);
  return Burst{false, run_.stream_addr + static_cast<uint64_t>(next_request_) * kInsnBytes, b.bytes.size(),
               b.bytes.data(), next_request_};
}

void Fetch::Accepted(const Burst&, int64_t, int64_t completion, int64_t) {
  blocks_.back().completion = completion;
  in_flight_ += blocks_.back().n;
  next_request_ += blocks_.back().n;
  run_.changed = true;
}

// ---- load, compute, store -------------------------------------------------------

ExecUnit::ExecUnit(sc_core::sc_module_name name, Module id, RunState& run, CommandQueue& queue,
                   std::array<TokenChannel*, kNumTokenQueues> tokens, sc_core::sc_event& complete_phase,
                   sc_core::sc_event& start_phase)
    : sc_module(name), id_(id), run_(run), queue_(queue), tokens_(tokens) {
  SC_METHOD(Step);
  sensitive << complete_phase << start_phase;
  dont_initialize();
}

void ExecUnit::Reset() {
  port_ = timing::Port::Of(*run_.cfg);
  alu_ = Slot();
  gemm_ = Slot();
  since_ = 0;
  accounted_ = 0;
  dma_ = DmaBursts();
}

timing::PipeHolds ExecUnit::Holds(const Slot& s) const {
  return timing::HoldsOf(s.state == State::kFree ? nullptr : &s.cur.in);
}

bool ExecUnit::Wants(Phase p, int64_t t) const {
  if (p == Phase::kComplete) {
    for (const Slot* s : {&alu_, &gemm_})
      if ((s->state == State::kBusy && s->end == t) || s->state == State::kPushing) return true;
    return false;
  }
  if (queue_.num_available() == 0) return false;
  if (!Compute()) return alu_.state == State::kFree;
  return timing::PipesAllow(*run_.cfg, queue_.peek().in, Holds(alu_), Holds(gemm_));
}

int64_t ExecUnit::NextTimer(int64_t t) const {
  int64_t next = gemm_.state == State::kBusy ? gemm_.end : kNever;
  if (alu_.state != State::kBusy) return next;
  next = std::min(next, alu_.end);
  if (dma_.active && !dma_.Done() && dma_.NextReady() > t) next = std::min(next, dma_.NextReady());
  return next;
}

void ExecUnit::AccountTo(int64_t t) {
  const int64_t dt = t - accounted_;
  if (dt <= 0) return;
  accounted_ = t;
  const bool alu = alu_.state == State::kBusy, gemm = gemm_.state == State::kBusy;
  if (alu && gemm) {  // both instructions count these cycles (beside a LOAD: SplitDmaCycles)
    if (alu_.cur.in.op() == Opcode::kLoad)
      alu_.beside += dt;
    else
      stalls().busy -= dt;
  } else if (!alu && !gemm && (alu_.state == State::kPushing || gemm_.state == State::kPushing))
    stalls().wait_token += dt;
}

void ExecUnit::Step() {
  const int64_t t = run_.cycle;
  if (Compute()) AccountTo(t);
  if (run_.phase == Phase::kComplete) {
    // The compute module's pipes oldest first: a younger push may wait for an older one.
    const bool gemm_first =
        gemm_.state != State::kFree && (alu_.state == State::kFree || gemm_.cur.index < alu_.cur.index);
    for (Slot* s : gemm_first ? std::array<Slot*, 2>{&gemm_, &alu_} : std::array<Slot*, 2>{&alu_, &gemm_}) {
      if (s->state == State::kBusy && s->end == t) Complete(*s, t);
      if (s->state == State::kPushing) TryPush(*s, t);
    }
  } else if (run_.phase == Phase::kStart) {
    TryStart(t);
  }
}

void ExecUnit::Complete(Slot& s, int64_t t) {
  const timing::DmaSplit split = timing::SplitDmaCycles(s.end - s.start, s.busy_part, s.beside);
  stalls().busy += split.busy;
  stalls().wait_memory += split.wait_memory;
  if (run_.trace)
    run_.trace->Span(1 + static_cast<int>(id_), InstructionSpanName(s.cur.in), s.start, s.end, s.cur.index);
  s.state = State::kPushing;
  if (!Compute()) since_ = t;  // compute: AccountTo counts the cycles spent pushing
  run_.changed = true;
}

void ExecUnit::TryPush(Slot& s, int64_t t) {
  const TokenOps ops = TokensOf(s.cur.in);
  if (Compute()) {  // per queue in stream order (sim/timing.h)
    const Slot& o = Other(s);
    if (o.state != State::kFree && o.cur.index < s.cur.index && timing::PushWaitsForOlder(s.cur.in, o.cur.in))
      return;  // retry next cycle
  }
  for (int i = 0; i < ops.n_pushes; ++i)
    if (tokens_[static_cast<int>(ops.pushes[i])]->num_free() == 0) return;  // retry next cycle
  for (int i = 0; i < ops.n_pushes; ++i) {
    TokenChannel& q = *tokens_[static_cast<int>(ops.pushes[i])];
    q.write(s.cur.index);
    TraceCount(run_, fmt::format("tokens {}", TokenQueueName(ops.pushes[i])), q.size());
  }
  if (!Compute()) stalls().wait_token += t - since_;
  s.state = State::kFree;
  --run_.unretired;
  if (Other(s).state == State::kFree) since_ = t;
  run_.changed = true;
  if (s.cur.in.op() == Opcode::kFinish) run_.finished = true;
}

void ExecUnit::TryStart(int64_t t) {
  if (queue_.num_available() == 0) return;
  const Command& head = queue_.peek();  // dispatched before this cycle (Fifo visibility)
  Slot* s = &alu_;
  if (Compute()) {
    if (!timing::PipesAllow(*run_.cfg, head.in, Holds(alu_), Holds(gemm_))) return;
    if (timing::PipeOf(head.in) == timing::Pipe::kGemm) s = &gemm_;
  } else if (alu_.state != State::kFree) {
    return;
  }
  const TokenOps ops = TokensOf(head.in);
  for (int i = 0; i < ops.n_pops; ++i)
    if (tokens_[static_cast<int>(ops.pops[i])]->num_available() == 0) return;
  for (int i = 0; i < ops.n_pops; ++i) {
    TokenChannel& q = *tokens_[static_cast<int>(ops.pops[i])];
    q.pop();
    TraceCount(run_, fmt::format("tokens {}", TokenQueueName(ops.pops[i])), q.size());
  }
  const bool was_free = alu_.state == State::kFree && gemm_.state == State::kFree;
  s->cur = head;
  queue_.pop();
  TraceCount(run_, fmt::format("{} command queue", ModuleName(id_)), queue_.size());
  if (was_free) {
    // Free cycles before the head was dispatched wait on the queue, the rest on tokens.
    const int64_t wait_queue = std::clamp<int64_t>(s->cur.dispatched + 1 - since_, 0, t - since_);
    stalls().wait_queue += wait_queue;
    stalls().wait_token += t - since_ - wait_queue;
  }
  s->state = State::kBusy;
  s->start = t;
  s->beside = 0;
  run_.changed = true;
  if (Status st = Begin(*s, t); !st.ok()) run_.Fail(static_cast<int>(id_), std::move(st));
}

// The instruction's effects happen at its start (docs/microarch.md); a DMA's
// bytes move as its bursts are granted.
Status ExecUnit::Begin(Slot& s, int64_t t) {
  const Instruction& in = s.cur.in;
  Core& core = *run_.core;
  const HwConfig& cfg = *run_.cfg;
  if (in.op() == Opcode::kGemm || in.op() == Opcode::kAlu) {
    // At least one cycle per iteration: one that cannot end within the
    // watchdog stops the run before its data work.
    const int64_t at_least =
        timing::GemmIterations(in) + (in.op() == Opcode::kGemm ? cfg.gemm_pipeline_depth : cfg.alu_pipeline_depth);
    if (at_least > run_.limit - t)
      return regs::FaultError(regs::ErrorCode::kWatchdog, -1,
                              "watchdog: the run passes {} cycles without finishing: instruction {} ({}) starts "
                              "in cycle {} and takes at least {} cycles",
                              run_.limit, s.cur.index, InstructionSpanName(in), t, at_least);
  }
  switch (in.op()) {
    case Opcode::kLoad:
    case Opcode::kStore:
      TSR_RETURN_IF_ERROR(in.op() == Opcode::kLoad ? core.BeginLoad(in, s.cur.index)
                                                   : core.BeginStore(in, s.cur.index));
      core.Count(in);
      dma_ = DmaBursts::Start(cfg, in, t);
      row_.resize(dma_.row_bytes);
      s.busy_part = timing::DmaBusyCycles(cfg, dma_.padding, 0);
      s.end = dma_.Done() ? timing::DmaEnd(t, dma_.ready_base, 0) : kNever;
      return OkStatus();
    case Opcode::kGemm:
      TSR_RETURN_IF_ERROR(core.Execute(in, s.cur.index));
      s.end = t + timing::GemmCycles(cfg, timing::GemmIterations(in));
      break;
    case Opcode::kAlu: {
      TSR_RETURN_IF_ERROR(core.Execute(in, s.cur.index));
      TSR_ASSIGN_OR_RETURN(const int64_t iteration_cycles, AluIterationCyclesOf(core, in, s.cur.index));
      s.end = t + timing::AluCycles(cfg, iteration_cycles);
      break;
    }
    case Opcode::kFinish:
      TSR_RETURN_IF_ERROR(core.Execute(in, s.cur.index));
      s.end = t + timing::kFinishCycles;
      break;
  }
  if (&s == &alu_) dma_ = DmaBursts();  // (a compute DMA runs on the ALU pipe)
  s.busy_part = s.end - t;
  return OkStatus();
}

void ExecUnit::Finish(int64_t end) {
  if (Compute()) AccountTo(end);
  for (const Slot* s : {&alu_, &gemm_})
    if (s->state == State::kBusy) stalls().busy += end - s->start;  // only with a missing token
  if (!Compute() && alu_.state == State::kPushing) stalls().wait_token += end - since_;
  if (alu_.state == State::kFree && gemm_.state == State::kFree && queue_.num_available() > 0)
    stalls().wait_token += std::max<int64_t>(0, end - std::max(since_, queue_.peek().dispatched + 1));
  // (the cycles waiting on an empty queue are idle)
}

std::string ExecUnit::Describe() const {
  std::string gemm;
  if (gemm_.state == State::kBusy)
    gemm = fmt::format("; GEMM pipe executing #{} since cycle {}", gemm_.cur.index, gemm_.start);
  if (gemm_.state == State::kPushing) gemm = fmt::format("; GEMM pipe cannot push the tokens of #{}", gemm_.cur.index);
  switch (alu_.state) {
    case State::kBusy: return fmt::format("executing #{} since cycle {}{}", alu_.cur.index, alu_.start, gemm);
    case State::kPushing: return fmt::format("cannot push the tokens of #{} (queue full){}", alu_.cur.index, gemm);
    case State::kFree: break;
  }
  if (!gemm.empty()) return gemm.substr(2);
  if (queue_.num_available() == 0) return "idle (command queue empty)";
  const TokenOps ops = TokensOf(queue_.peek().in);
  std::string why;
  for (int i = 0; i < ops.n_pops; ++i)
    if (tokens_[static_cast<int>(ops.pops[i])]->num_available() == 0)
      why += fmt::format("; waits for a token on {} (empty)", TokenQueueName(ops.pops[i]));
  return fmt::format("next #{}{}", queue_.peek().index, why);
}

bool ExecUnit::Ready(int64_t t) const {
  return alu_.state == State::kBusy && dma_.active && !dma_.Done() && dma_.NextReady() <= t;
}

Burst ExecUnit::Next() {
  const uint64_t bytes = dma_.NextBytes(port_);
  if (dma_.write && dma_.offset == 0) run_.core->StoreRow(alu_.cur.in, dma_.row, row_.data());
  return Burst{dma_.write, dma_.NextAddr(), bytes, row_.data() + dma_.offset, alu_.cur.index};
}

void ExecUnit::Accepted(const Burst& b, int64_t t, int64_t completion, int64_t beats) {
  alu_.busy_part += beats;
  if (!dma_.write && dma_.offset + b.bytes == dma_.row_bytes) run_.core->LoadRow(alu_.cur.in, dma_.row, row_.data());
  dma_.Accepted(b.bytes, t, completion);
  if (dma_.Done()) alu_.end = timing::DmaEnd(alu_.start, dma_.ready_base, dma_.last_completion);
  run_.changed = true;
}

// ---- the memory port ------------------------------------------------------------

MemPort::MemPort(sc_core::sc_module_name name, RunState& run, tlm::tlm_initiator_socket<>& socket,
                 std::array<Requester*, 4> requesters, sc_core::sc_event& request_phase, sc_core::sc_event& done)
    : sc_module(name), run_(run), socket_(socket), requesters_(requesters), request_phase_(request_phase), done_(done) {
  SC_THREAD(Thread);
  set_stack_size(1 << 20);  // b_transport runs the target's code on this stack
}

void MemPort::Reset() {
  port_ = timing::Port::Of(*run_.cfg);
  completions_.clear();
  beats_ = bursts_ = slot_cycles_ = 0;
}

int MemPort::Outstanding(int64_t t) const {
  return static_cast<int>(std::count_if(completions_.begin(), completions_.end(), [t](int64_t c) { return c > t; }));
}

bool MemPort::Wants(int64_t t) const {
  if (Outstanding(t) >= port_.max_outstanding) return false;
  for (const Requester* r : requesters_)
    if (r->Ready(t)) return true;
  return false;
}

int64_t MemPort::NextCompletion(int64_t t) const {
  int64_t next = kNever;
  for (int64_t c : completions_)
    if (c > t) next = std::min(next, c);
  return next;
}

void MemPort::Finish() {
  run_.stats.counters.dram_busy_cycles = beats_;
  run_.stats.counters.port_bursts = bursts_;
  run_.stats.port_slot_cycles = slot_cycles_;
}

void MemPort::Thread() {
  for (;;) {
    sc_core::wait(request_phase_);
    Grant(run_.cycle);
    done_.notify();
  }
}

// Phase 5: retire what completed (phase 1), then grant one request in
// priority order and perform it as a b_transport at the cycle's local time.
// The burst completes when the target's annotated delay says, rounded up to
// a cycle boundary and at least one cycle after acceptance.
void MemPort::Grant(int64_t t) {
  completions_.erase(std::remove_if(completions_.begin(), completions_.end(), [t](int64_t c) { return c <= t; }),
                     completions_.end());
  if (static_cast<int64_t>(completions_.size()) >= port_.max_outstanding) return;
  for (Requester* r : requesters_) {
    if (!r->Ready(t)) continue;
    const Burst b = r->Next();
    tlm::tlm_generic_payload gp;
    gp.set_command(b.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(run_.dram_base + b.addr);
    gp.set_data_ptr(b.data);
    gp.set_data_length(static_cast<unsigned int>(b.bytes));
    gp.set_streaming_width(static_cast<unsigned int>(b.bytes));
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const sc_core::sc_time now = sc_core::sc_time_stamp(), at = run_.Time(t);
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    socket_->b_transport(gp, delay);
    if (gp.is_response_error())
      return run_.Fail(
          0, regs::FaultError(regs::ErrorCode::kMemoryFault, b.index,
                              "instruction {}: the memory target answered '{}' to a {}-byte {} at 0x{:x}", b.index,
                              gp.get_response_string(), b.bytes, b.write ? "write" : "read", run_.dram_base + b.addr));
    const uint64_t done = (sc_core::sc_time_stamp() + delay).value();
    const int64_t cycle = done > run_.t0 ? static_cast<int64_t>((done - run_.t0 + run_.period - 1) / run_.period) : 0;
    const int64_t completion = std::max<int64_t>(t + 1, cycle);
    const int64_t beats = timing::Beats(port_, b.addr, b.bytes);
    beats_ += beats;
    ++bursts_;
    slot_cycles_ += completion - t;
    completions_.push_back(completion);
    r->Accepted(b, t, completion, beats);
    run_.changed = true;
    return;
  }
}

}  // namespace tessera::systemc
