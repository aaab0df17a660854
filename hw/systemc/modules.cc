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
  if (buffered_ > 0) {
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
  const int64_t n = timing::FetchBlockInsns(run_.stream_addr, next_request_, run_.count);
  return run_.cfg->fetch_buffer - (in_flight_ + buffered_) >= n;
}

Burst Fetch::Next() {
  const int64_t n = timing::FetchBlockInsns(run_.stream_addr, next_request_, run_.count);
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
  state_ = State::kFree;
  end_ = kNever;
  since_ = 0;
  dma_ = DmaBursts();
}

bool ExecUnit::Wants(Phase p, int64_t t) const {
  if (p == Phase::kComplete) return (state_ == State::kBusy && end_ == t) || state_ == State::kPushing;
  return state_ == State::kFree && queue_.num_available() > 0;
}

int64_t ExecUnit::NextTimer(int64_t t) const {
  if (state_ != State::kBusy) return kNever;
  int64_t next = end_;
  if (dma_.active && !dma_.Done() && dma_.NextReady() > t) next = std::min(next, dma_.NextReady());
  return next;
}

void ExecUnit::Step() {
  const int64_t t = run_.cycle;
  if (run_.phase == Phase::kComplete) {
    if (state_ == State::kBusy && end_ == t) Complete(t);
    if (state_ == State::kPushing) TryPush(t);
  } else if (run_.phase == Phase::kStart) {
    TryStart(t);
  }
}

void ExecUnit::Complete(int64_t t) {
  const int64_t len = end_ - start_, busy = std::min(len, busy_part_);
  stalls().busy += busy;
  stalls().wait_memory += len - busy;
  if (run_.trace) run_.trace->Span(1 + static_cast<int>(id_), InstructionSpanName(cur_.in), start_, end_, cur_.index);
  state_ = State::kPushing;
  since_ = t;
  run_.changed = true;
}

void ExecUnit::TryPush(int64_t t) {
  const TokenOps ops = TokensOf(cur_.in);
  for (int i = 0; i < ops.n_pushes; ++i)
    if (tokens_[static_cast<int>(ops.pushes[i])]->num_free() == 0) return;  // retry next cycle
  for (int i = 0; i < ops.n_pushes; ++i) {
    TokenChannel& q = *tokens_[static_cast<int>(ops.pushes[i])];
    q.write(cur_.index);
    TraceCount(run_, fmt::format("tokens {}", TokenQueueName(ops.pushes[i])), q.size());
  }
  stalls().wait_token += t - since_;
  state_ = State::kFree;
  since_ = t;
  run_.changed = true;
  if (cur_.in.op() == Opcode::kFinish) run_.finished = true;
}

void ExecUnit::TryStart(int64_t t) {
  if (state_ != State::kFree || queue_.num_available() == 0) return;
  const Command& head = queue_.peek();  // dispatched before this cycle (Fifo visibility)
  const TokenOps ops = TokensOf(head.in);
  for (int i = 0; i < ops.n_pops; ++i)
    if (tokens_[static_cast<int>(ops.pops[i])]->num_available() == 0) return;
  for (int i = 0; i < ops.n_pops; ++i) {
    TokenChannel& q = *tokens_[static_cast<int>(ops.pops[i])];
    q.pop();
    TraceCount(run_, fmt::format("tokens {}", TokenQueueName(ops.pops[i])), q.size());
  }
  cur_ = head;
  queue_.pop();
  TraceCount(run_, fmt::format("{} command queue", ModuleName(id_)), queue_.size());
  // Free cycles before the head was dispatched wait on the queue, the rest on tokens.
  const int64_t wait_queue = std::clamp<int64_t>(cur_.dispatched + 1 - since_, 0, t - since_);
  stalls().wait_queue += wait_queue;
  stalls().wait_token += t - since_ - wait_queue;
  state_ = State::kBusy;
  start_ = t;
  run_.changed = true;
  if (Status s = Begin(t); !s.ok()) run_.Fail(static_cast<int>(id_), std::move(s));
}

