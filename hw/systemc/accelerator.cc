// The accelerator's run: the timing engine over instructions fetched through
// the initiator socket, their data moved by burst transactions and computed by
// the shared core. Time: the engine's cycle t of a run that began at SystemC
// time T0 is T0 + (t + stall) * period, where `stall` sums the cycles by which
// the memory target was slower than the contract; the thread syncs with the
// kernel when it runs a quantum ahead.
#include "hw/systemc/accelerator.h"

#include <cmath>
#include <cstring>

#include "hw/systemc/memory.h"
#include "isa/encoding.h"
#include "isa/regs.h"
#include "sim/cycle_sim.h"
#include "sim/timing.h"
#include "sim/timing_engine.h"
#include "sim/trace.h"

namespace tessera::systemc {

using sc_core::sc_time;

class Accelerator::Source final : public InstructionSource {
 public:
  Source(Accelerator& a, uint64_t addr, int64_t count, uint64_t base, sc_time start)
      : a_(a), port_(timing::Port::Of(a.cfg_)), addr_(addr), count_(count), base_(base), start_(start) {}

  Status AtCycle(int64_t t) override {
    cycle_ = t;
    if (a_.abort_requested_)
      return regs::FaultError(regs::ErrorCode::kAbortedByHost, -1, "aborted by the host (CTRL.ABORT) in cycle {}", t);
    Advance();
    return OkStatus();
  }

  Status Decode(int64_t index, Instruction* out) override {
    if (index >= block_end_) {
      const int64_t n = timing::FetchBlockInsns(addr_, index, count_);
      block_.resize(static_cast<size_t>(n) * kInsnBytes);
      TSR_RETURN_IF_ERROR(Bursts(tlm::TLM_READ_COMMAND, addr_ + static_cast<uint64_t>(index) * kInsnBytes,
                                 block_.data(), block_.size(), index, static_cast<int>(regs::Unit::kFetch)));
      block_begin_ = index;
      block_end_ = index + n;
    }
    TSR_ASSIGN_OR_RETURN(*out, DecodeStreamWord(a_.cfg_, &block_[(index - block_begin_) * kInsnBytes], index,
                                                addr_ + static_cast<uint64_t>(index) * kInsnBytes, count_));
    return OkStatus();
  }

  StatusOr<int64_t> Start(const Instruction& in, int64_t index) override {
    Core& core = a_.core_;
    switch (in.op()) {
      case Opcode::kLoad: TSR_RETURN_IF_ERROR(Load(in, index)); return int64_t{0};
      case Opcode::kStore: TSR_RETURN_IF_ERROR(Store(in, index)); return int64_t{0};
      case Opcode::kGemm:
      case Opcode::kFinish: TSR_RETURN_IF_ERROR(core.Execute(in, index)); return int64_t{0};
      case Opcode::kAlu: TSR_RETURN_IF_ERROR(core.Execute(in, index)); return AluIterationCyclesOf(core, in, index);
    }
    return int64_t{0};
  }

  void Finished(CycleStats* stats) override { stats->counters.Add(a_.core_.stats()); }

  // Stall cycles by unit (regs::Unit order: fetch, load, compute, store).
  const int64_t* stalls() const { return stall_; }
  int64_t total_stall() const {
    int64_t n = 0;
    for (int64_t s : stall_) n += s;
    return n;
  }
  int64_t cycle() const { return cycle_; }

  // Brings local time to the current cycle; syncs when a quantum ahead.
  void Advance() {
    sc_time model = Now();
    const sc_time now = sc_core::sc_time_stamp();
    if (now > model) {  // a target waited past the model's time: that is stall too
      stall_[unit_] += static_cast<int64_t>(std::ceil((now - model) / a_.period_));
      model = Now();
    }
    a_.qk_.set(model - now);
    if (a_.qk_.need_sync()) a_.qk_.sync();
  }

 private:
  sc_time Now() const { return start_ + a_.period_ * static_cast<double>(cycle_ + total_stall()); }

  Status Load(const Instruction& in, int64_t index) {
    Core& core = a_.core_;
    TSR_RETURN_IF_ERROR(core.BeginLoad(in, index));
    const uint64_t elem = static_cast<uint64_t>(a_.cfg_.ElementBytes(in.mem_type()));
    const uint64_t row_bytes = static_cast<uint64_t>(in.x_size) * elem;
    row_.resize(row_bytes);
    for (int64_t r = 0; row_bytes > 0 && r < in.y_size; ++r) {
      const uint64_t addr = (static_cast<uint64_t>(in.dram) + static_cast<uint64_t>(r) * in.x_stride) * elem;
      TSR_RETURN_IF_ERROR(Bursts(tlm::TLM_READ_COMMAND, addr, row_.data(), row_bytes, index, Unit(in)));
      core.LoadRow(in, r, row_.data());
    }
    core.Count(in);
    return OkStatus();
  }

