// The accelerator's control interface generated from isa/regs.def: register
// offsets and their table, CTRL/STATUS bits, error codes, the units and cycle
// categories of the statistics, and the counter layout. The driver, every
// backend, the Verilog header and docs/registers.md use these; nothing else
// states an offset or a counter index.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera::regs {

inline constexpr uint32_t kIdMagic = 0x54535241;  // "TSRA"
inline constexpr uint32_t kProtocolVersion = 4;
inline constexpr uint32_t kNoInsn = 0xFFFFFFFFu;
// Reset values that come from the config rather than the table.
inline constexpr uint32_t kResetFingerprintLo = 0xF1F10000u, kResetFingerprintHi = 0xF1F10001u;

enum class Access : uint8_t { kR, kW, kRW };

// Register byte offsets: regs::kId, regs::kCtrl, ...
#define TSR_REG(id, offset, ...) inline constexpr uint32_t id = offset;
#include "isa/regs.def"

struct RegInfo {
  uint32_t offset;
  std::string_view name;
  Access access;
  uint32_t reset;  // kResetFingerprintLo/Hi: the config's fingerprint
  std::string_view summary;
};
inline constexpr RegInfo kRegs[] = {
#define TSR_REG(id, offset, name, access, reset, summary) {offset, name, Access::access, reset, summary},
#include "isa/regs.def"
};
// The reset value of a register for a config's fingerprint.
uint32_t ResetValue(const RegInfo& r, uint64_t fingerprint);
const RegInfo* FindReg(uint32_t offset);

// CTRL and STATUS bits: regs::kCtrlStart = 1 << 0, ...
#define TSR_BIT(reg, id, bit, ...) inline constexpr uint32_t id = 1u << (bit);
#include "isa/regs.def"
struct BitInfo {
  uint32_t reg;
  uint32_t bit;
  std::string_view name, summary;
};
inline constexpr BitInfo kBits[] = {
#define TSR_BIT(reg, id, bit, name, summary) {reg, bit, name, summary},
#include "isa/regs.def"
};

enum class ErrorCode : uint32_t {
#define TSR_ERROR(id, value, ...) id = value,
#include "isa/regs.def"
};
struct ErrorInfo {
  ErrorCode code;
  std::string_view name;
  StatusCode status;  // the Status code the driver returns
  std::string_view summary;
};
inline constexpr ErrorInfo kErrors[] = {
#define TSR_ERROR(id, value, name, status, summary) {ErrorCode::id, name, StatusCode::status, summary},
#include "isa/regs.def"
};
const char* ErrorCodeName(ErrorCode code);  // "memory fault"; "unknown" outside the table
StatusCode StatusCodeOf(ErrorCode code);    // kInternal outside the table

// Faults as data on a Status (isa/base/status.h): an engine returns
// FaultError(code, insn, "...") or attaches one with WithFault(MakeFault(...)).
inline Fault MakeFault(ErrorCode code, int64_t insn = -1) {
  return Fault{static_cast<uint32_t>(code), insn < 0 || insn >= kNoInsn ? kNoInsn : static_cast<uint32_t>(insn)};
}
template <typename... Args>
Status FaultError(ErrorCode code, int64_t insn, fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCodeOf(code), fmt::format(f, std::forward<Args>(args)...)).WithFault(MakeFault(code, insn));
}
// The fault's code; kInternal for an error without fault data (an engine bug), kNone for OK.
ErrorCode FaultCode(const Status& s);

// Units whose cycles are categorized, and the categories (docs/microarch.md, "Statistics").
enum class Unit : uint8_t {
#define TSR_UNIT(id, name) id,
#include "isa/regs.def"
};
inline constexpr std::string_view kUnitNames[] = {
#define TSR_UNIT(id, name) name,
#include "isa/regs.def"
};
inline constexpr int kNumUnits = static_cast<int>(std::size(kUnitNames));
inline constexpr std::string_view kStallNames[] = {
#define TSR_STALL(id, summary) #id,
#include "isa/regs.def"
};
inline constexpr std::string_view kStallSummaries[] = {
#define TSR_STALL(id, summary) summary,
#include "isa/regs.def"
};
inline constexpr int kNumStalls = static_cast<int>(std::size(kStallNames));
// The unit that executes a module's instructions.
inline constexpr Unit UnitOf(Module m) { return static_cast<Unit>(static_cast<int>(m) + 1); }

// Counters: 64-bit registers (lo word at the offset, hi at offset + 4) from
// kCounterBase, in table order; shaped counters take one register per opcode
// value, memory type value, or unit x category.
enum class CounterShape : uint8_t { kOne, kPerOpcode, kPerMemType, kPerUnitStall };
inline constexpr uint32_t kNumOpcodeValues = static_cast<uint32_t>(std::size(kOpcodes));
inline constexpr uint32_t kNumMemTypeValues = static_cast<uint32_t>(std::size(kMemTypes));
inline constexpr uint32_t ShapeSize(CounterShape s) {
  switch (s) {
    case CounterShape::kOne: return 1;
    case CounterShape::kPerOpcode: return kNumOpcodeValues;
    case CounterShape::kPerMemType: return kNumMemTypeValues;
    case CounterShape::kPerUnitStall: return kNumUnits * kNumStalls;
  }
  return 0;
}
enum class Counter : uint8_t {
#define TSR_COUNTER(id, ...) id,
#include "isa/regs.def"
};
struct CounterInfo {
  Counter counter;
  std::string_view name;
  CounterShape shape;
  bool timed;
  std::string_view built_with;  // "" or the config key without which it reads 0 (isa/counters.h CounterBuilt)
  std::string_view summary;
  constexpr uint32_t size() const { return ShapeSize(shape); }
};
inline constexpr CounterInfo kCounters[] = {
#define TSR_COUNTER(id, shape, timed, built_with, summary) \
  {Counter::id, #id, CounterShape::shape, timed, built_with, summary},
#include "isa/regs.def"
};
inline constexpr const CounterInfo& CounterInfoOf(Counter c) { return kCounters[static_cast<size_t>(c)]; }
// Index of a counter's first register among all counters.
inline constexpr uint32_t CounterIndex(Counter c) {
  uint32_t i = 0;
  for (const CounterInfo& info : kCounters) {
    if (info.counter == c) return i;
    i += info.size();
  }
  return i;
}
inline constexpr uint32_t kNumCounters = [] {
  uint32_t n = 0;
  for (const CounterInfo& info : kCounters) n += info.size();
  return n;
}();
inline constexpr uint32_t kCounterBase = 0x040;
inline constexpr uint32_t CounterOffset(uint32_t index) { return kCounterBase + 8 * index; }
inline constexpr uint32_t kRegisterWindowBytes = kCounterBase + 8 * kNumCounters;
inline constexpr uint32_t StallIndex(Unit u, int category) {
  return CounterIndex(Counter::stalls) + static_cast<uint32_t>(u) * kNumStalls + category;
}
// "stalls[compute].wait_token", "insns_by_opcode[GEMM]", "cycles": a counter register's name.
std::string CounterRegisterName(uint32_t index);

}  // namespace tessera::regs
