// The accelerator as a TLM-2.0 IP block (docs/systemc.md). Sockets and ports:
//   regs  target socket: the 32-bit AXI4-Lite register window of
//         docs/device-protocol.md (offsets, reset values and access rules from
//         the generated table isa/regs.def);
//   mem   initiator socket: every DRAM access (instruction fetch blocks, LOAD
//         of every memory type, STORE), one transaction per burst split by
//         the contract's rules (4 KiB boundary, 256 beats; sim/timing.h);
//   irq   raised when a run ends (DONE or ERROR) while IRQ_ENABLE is set,
//         lowered by CTRL.CLEAR / the next START.
// Inside, one SC_THREAD runs the timing contract's engine (sim/timing_engine.h:
// fetch, the load/compute/store modules with their command queues, the four
// dependency-token queues, the memory port), with the shared functional core
// (sim/core.h) as the scratchpads, which the module owns and which persist
// across runs. Loosely timed with temporal decoupling: the thread runs ahead of
// SystemC time by at most `quantum` (tlm_quantumkeeper) and every transaction
// carries its local time offset. Against Memory (hw/systemc/memory.h) the run
// takes exactly `sim`'s cycles; a target that annotates more than the
// contract's unloaded burst time stalls the issuing module by the excess.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>

#include "isa/config.h"
#include "isa/regs.h"
#include "sim/core.h"
#include "sim/cycle_stats.h"

namespace tessera {
class TraceSink;
}

namespace tessera::systemc {

class Accelerator : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Accelerator> regs;
  tlm_utils::simple_initiator_socket<Accelerator> mem;
  sc_core::sc_out<bool> irq;

  // The initiator socket carries device address a as DRAM_BASE + a (a register).
  Accelerator(sc_core::sc_module_name name, const HwConfig& cfg,
              sc_core::sc_time quantum = sc_core::sc_time(1, sc_core::SC_US));
  SC_HAS_PROCESS(Accelerator);
  ~Accelerator() override;

  const HwConfig& config() const { return cfg_; }
  sc_core::sc_time clock_period() const { return period_; }
  // The last run: the engine's full message when it ended in ERROR (beyond
  // ERROR_CODE/ERROR_INSN), and its timing statistics.
  const std::string& error_detail() const { return detail_; }
  const CycleStats& stats() const { return stats_; }
  // Cycles the last run was stalled by a memory target slower than the contract.
  int64_t memory_stall_cycles() const { return extra_cycles_; }
  // Instruction spans and queue counters of every run on one timeline.
  void set_trace(TraceSink* trace) { trace_ = trace; }
  Core& core() { return core_; }

 private:
  class Source;

  void RegsTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int RegsDebug(tlm::tlm_generic_payload& gp);
  bool RegAccess(tlm::tlm_generic_payload& gp);
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);
  void Thread();
  void RunOnce();
  void UpdateIrq();
  void DriveIrq();

  const HwConfig cfg_;
  const sc_core::sc_time period_;
  tlm_utils::tlm_quantumkeeper qk_;
  Core core_;
  CycleStats stats_;
  TraceSink* trace_ = nullptr;
  int64_t elapsed_cycles_ = 0;  // cycles of all earlier runs (the trace's timeline)
  int64_t extra_cycles_ = 0;
  sc_core::sc_event start_event_, irq_event_;
  bool start_pending_ = false, abort_requested_ = false;

  // The register file (isa/regs.def), one word per offset.
  uint32_t& Reg(uint32_t offset) { return file_[offset / 4]; }
  uint64_t Reg64(uint32_t lo_offset) { return Reg(lo_offset) | uint64_t{Reg(lo_offset + 4)} << 32; }
  std::array<uint32_t, regs::kRegisterWindowBytes / 4> file_{};
  std::string detail_;
};

}  // namespace tessera::systemc