  Status Store(const Instruction& in, int64_t index) {
    Core& core = a_.core_;
    TSR_RETURN_IF_ERROR(core.BeginStore(in, index));
    const uint64_t elem = static_cast<uint64_t>(a_.cfg_.ElementBytes(in.mem_type()));
    const uint64_t row_bytes = static_cast<uint64_t>(in.x_pad0 + in.x_size + in.x_pad1) * elem;
    row_.resize(row_bytes);
    for (int64_t r = 0; row_bytes > 0 && r < in.y_pad0 + in.y_size + in.y_pad1; ++r) {
      core.StoreRow(in, r, row_.data());
      const uint64_t addr = (static_cast<uint64_t>(in.dram) + static_cast<uint64_t>(r) * in.x_stride) * elem;
      TSR_RETURN_IF_ERROR(Bursts(tlm::TLM_WRITE_COMMAND, addr, row_.data(), row_bytes, index, Unit(in)));
    }
    core.Count(in);
    return OkStatus();
  }

  static int Unit(const Instruction& in) { return static_cast<int>(regs::UnitOf(ModuleOf(in))); }

  // One transaction per burst of the contract's splitting.
  Status Bursts(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint64_t n, int64_t index, int unit) {
    for (uint64_t off = 0; off < n;) {
      const uint64_t bytes = timing::BurstBytes(port_, addr + off, n - off);
      TSR_RETURN_IF_ERROR(Transport(cmd, addr + off, data + off, bytes, index, unit));
      off += bytes;
    }
    return OkStatus();
  }

  Status Transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint64_t n, int64_t index, int unit) {
    unit_ = unit;
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(base_ + addr);
    gp.set_data_ptr(data);
    gp.set_data_length(static_cast<unsigned int>(n));
    gp.set_streaming_width(static_cast<unsigned int>(n));
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    const sc_time issued = sc_core::sc_time_stamp() + a_.qk_.get_local_time();
    sc_time delay = a_.qk_.get_local_time();
    a_.mem->b_transport(gp, delay);
    if (gp.is_response_error())
      return regs::FaultError(regs::ErrorCode::kMemoryFault, index,
                              "instruction {}: the memory target answered '{}' to a {}-byte {} at 0x{:x}", index,
                              gp.get_response_string(), n, cmd == tlm::TLM_READ_COMMAND ? "read" : "write",
                              base_ + addr);
    // The contract's unloaded burst time; the excess the target annotated is stall.
    const sc_time done = sc_core::sc_time_stamp() + delay;
    const sc_time contract = a_.period_ * static_cast<double>(port_.latency + timing::Beats(port_, addr, n));
    if (done > issued + contract)
      stall_[unit] += static_cast<int64_t>(std::ceil((done - issued - contract) / a_.period_ - 1e-9));
    return OkStatus();
  }

  Accelerator& a_;
  timing::Port port_;
  uint64_t addr_;
  int64_t count_;
  uint64_t base_;
  sc_time start_;
  int64_t cycle_ = 0;
  int unit_ = 0;
  int64_t stall_[regs::kNumUnits] = {};
  int64_t block_begin_ = 0, block_end_ = 0;
  std::vector<uint8_t> block_, row_;
};

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
  for (const regs::RegInfo& r : regs::kRegs) Reg(r.offset) = regs::ResetValue(r, cfg_.isa_fingerprint);
  regs.register_b_transport(this, &Accelerator::RegsTransport);
  regs.register_transport_dbg(this, &Accelerator::RegsDebug);
  qk_.set_global_quantum(quantum);
  qk_.reset();
  SC_THREAD(Thread);
  set_stack_size(16 << 20);  // the engine and the core run on this thread
  SC_METHOD(DriveIrq);       // the one driver of irq, whoever changes its inputs
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
  stats_ = CycleStats();
  core_.stats() = DeviceCounters();
  Status status;
  const sc_time start = sc_core::sc_time_stamp() + qk_.get_local_time();
  int64_t end_cycle = 0;
  if (count == 0 || addr % kInsnBytes != 0 ||
      !(addr <= cfg_.dram_size_bytes && uint64_t{count} * kInsnBytes <= cfg_.dram_size_bytes - addr)) {
    status =
        regs::FaultError(regs::ErrorCode::kBadLaunch, -1,
                         "INSN_ADDR 0x{:x} / INSN_COUNT {} do not describe an aligned stream inside DRAM", addr, count);
  } else {
    Source src(*this, addr, count, Reg64(regs::kDramBaseLo), start);
    EngineOptions eo;
    eo.max_cycles = static_cast<int64_t>(Reg64(regs::kWatchdogLo));
    OffsetTrace shifted(trace_, elapsed_cycles_);
    if (trace_) eo.trace = &shifted;
    status = RunTimingEngine(cfg_, src, addr, count, eo, &stats_);
    // A slower memory than the contract's stalled the issuing units.
    extra_cycles_ = src.total_stall();
    for (int u = 0; u < regs::kNumUnits; ++u) stats_.counters.stalls[u].wait_memory += src.stalls()[u];
    stats_.counters.cycles += extra_cycles_;
    end_cycle = status.ok() ? stats_.counters.cycles : src.cycle() + extra_cycles_;
    elapsed_cycles_ += end_cycle;
  }
  // The run ends at its last cycle: catch up with it, then raise DONE or ERROR.
  const sc_time end = start + period_ * static_cast<double>(end_cycle);
  const sc_time now = sc_core::sc_time_stamp();
  qk_.set(end > now ? end - now : sc_core::SC_ZERO_TIME);
  qk_.sync();
  stats_.counters.ForEachRegister([&](uint32_t i, const int64_t& v) {
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

}  // namespace tessera::systemc
