// A minimal TLM-2.0 interconnect for virtual platforms: any number of
// initiators bind to `targets`, each downstream target is bound to one
// `initiators` socket with its address range; a transaction is forwarded,
// with its address made relative to the range, to the target whose range
// holds it entirely, else answered TLM_ADDRESS_ERROR_RESPONSE. Blocking and
// debug transport only (loosely-timed platforms); no DMI.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace tessera::systemc {

class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> targets;
  tlm_utils::multi_passthrough_initiator_socket<Router> initiators;

  explicit Router(sc_core::sc_module_name name);

  // Binds `socket` as the target of [base, base + bytes).
  template <typename Socket>
  void Map(Socket& socket, uint64_t base, uint64_t bytes) {
    initiators.bind(socket);
    ranges_.push_back({base, bytes});
  }

 private:
  struct Range {
    uint64_t base, bytes;
  };
  int Decode(tlm::tlm_generic_payload& gp) const;
  void BTransport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int TransportDbg(int id, tlm::tlm_generic_payload& gp);

  std::vector<Range> ranges_;
};

}  // namespace tessera::systemc
