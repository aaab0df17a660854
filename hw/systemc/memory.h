// The memory side of the timing contract (docs/microarch.md, "The memory
// port") as a TLM-2.0 loosely-timed target: a sparse DRAM of the config's
// size behind a simple_target_socket. Each transaction is one burst; its
// annotated delay is the contract's unloaded burst time, latency + beats
// clock periods (beats of the config's bytes per cycle, from sim/timing.h).
// The queueing of bursts on the one data channel in acceptance order is the
// accelerator's port model (sim/mem_port.h), so attached to this target the
// accelerator's cycles are exactly `sim`'s. `latency_cycles` overrides the
// config's latency: a slower memory, whose extra delay the accelerator
// turns into stall cycles. Out-of-range accesses answer
// TLM_ADDRESS_ERROR_RESPONSE; debug transport reads and writes without time.
#pragma once

#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <systemc>
#include <tlm>

#include "isa/config.h"
#include "sim/dram.h"
#include "sim/timing.h"

namespace tessera::systemc {

// The clock period of a config (clock_mhz).
sc_core::sc_time ClockPeriod(const HwConfig& cfg);

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Memory(sc_core::sc_module_name name, const HwConfig& cfg, int64_t latency_cycles = -1);

  // The storage, for back-door loading (a host's DMA copies, test set-up).
  Dram& dram() { return dram_; }
  const Dram& dram() const { return dram_; }

 private:
  void BTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int TransportDbg(tlm::tlm_generic_payload& gp);
  bool Access(tlm::tlm_generic_payload& gp);

  timing::Port port_;
  sc_core::sc_time period_;
  Dram dram_;
};

}  // namespace tessera::systemc