// The instruction's effects happen at its start (docs/microarch.md); a DMA's
// bytes move as its bursts are granted.
Status ExecUnit::Begin(int64_t t) {
  const Instruction& in = cur_.in;
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
                              run_.limit, cur_.index, InstructionSpanName(in), t, at_least);
  }
  switch (in.op()) {
    case Opcode::kLoad:
    case Opcode::kStore:
      TSR_RETURN_IF_ERROR(in.op() == Opcode::kLoad ? core.BeginLoad(in, cur_.index) : core.BeginStore(in, cur_.index));
      core.Count(in);
      dma_ = DmaBursts::Start(cfg, in, t);
      row_.resize(dma_.row_bytes);
      busy_part_ = timing::DmaBusyCycles(cfg, dma_.padding, 0);
      end_ = dma_.Done() ? timing::DmaEnd(t, dma_.ready_base, 0) : kNever;
      return OkStatus();
    case Opcode::kGemm:
      TSR_RETURN_IF_ERROR(core.Execute(in, cur_.index));
      end_ = t + timing::GemmCycles(cfg, timing::GemmIterations(in));
      break;
    case Opcode::kAlu: {
      TSR_RETURN_IF_ERROR(core.Execute(in, cur_.index));
      TSR_ASSIGN_OR_RETURN(const int64_t iteration_cycles, AluIterationCyclesOf(core, in, cur_.index));
      end_ = t + timing::AluCycles(cfg, iteration_cycles);
      break;
    }
    case Opcode::kFinish:
      TSR_RETURN_IF_ERROR(core.Execute(in, cur_.index));
      end_ = t + timing::kFinishCycles;
      break;
  }
  dma_ = DmaBursts();
  busy_part_ = end_ - t;
  return OkStatus();
}

void ExecUnit::Finish(int64_t end) {
  switch (state_) {
    case State::kBusy: stalls().busy += end - start_; break;  // only with a missing token
    case State::kPushing: stalls().wait_token += end - since_; break;
    case State::kFree:
      if (queue_.num_available() > 0)
        stalls().wait_token += std::max<int64_t>(0, end - std::max(since_, queue_.peek().dispatched + 1));
      break;  // the cycles waiting on an empty queue are idle
  }
}

std::string ExecUnit::Describe() const {
  switch (state_) {
    case State::kBusy: return fmt::format("executing #{} since cycle {}", cur_.index, start_);
    case State::kPushing: return fmt::format("cannot push the tokens of #{} (queue full)", cur_.index);
    case State::kFree: break;
  }
  if (queue_.num_available() == 0) return "idle (command queue empty)";
  const TokenOps ops = TokensOf(queue_.peek().in);
  std::string why;
  for (int i = 0; i < ops.n_pops; ++i)
    if (tokens_[static_cast<int>(ops.pops[i])]->num_available() == 0)
      why += fmt::format("; waits for a token on {} (empty)", TokenQueueName(ops.pops[i]));
  return fmt::format("next #{}{}", queue_.peek().index, why);
}

bool ExecUnit::Ready(int64_t t) const {
  return state_ == State::kBusy && dma_.active && !dma_.Done() && dma_.NextReady() <= t;
}

Burst ExecUnit::Next() {
  const uint64_t bytes = dma_.NextBytes(port_);
  if (dma_.write && dma_.offset == 0) run_.core->StoreRow(cur_.in, dma_.row, row_.data());
  return Burst{dma_.write, dma_.NextAddr(), bytes, row_.data() + dma_.offset, cur_.index};
}

void ExecUnit::Accepted(const Burst& b, int64_t t, int64_t completion, int64_t beats) {
  busy_part_ += beats;
  if (!dma_.write && dma_.offset + b.bytes == dma_.row_bytes) run_.core->LoadRow(cur_.in, dma_.row, row_.data());
  dma_.Accepted(b.bytes, t, completion);
  if (dma_.Done()) end_ = timing::DmaEnd(start_, dma_.ready_base, dma_.last_completion);
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
