// The memory side of the timing contract (docs/microarch.md, "The memory
// port") as a TLM-2.0 loosely-timed target: a sparse DRAM of the config's
// size behind a simple_target_socket. Each transaction is one burst,
// accepted at its time (SystemC time + the initiator's annotated delay); the
// target serves bursts on one data channel in acceptance order with the
// config's latency and bytes per cycle (sim/timing.h's TimeBurst) and
// annotates the burst's completion. The accelerator takes its completion
// cycles from that annotation, so attached to this target it runs exactly
// `sim`'s cycles. `latency_cycles` overrides the latency: a slower (or
// faster) memory. Out-of-range accesses answer TLM_ADDRESS_ERROR_RESPONSE;
// debug transport reads and writes without time.
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

  int64_t latency_cycles() const { return port_.latency; }
  // The storage, for back-door loading (a host's DMA copies, test set-up).
  Dram& dram() { return dram_; }
  const Dram& dram() const { return dram_; }

 private:
  void BTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int TransportDbg(tlm::tlm_generic_payload& gp);
  bool Access(tlm::tlm_generic_payload& gp);

  timing::Port port_;  // latency and bytes per cycle in cycles
  sc_core::sc_time period_;
  uint64_t data_free_ = 0;  // SystemC ticks from which the data channel is free
  Dram dram_;
};

}  // namespace tessera::systemc
