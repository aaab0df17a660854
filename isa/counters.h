// DeviceCounters: the accelerator's counters as one struct, generated from
// isa/regs.def. Every engine fills it (ref and sim count the same functional
// events; engines with a clock add cycles and the per-unit categories), the
// register window carries it (ForEachRegister: the counter registers in
// order), and CountersToJson writes the --stats-json keys from it.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <type_traits>

#include "isa/regs.h"

namespace tessera {

struct HwConfig;

// Cycles of one unit in each category (isa/regs.def TSR_STALL rows).
struct StallCycles {
#define TSR_STALL(id, summary) int64_t id = 0;
#include "isa/regs.def"
  int64_t& at(int category);
  int64_t at(int category) const;
  int64_t total() const;  // every category (idle excluded)
};

namespace counters_detail {
template <regs::CounterShape>
struct Storage;
template <>
struct Storage<regs::CounterShape::kOne> {
  using type = int64_t;
};
template <>
struct Storage<regs::CounterShape::kPerOpcode> {
  using type = std::array<int64_t, regs::kNumOpcodeValues>;
};
template <>
struct Storage<regs::CounterShape::kPerMemType> {
  using type = std::array<int64_t, regs::kNumMemTypeValues>;
};
template <>
struct Storage<regs::CounterShape::kPerUnitStall> {
  using type = std::array<StallCycles, regs::kNumUnits>;
};
}  // namespace counters_detail

struct DeviceCounters {
#define TSR_COUNTER(id, shape, ...) counters_detail::Storage<regs::CounterShape::shape>::type id{};
#include "isa/regs.def"

  // Calls fn(register index, int64_t& value) for every counter register, in order.
  template <typename Fn>
  void ForEachRegister(Fn&& fn);
  template <typename Fn>
  void ForEachRegister(Fn&& fn) const;

  StallCycles& unit(regs::Unit u) { return stalls[static_cast<size_t>(u)]; }
  const StallCycles& unit(regs::Unit u) const { return stalls[static_cast<size_t>(u)]; }
  int64_t idle(regs::Unit u) const { return cycles - unit(u).total(); }
  int64_t insns() const;            // every opcode
  int64_t dram_read_bytes() const;  // instruction fetch and LOADs
  // MACs / (peak MACs per cycle x cycles); 0 without cycles.
  double GemmUtilization(const HwConfig& cfg) const;
  void Add(const DeviceCounters& o);
  // A copy with the timed counters (regs.def's `timed` column) zeroed: what
  // an engine without a clock reports for the same run.
  DeviceCounters Untimed() const;
  // What the counter registers hold: every counter modulo 2^bits
  // (isa/config.def counters.bits; 64 keeps the values).
  DeviceCounters Wrapped(int bits) const;
  // What a device of `cfg` latches into its counter registers: Wrapped at
  // counters.bits, the counters it does not build (CounterBuilt) zeroed.
  DeviceCounters InRegisters(const HwConfig& cfg) const;
  bool operator==(const DeviceCounters& o) const;
  bool operator!=(const DeviceCounters& o) const { return !(*this == o); }
};

// Whether a device of `cfg` builds counter `c` (regs.def's built_with
// column: without counters.volumes the counts whose increments are products
// of instruction fields, without counters.categories the per-unit cycle
// categories; small FPGAs cannot hold them). The others read 0 on every
// device and are shown as not built. CounterRegisterBuilt: the same for one
// register (the RTL header's TSR_COUNTER_BUILT).
bool CounterBuilt(const HwConfig& cfg, regs::Counter c);
bool CounterRegisterBuilt(const HwConfig& cfg, uint32_t index);
// "counters.volumes 0": why `c` is not built on `cfg`, for a user ("" when it is).
std::string CounterNotBuiltReason(const HwConfig& cfg, regs::Counter c);
// A counter's value in JSON output: null when the device does not build it (not a misleading 0).
nlohmann::json CounterJson(const HwConfig& cfg, regs::Counter c, int64_t value);

// Adds the --stats-json keys (docs/formats.md) to `j`: instructions{...},
// dram_read_bytes, dram_read_bytes_by_kind{insn, uop, ...}, dram_write_bytes,
// macs, gemm_iterations, alu_iterations, uop_loads; with `timed` also cycles,
// gemm_utilization, gemm_macs, dram_busy_cycles, dram_bandwidth_utilization,
// port_bursts
// and per unit {busy, wait_token, wait_queue, wait_memory, idle}; a value
// from a counter the device does not build (CounterBuilt) is null.
void CountersToJson(const DeviceCounters& c, const HwConfig& cfg, bool timed, nlohmann::json* j);

template <typename Fn>
void DeviceCounters::ForEachRegister(Fn&& fn) {
  uint32_t i = 0;
  auto one = [&](int64_t& v) { fn(i++, v); };
  auto each = [&](auto& arr) {
    for (auto& v : arr) one(v);
  };
  auto stall_each = [&](std::array<StallCycles, regs::kNumUnits>& units) {
    for (StallCycles& u : units)
      for (int k = 0; k < regs::kNumStalls; ++k) one(u.at(k));
  };
  auto visit = [&](auto& member) {
    using T = std::decay_t<decltype(member)>;
    if constexpr (std::is_same_v<T, int64_t>)
      one(member);
    else if constexpr (std::is_same_v<T, std::array<StallCycles, regs::kNumUnits>>)
      stall_each(member);
    else
      each(member);
  };
#define TSR_COUNTER(id, ...) visit(id);
#include "isa/regs.def"
}

template <typename Fn>
void DeviceCounters::ForEachRegister(Fn&& fn) const {
  const_cast<DeviceCounters*>(this)->ForEachRegister(
      [&](uint32_t i, int64_t& v) { fn(i, static_cast<const int64_t&>(v)); });
}

}  // namespace tessera
