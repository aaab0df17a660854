#include "sim/stats.h"

#include <nlohmann/json.hpp>

namespace tessera {

int64_t ExecStats::total_insns() const {
  int64_t n = 0;
  for (int64_t v : insns) n += v;
  return n;
}

int64_t ExecStats::total_dram_read_bytes() const {
  int64_t n = insn_fetch_bytes;
  for (int64_t v : dram_read_bytes) n += v;
  return n;
}

void ExecStats::Add(const ExecStats& o) {
  for (size_t i = 0; i < insns.size(); ++i) insns[i] += o.insns[i];
  for (size_t i = 0; i < dram_read_bytes.size(); ++i) dram_read_bytes[i] += o.dram_read_bytes[i];
  insn_fetch_bytes += o.insn_fetch_bytes;
  dram_write_bytes += o.dram_write_bytes;
  gemm_iterations += o.gemm_iterations;
  macs += o.macs;
  alu_iterations += o.alu_iterations;
  uop_loads += o.uop_loads;
}

void ExecStats::AddToJson(nlohmann::json* j) const {
  nlohmann::json& o = *j;
  nlohmann::json ins = nlohmann::json::object();
  for (const OpcodeInfo& op : kOpcodes) {
    std::string name(op.name);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ins[name] = insns[static_cast<int>(op.op)];
  }
  o["instructions"] = ins;
  o["dram_read_bytes"] = total_dram_read_bytes();
  nlohmann::json by_kind = {{"insn", insn_fetch_bytes}};
  for (const MemInfo& m : kMemTypes)
    if (m.loadable) by_kind[std::string(m.name)] = dram_read_bytes[static_cast<int>(m.mem)];
  o["dram_read_bytes_by_kind"] = by_kind;
  o["dram_write_bytes"] = dram_write_bytes;
  o["macs"] = macs;
  o["gemm_iterations"] = gemm_iterations;
  o["alu_iterations"] = alu_iterations;
  o["uop_loads"] = uop_loads;
}

}  // namespace tessera
