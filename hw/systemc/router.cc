#include "hw/systemc/router.h"

namespace tessera::systemc {

Router::Router(sc_core::sc_module_name name) : sc_module(name), targets("targets"), initiators("initiators") {
  targets.register_b_transport(this, &Router::BTransport);
  targets.register_transport_dbg(this, &Router::TransportDbg);
}

int Router::Decode(tlm::tlm_generic_payload& gp) const {
  const uint64_t a = gp.get_address(), n = gp.get_data_length();
  for (size_t i = 0; i < ranges_.size(); ++i) {
    const Range& r = ranges_[i];
    if (a >= r.base && a - r.base <= r.bytes && n <= r.bytes - (a - r.base)) {
      gp.set_address(a - r.base);
      return static_cast<int>(i);
    }
  }
  gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  return -1;
}

void Router::BTransport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t a = gp.get_address();
  const int t = Decode(gp);
  if (t < 0) return;
  initiators[t]->b_transport(gp, delay);
  gp.set_address(a);
}

unsigned int Router::TransportDbg(int, tlm::tlm_generic_payload& gp) {
  const uint64_t a = gp.get_address();
  const int t = Decode(gp);
  if (t < 0) return 0;
  const unsigned int n = initiators[t]->transport_dbg(gp);
  gp.set_address(a);
  return n;
}

}  // namespace tessera::systemc
