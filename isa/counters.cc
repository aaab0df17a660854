#include "isa/counters.h"

#include <cctype>
#include <iterator>
#include <nlohmann/json.hpp>

#include "isa/base/check.h"
#include "isa/config.h"

namespace tessera {
namespace {

using StallMember = int64_t StallCycles::*;
constexpr StallMember kStallMembers[] = {
#define TSR_STALL(id, summary) &StallCycles::id,
#include "isa/regs.def"
};

}  // namespace

int64_t& StallCycles::at(int category) { return this->*kStallMembers[category]; }
int64_t StallCycles::at(int category) const { return this->*kStallMembers[category]; }
int64_t StallCycles::total() const {
  int64_t n = 0;
  for (StallMember m : kStallMembers) n += this->*m;
  return n;
}

int64_t DeviceCounters::insns() const {
  int64_t n = 0;
  for (int64_t v : insns_by_opcode) n += v;
  return n;
}

int64_t DeviceCounters::dram_read_bytes() const {
  int64_t n = insn_fetch_bytes;
  for (int64_t v : load_bytes_by_mem) n += v;
  return n;
}

double DeviceCounters::GemmUtilization(const HwConfig& cfg) const {
  return cycles > 0 ? static_cast<double>(macs) / (static_cast<double>(cfg.macs_per_cycle) * cycles) : 0.0;
}

void DeviceCounters::Add(const DeviceCounters& o) {
  int64_t mine[regs::kNumCounters];
  o.ForEachRegister([&](uint32_t i, const int64_t& v) { mine[i] = v; });
  ForEachRegister([&](uint32_t i, int64_t& v) { v += mine[i]; });
}

bool DeviceCounters::operator==(const DeviceCounters& o) const {
  int64_t theirs[regs::kNumCounters];
  o.ForEachRegister([&](uint32_t i, const int64_t& v) { theirs[i] = v; });
  bool same = true;
  ForEachRegister([&](uint32_t i, const int64_t& v) { same &= v == theirs[i]; });
  return same;
}

DeviceCounters DeviceCounters::Untimed() const {
  DeviceCounters c = *this;
#define TSR_COUNTER(id, shape, timed, ...) \
  if (timed) c.id = {};
#include "isa/regs.def"
  return c;
}

DeviceCounters DeviceCounters::Wrapped(int bits) const {
  DeviceCounters c = *this;
  if (bits >= 64) return c;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  c.ForEachRegister([&](uint32_t, int64_t& v) { v = static_cast<int64_t>(static_cast<uint64_t>(v) & mask); });
  return c;
}

DeviceCounters DeviceCounters::InRegisters(const HwConfig& cfg) const {
  DeviceCounters c = Wrapped(cfg.counter_bits);
#define TSR_COUNTER(id, ...) \
  if (!CounterBuilt(cfg, regs::Counter::id)) c.id = {};
#include "isa/regs.def"
  return c;
}

bool CounterBuilt(const HwConfig& cfg, regs::Counter c) {
  const regs::CounterInfo& info = regs::CounterInfoOf(c);
  if (info.built_with.empty()) return true;
  const ParamInfo* p = FindParam(info.built_with);
  TSR_CHECK(p != nullptr, "isa/regs.def: counter {} is built with '{}', which isa/config.def does not have", info.name,
            info.built_with);
  return p->get(cfg) != 0;
}

bool CounterRegisterBuilt(const HwConfig& cfg, uint32_t index) {
  for (const regs::CounterInfo& info : regs::kCounters) {
    if (index < info.size()) return CounterBuilt(cfg, info.counter);
    index -= info.size();
  }
  return false;
}

std::string CounterNotBuiltReason(const HwConfig& cfg, regs::Counter c) {
  return CounterBuilt(cfg, c) ? "" : std::string(regs::CounterInfoOf(c).built_with) + " 0";
}

nlohmann::json CounterJson(const HwConfig& cfg, regs::Counter c, int64_t value) {
  return CounterBuilt(cfg, c) ? nlohmann::json(value) : nlohmann::json();
}

void CountersToJson(const DeviceCounters& c, const HwConfig& cfg, bool timed, nlohmann::json* out) {
  nlohmann::json& j = *out;
  using regs::Counter;
  nlohmann::json ins = nlohmann::json::object();
  for (const OpcodeInfo& op : kOpcodes) {
    std::string name(op.name);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    ins[name] = CounterJson(cfg, Counter::insns_by_opcode, c.insns_by_opcode[static_cast<size_t>(op.op)]);
  }
  j["instructions"] = ins;
  j["dram_read_bytes"] = CounterJson(cfg, Counter::load_bytes_by_mem, c.dram_read_bytes());
  nlohmann::json by_kind = {{"insn", CounterJson(cfg, Counter::insn_fetch_bytes, c.insn_fetch_bytes)}};
  for (const MemInfo& m : kMemTypes)
    if (m.loadable)
      by_kind[std::string(m.name)] =
          CounterJson(cfg, Counter::load_bytes_by_mem, c.load_bytes_by_mem[static_cast<size_t>(m.mem)]);
  j["dram_read_bytes_by_kind"] = by_kind;
  j["dram_write_bytes"] = CounterJson(cfg, Counter::dram_write_bytes, c.dram_write_bytes);
  j["macs"] = CounterJson(cfg, Counter::macs, c.macs);
  j["gemm_iterations"] = CounterJson(cfg, Counter::gemm_iterations, c.gemm_iterations);
  j["alu_iterations"] = CounterJson(cfg, Counter::alu_iterations, c.alu_iterations);
  j["uop_loads"] = CounterJson(cfg, Counter::uop_loads, c.uop_loads);
  if (!timed) return;
  j["cycles"] = c.cycles;
  j["gemm_utilization"] = CounterJson(cfg, Counter::macs, c.GemmUtilization(cfg));
  j["gemm_macs"] = CounterJson(cfg, Counter::macs, c.macs);
  j["dram_busy_cycles"] = c.dram_busy_cycles;
  j["dram_bandwidth_utilization"] = c.cycles ? static_cast<double>(c.dram_busy_cycles) / c.cycles : 0.0;
  j["port_bursts"] = c.port_bursts;
  for (int u = 0; u < regs::kNumUnits; ++u) {
    const auto unit = static_cast<regs::Unit>(u);
    nlohmann::json m = nlohmann::json::object();
    for (int k = 0; k < regs::kNumStalls; ++k)
      m[std::string(regs::kStallNames[k])] = CounterJson(cfg, Counter::stalls, c.unit(unit).at(k));
    m["idle"] = CounterJson(cfg, Counter::stalls, c.idle(unit));
    j[std::string(regs::kUnitNames[u])] = m;
  }
}

}  // namespace tessera
