#include "sim/cycle_stats.h"

#include <nlohmann/json.hpp>

namespace tessera {

ModuleCycles& CycleStats::ForModule(Module m) {
  switch (m) {
    case Module::kLoad: return load;
    case Module::kCompute: return compute;
    case Module::kStore: return store;
  }
  return compute;
}

void CycleStats::AddToJson(nlohmann::json* j) const {
  exec.AddToJson(j);
  nlohmann::json& o = *j;
  o["cycles"] = cycles;
  o["gemm_utilization"] = gemm_utilization;
  o["gemm_macs"] = gemm_macs;
  o["dram_busy_cycles"] = dram_busy_cycles;
  o["dram_bandwidth_utilization"] = cycles ? static_cast<double>(dram_busy_cycles) / cycles : 0.0;
  auto mod = [](const ModuleCycles& m) {
    return nlohmann::json{{"busy", m.busy},
                          {"wait_token", m.wait_token},
                          {"wait_queue", m.wait_queue},
                          {"wait_memory", m.wait_memory},
                          {"idle", m.idle}};
  };
  o["fetch"] = mod(fetch);
  o["load"] = mod(load);
  o["compute"] = mod(compute);
  o["store"] = mod(store);
}

}  // namespace tessera
