// The accelerator as a TLM-2.0 IP block (docs/systemc.md). Sockets and ports:
//   regs  target socket: the 32-bit AXI4-Lite register window of
//         docs/device-protocol.md (offsets, reset values and access rules from
//         the generated table isa/regs.def);
//   mem   initiator socket: every DRAM access (instruction fetch blocks, LOAD
//         of every memory type, STORE), one transaction per burst split by
//         the contract's rules (4 KiB boundary, 256 beats; sim/timing.h);
//   irq   raised when a run ends (DONE or ERROR) while IRQ_ENABLE is set,
//         lowered by CTRL.CLEAR / the next START.
// Inside, the hardware's structure (docs/systemc.md): fetch, load, compute,
// store and the memory port are sub-modules with their own processes
// (hw/systemc/modules.h), connected by three command queues (depth D_cmd)
// and the four dependency-token channels (depth D_tok); the module owns
// them and the scratchpads (the shared functional core, sim/core.h), which
// persist across runs. A clock thread runs each cycle's five phases
// (docs/microarch.md) as successive delta cycles, one event per phase, and
// skips the cycles in which nothing can change. Loosely timed with temporal
// decoupling: the clock runs ahead of SystemC time by at most `quantum`
// (tlm_quantumkeeper) and every transaction carries its cycle's local time.
// A burst completes when the memory target's annotated delay says; against
// Memory (hw/systemc/memory.h), which annotates the contract's memory side,
// a run takes exactly `sim`'s cycles.
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

#include "hw/systemc/modules.h"
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
  const CycleStats& stats() const { return run_.stats; }
  // Instruction spans and queue counters of every run on one timeline.
  void set_trace(TraceSink* trace) { trace_ = trace; }
  Core& core() { return core_; }

 private:
  void RegsTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int RegsDebug(tlm::tlm_generic_payload& gp);
  bool RegAccess(tlm::tlm_generic_payload& gp);
  uint32_t ReadRegister(uint32_t offset);
  void WriteRegister(uint32_t offset, uint32_t value);
  void Thread();
  void RunOnce();
  Status Clock(int64_t* end_cycle);
  void RunPhase(Phase p);
  Status EndOfRun(int64_t t);
  std::string States() const;
  void UpdateIrq();
  void DriveIrq();

  const HwConfig cfg_;
  const sc_core::sc_time period_;
  tlm_utils::tlm_quantumkeeper qk_;
  Core core_;
  RunState run_;
  TraceSink* trace_ = nullptr;
  int64_t elapsed_cycles_ = 0;  // cycles of all earlier runs (the trace's timeline)
  sc_core::sc_event start_event_, irq_event_;
  // The hardware: channels, then the modules they connect.
  std::array<sc_core::sc_event, 4> phase_;  // one per Phase
  sc_core::sc_event port_done_;
  std::array<std::unique_ptr<CommandQueue>, kNumModules> queues_;
  std::array<std::unique_ptr<TokenChannel>, kNumTokenQueues> tokens_;
  std::array<std::unique_ptr<ExecUnit>, kNumModules> units_;
  std::unique_ptr<Fetch> fetch_;
  std::unique_ptr<MemPort> port_;
  bool start_pending_ = false, abort_requested_ = false;

  // The register file (isa/regs.def), one word per offset.
  uint32_t& Reg(uint32_t offset) { return file_[offset / 4]; }
  uint64_t Reg64(uint32_t lo_offset) { return Reg(lo_offset) | uint64_t{Reg(lo_offset + 4)} << 32; }
  std::array<uint32_t, regs::kRegisterWindowBytes / 4> file_{};
  std::string detail_;
};

}  // namespace tessera::systemc
