#include "hw/systemc/memory.h"

namespace tessera::systemc {

sc_core::sc_time ClockPeriod(const HwConfig& cfg) { return sc_core::sc_time(1e6 / cfg.clock_mhz, sc_core::SC_PS); }

Memory::Memory(sc_core::sc_module_name name, const HwConfig& cfg, int64_t latency_cycles)
    : sc_module(name),
      socket("socket"),
      port_(timing::Port::Of(cfg)),
      period_(ClockPeriod(cfg)),
      dram_(cfg.dram_size_bytes) {
  if (latency_cycles >= 0) port_.latency = latency_cycles;
  socket.register_b_transport(this, &Memory::BTransport);
  socket.register_transport_dbg(this, &Memory::TransportDbg);
}

bool Memory::Access(tlm::tlm_generic_payload& gp) {
  const uint64_t addr = gp.get_address();
  const uint64_t n = gp.get_data_length();
  if (gp.get_byte_enable_ptr() || gp.get_streaming_width() < n) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (!dram_.InBounds(addr, n)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (gp.is_read())
    dram_.ReadUnchecked(addr, gp.get_data_ptr(), n);
  else if (gp.is_write())
    dram_.WriteUnchecked(addr, gp.get_data_ptr(), n);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Memory::BTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!Access(gp)) return;
  const int64_t cycles = port_.latency + timing::Beats(port_, gp.get_address(), gp.get_data_length());
  delay += period_ * static_cast<double>(cycles);
}

unsigned int Memory::TransportDbg(tlm::tlm_generic_payload& gp) { return Access(gp) ? gp.get_data_length() : 0; }

}  // namespace tessera::systemc
