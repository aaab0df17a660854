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

// The contract's burst timing on SystemC ticks: latency and beats scaled by
// the clock period, the data channel in acceptance order.
void Memory::BTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (!Access(gp)) return;
  const uint64_t period = period_.value(), now = sc_core::sc_time_stamp().value();
  const uint64_t at = now + delay.value();
  timing::Port ticks = port_;
  ticks.latency = port_.latency * static_cast<int64_t>(period);
  const int64_t beats = timing::Beats(port_, gp.get_address(), gp.get_data_length()) * static_cast<int64_t>(period);
  const timing::BurstTiming b =
      timing::TimeBurst(ticks, gp.is_write(), static_cast<int64_t>(at), static_cast<int64_t>(data_free_), beats);
  data_free_ = static_cast<uint64_t>(b.data + beats);
  delay = sc_core::sc_time::from_value(static_cast<uint64_t>(b.completion) - now);
}

unsigned int Memory::TransportDbg(tlm::tlm_generic_payload& gp) { return Access(gp) ? gp.get_data_length() : 0; }

}  // namespace tessera::systemc
