// A SystemC simulation context of one's own. Plain SystemC elaborates once
// per process; a library that opens and closes models (the `systemc`
// backend, tests) gives each its own context and makes it current around
// every call into it. Construct the modules after the context, destroy
// them before it.
#pragma once

#include <systemc>

namespace tessera::systemc {

class SimContext {
 public:
  SimContext() : context_(new sc_core::sc_simcontext) { Activate(); }
  ~SimContext() {
    Activate();
    delete context_;
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
  }
  SimContext(const SimContext&) = delete;
  SimContext& operator=(const SimContext&) = delete;

  void Activate() const {
    sc_core::sc_curr_simcontext = context_;
    sc_core::sc_default_global_context = context_;
  }

 private:
  sc_core::sc_simcontext* context_;
};

}  // namespace tessera::systemc
