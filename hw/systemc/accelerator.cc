// The accelerator: its register window, and the clock that runs each cycle's
// phases through the modules (hw/systemc/modules.h). Time: cycle t of a run
// that began at SystemC time T0 is T0 + t * period; the clock keeps that as
// the quantum keeper's local offset and syncs when a quantum ahead.
#include "hw/systemc/accelerator.h"

#include <cstring>

#include "hw/systemc/memory.h"
#include "isa/regs.h"
#include "sim/timing.h"
#include "sim/tokens.h"
#include "sim/trace.h"

namespace tessera::systemc {

using sc_core::sc_time;

// libsystemc's own main() calls sc_main; programs with a main of their own
// (tessera, the tests) never reach it, but the symbol must resolve. A virtual
// platform's sc_main replaces this weak definition.
}  // namespace tessera::systemc

__attribute__((weak)) int sc_main(int, char**) { return 1; }

namespace tessera::systemc {

Accelerator::Accelerator(sc_core::sc_module_name name, const HwConfig& cfg, sc_time quantum)
    : sc_module(name),
      regs("regs"),
      mem("mem"),
      irq("irq"),
      cfg_(cfg),
      period_(ClockPeriod(cfg)),
      core_(cfg_, cfg.dram_size_bytes) {
  run_.cfg = &cfg_;
  run_.core = &core_;
  for (int m = 0; m < kNumModules; ++m)
    queues_[m] = std::make_unique<CommandQueue>((std::string(ModuleName(static_cast<Module>(m))) + "_commands").c_str(),
                                                cfg_.command_queue_depth);
  for (const TokenQueueInfo& q : kTokenQueues)
    tokens_[static_cast<int>(q.queue)] = std::make_unique<TokenChannel>(
        fmt::format("tokens_{}_to_{}", ModuleName(q.from), ModuleName(q.to)).c_str(), cfg_.token_queue_depth);
  for (int m = 0; m < kNumModules; ++m) {
    std::array<TokenChannel*, kNumTokenQueues> connected{};  // the channels it pushes to or pops from
    for (const TokenQueueInfo& q : kTokenQueues)
      if (static_cast<int>(q.from) == m || static_cast<int>(q.to) == m)
        connected[static_cast<int>(q.queue)] = tokens_[static_cast<int>(q.queue)].get();
    const Module id = static_cast<Module>(m);
    units_[m] =
        std::make_unique<ExecUnit>(ModuleName(id), id, run_, *queues_[m], connected,
                                   phase_[static_cast<int>(Phase::kComplete)], phase_[static_cast<int>(Phase::kStart)]);
  }
  fetch_ = std::make_unique<Fetch>(
      "fetch", run_, std::array<CommandQueue*, kNumModules>{queues_[0].get(), queues_[1].get(), queues_[2].get()},
      phase_[static_cast<int>(Phase::kDispatch)]);
  std::array<Requester*, 4> priority{fetch_.get()};  // fetch first, then the DMA order of sim/timing.h
  for (size_t i = 0; i < timing::kDmaPriority.size(); ++i)
    priority[i + 1] = units_[static_cast<int>(timing::kDmaPriority[i])].get();
  port_ = std::make_unique<MemPort>("port", run_, mem, priority, phase_[static_cast<int>(Phase::kRequest)], port_done_);
  for (const regs::RegInfo& r : regs::kRegs) Reg(r.offset) = regs::ResetValue(r, cfg_.isa_fingerprint);
  regs.register_b_transport(this, &Accelerator::RegsTransport);
  regs.register_transport_dbg(this, &Accelerator::RegsDebug);
  qk_.set_global_quantum(quantum);
  qk_.reset();
  SC_THREAD(Thread);  // the clock
  set_stack_size(1 << 20);
  SC_METHOD(DriveIrq);  // the one driver of irq, whoever changes its inputs
  sensitive << irq_event_;
}

Accelerator::~Accelerator() = default;

// ---- the register window ----------------------------------------------------

bool Accelerator::RegAccess(tlm::tlm_generic_payload& gp) {
  const uint64_t off = gp.get_address();
  if (gp.get_data_length() != 4 || gp.get_streaming_width() < 4 || gp.get_byte_enable_ptr() != nullptr) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (off % 4 != 0 || off >= regs::kRegisterWindowBytes) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  uint32_t v = 0;
  if (gp.is_read()) {
    v = ReadRegister(static_cast<uint32_t>(off));
    std::memcpy(gp.get_data_ptr(), &v, 4);
  } else if (gp.is_write()) {
    std::memcpy(&v, gp.get_data_ptr(), 4);
    WriteRegister(static_cast<uint32_t>(off), v);
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Accelerator::RegsTransport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  if (RegAccess(gp)) delay += period_;  // one AXI4-Lite beat
}

unsigned int Accelerator::RegsDebug(tlm::tlm_generic_payload& gp) { return RegAccess(gp) ? 4 : 0; }

uint32_t Accelerator::ReadRegister(uint32_t off) {
  if (off >= regs::kCounterBase) return Reg(off);
  const regs::RegInfo* r = regs::FindReg(off);
  return r == nullptr || r->access == regs::Access::kW ? 0 : Reg(off);
}

void Accelerator::WriteRegister(uint32_t off, uint32_t v) {
  const regs::RegInfo* r = regs::FindReg(off);
  if (r == nullptr || r->access == regs::Access::kR) return;  // read-only or unmapped: ignored
  if (off != regs::kCtrl) {
    Reg(off) = v;
    UpdateIrq();
    return;
  }
  const bool busy = Reg(regs::kStatus) & regs::kStatusBusy;
  if ((v & regs::kCtrlClear) && !busy) {
    Reg(regs::kStatus) = 0;
    Reg(regs::kErrorCode) = static_cast<uint32_t>(regs::ErrorCode::kNone);
    Reg(regs::kErrorInsn) = regs::kNoInsn;
    detail_.clear();
  }
  if ((v & regs::kCtrlAbort) && busy) abort_requested_ = true;
  if ((v & regs::kCtrlStart) && !busy) {  // START while BUSY is ignored
    for (uint32_t i = 0; i < regs::kNumCounters; ++i) Reg(regs::CounterOffset(i)) = Reg(regs::CounterOffset(i) + 4) = 0;
    Reg(regs::kStatus) = regs::kStatusBusy;
    Reg(regs::kErrorCode) = static_cast<uint32_t>(regs::ErrorCode::kNone);
    Reg(regs::kErrorInsn) = regs::kNoInsn;
    detail_.clear();
    abort_requested_ = false;
    start_pending_ = true;
    start_event_.notify(sc_core::SC_ZERO_TIME);
  }
  UpdateIrq();
}

void Accelerator::UpdateIrq() { irq_event_.notify(sc_core::SC_ZERO_TIME); }

void Accelerator::DriveIrq() {
  irq.write((Reg(regs::kIrqEnable) & 1) && (Reg(regs::kStatus) & (regs::kStatusDone | regs::kStatusError)));
}

// ---- runs -------------------------------------------------------------------

void Accelerator::Thread() {
  for (;;) {
    while (!start_pending_) sc_core::wait(start_event_);
    start_pending_ = false;
    RunOnce();
  }
}

void Accelerator::RunOnce() {
  const uint64_t addr = Reg64(regs::kInsnAddrLo);
  const uint32_t count = Reg(regs::kInsnCount);
  core_.stats() = DeviceCounters();
  run_.stats = CycleStats();
  run_.error = OkStatus();
  run_.error_rank = INT_MAX;
  const sc_time start = sc_core::sc_time_stamp() + qk_.get_local_time();
  Status status;
  int64_t end_cycle = 0;
  if (count == 0 || addr % kInsnBytes != 0 ||
      !(addr <= cfg_.dram_size_bytes && uint64_t{count} * kInsnBytes <= cfg_.dram_size_bytes - addr)) {
    status =
        regs::FaultError(regs::ErrorCode::kBadLaunch, -1,
                         "INSN_ADDR 0x{:x} / INSN_COUNT {} do not describe an aligned stream inside DRAM", addr, count);
  } else {
    run_.stream_addr = addr;
    run_.count = count;
    run_.dram_base = Reg64(regs::kDramBaseLo);
    const uint64_t watchdog = Reg64(regs::kWatchdogLo);
    run_.limit = watchdog > 0 ? static_cast<int64_t>(watchdog) : int64_t{1000000000000};
    run_.t0 = start.value();
    run_.period = period_.value();
    run_.finished = false;
    run_.unretired = 0;
    run_.finish_rule = FinishRule();
    OffsetTrace shifted(trace_, elapsed_cycles_);
    run_.trace = trace_ ? &shifted : nullptr;
    for (auto& q : queues_) q->clear();
    for (auto& q : tokens_) q->clear();
    for (auto& u : units_) u->Reset();
    fetch_->Reset();
    port_->Reset();
    status = Clock(&end_cycle);
    run_.trace = nullptr;
    elapsed_cycles_ += end_cycle;
  }
  // The run ends at its last cycle: catch up with it, then raise DONE or ERROR.
  const sc_time end = start + period_ * static_cast<double>(end_cycle);
  const sc_time now = sc_core::sc_time_stamp();
  qk_.set(end > now ? end - now : sc_core::SC_ZERO_TIME);
  qk_.sync();
  // The registers hold each count modulo 2^counters.bits (isa/config.def).
  run_.stats.counters.InRegisters(cfg_).ForEachRegister([&](uint32_t i, const int64_t& v) {
    Reg(regs::CounterOffset(i)) = static_cast<uint32_t>(v);
    Reg(regs::CounterOffset(i) + 4) = static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32);
  });
  if (status.ok()) {
    Reg(regs::kStatus) = regs::kStatusDone;
  } else {
    const Fault f = status.fault().value_or(Fault{static_cast<uint32_t>(regs::ErrorCode::kInternal), regs::kNoInsn});
    Reg(regs::kStatus) = regs::kStatusError;
    Reg(regs::kErrorCode) = f.code;
    Reg(regs::kErrorInsn) = f.insn;
    detail_ = status.message();
  }
  UpdateIrq();
}

// Phase p of the current cycle: the processes sensitive to its event run in
// this delta cycle; their channel writes are visible from the next one.
void Accelerator::RunPhase(Phase p) {
  run_.phase = p;
  phase_[static_cast<int>(p)].notify();
  if (p == Phase::kRequest)
    sc_core::wait(port_done_);  // the port may wait inside b_transport
  else
    sc_core::wait(sc_core::SC_ZERO_TIME);
}

// The clock: visits cycle 0, then the next cycle after one in which anything
// changed, else the earliest timer (an instruction's end, a burst's readiness
// or completion); between visited cycles nothing can change.
Status Accelerator::Clock(int64_t* end_cycle) {
  for (int64_t t = 0;;) {
    *end_cycle = t;
    run_.cycle = t;
    run_.changed = false;
    if (abort_requested_)
      return regs::FaultError(regs::ErrorCode::kAbortedByHost, -1, "aborted by the host (CTRL.ABORT) in cycle {}", t);
    // Temporal decoupling: local time is the cycle's; sync a quantum ahead.
    const sc_time model = run_.Time(t), now = sc_core::sc_time_stamp();
    qk_.set(model > now ? model - now : sc_core::SC_ZERO_TIME);
    if (qk_.need_sync()) qk_.sync();
    // Each phase runs only if a module has work in it.
    auto wanted = [&](Phase p) {
      for (auto& u : units_)
        if (u->Wants(p, t)) return true;
      return false;
    };
    if (wanted(Phase::kComplete)) RunPhase(Phase::kComplete);  // phase 2 (phase 1: in fetch and the port)
    if (run_.finished) return EndOfRun(t);
    if (wanted(Phase::kStart)) RunPhase(Phase::kStart);  // phase 3
    if (run_.failed()) return run_.error;
    if (fetch_->Wants(t)) RunPhase(Phase::kDispatch);  // phase 4
    if (run_.failed()) return run_.error;
    if (port_->Wants(t)) RunPhase(Phase::kRequest);  // phase 5
    if (run_.failed()) return run_.error;
    int64_t next = t + 1;
    if (!run_.changed) {
      next = port_->NextCompletion(t);
      for (auto& u : units_) next = std::min(next, u->NextTimer(t));
    }
    if (next == kNever)
      return regs::FaultError(regs::ErrorCode::kDeadlock, -1, "deadlock in cycle {}: no module can make progress\n{}",
                              t, States());
    if (next > run_.limit) {
      *end_cycle = run_.limit;
      return regs::FaultError(regs::ErrorCode::kWatchdog, -1,
                              "watchdog: the run passed {} cycles without finishing ({} of {} instructions "
                              "dispatched; {})",
                              run_.limit, fetch_->dispatched(), run_.count, States());
    }
    t = next;
  }
}

// FINISH retired in cycle t (phase 2): the statistics, then the end-of-run checks.
Status Accelerator::EndOfRun(int64_t t) {
  run_.stats.counters.cycles = t;
  for (auto& u : units_) u->Finish(t);
  fetch_->Finish(t);
  port_->Finish();
  run_.stats.counters.Add(core_.stats());
  const int64_t last = run_.count - 1;
  TSR_RETURN_IF_ERROR(run_.finish_rule.Check(cfg_, last));
  for (int m = 0; m < kNumModules; ++m)
    if (units_[m]->HasWork())
      return regs::FaultError(regs::ErrorCode::kTokenError, last,
                              "FINISH (instruction {}) retired in cycle {} while the {} module still had work: {}: a "
                              "dependency token is missing before FINISH",
                              last, t, ModuleName(static_cast<Module>(m)), States());
  std::string left;
  for (const TokenQueueInfo& q : kTokenQueues)
    if (int64_t n = tokens_[static_cast<int>(q.queue)]->size(); n != 0)
      left += fmt::format("{}{} {}", left.empty() ? "" : ", ", q.name, n);
  if (!left.empty())
    return regs::FaultError(regs::ErrorCode::kTokenError, last,
                            "unbalanced dependency tokens at FINISH: tokens left unconsumed ({})", left);
  return OkStatus();
}

std::string Accelerator::States() const {
  std::string s;
  for (int m = 0; m < kNumModules; ++m)
    s += fmt::format("{}{}: {}", m ? "; " : "", ModuleName(static_cast<Module>(m)), units_[m]->Describe());
  return s + fmt::format("; fetch: {} of {} instructions dispatched", fetch_->dispatched(), run_.count);
}

}  // namespace tessera::systemc
