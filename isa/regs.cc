#include "isa/regs.h"

#include <fmt/format.h>

namespace tessera::regs {

uint32_t ResetValue(const RegInfo& r, uint64_t fingerprint) {
  if (r.reset == kResetFingerprintLo) return static_cast<uint32_t>(fingerprint);
  if (r.reset == kResetFingerprintHi) return static_cast<uint32_t>(fingerprint >> 32);
  return r.reset;
}

const RegInfo* FindReg(uint32_t offset) {
  for (const RegInfo& r : kRegs)
    if (r.offset == offset) return &r;
  return nullptr;
}

const char* ErrorCodeName(ErrorCode code) {
  for (const ErrorInfo& e : kErrors)
    if (e.code == code) return e.name.data();
  return "unknown";
}

StatusCode StatusCodeOf(ErrorCode code) {
  for (const ErrorInfo& e : kErrors)
    if (e.code == code) return e.status;
  return StatusCode::kInternal;
}

ErrorCode FaultCode(const Status& s) {
  if (s.ok()) return ErrorCode::kNone;
  return s.fault() ? static_cast<ErrorCode>(s.fault()->code) : ErrorCode::kInternal;
}

std::string CounterRegisterName(uint32_t index) {
  uint32_t base = 0;
  for (const CounterInfo& c : kCounters) {
    if (index < base + c.size()) {
      const uint32_t k = index - base;
      switch (c.shape) {
        case CounterShape::kOne: return std::string(c.name);
        case CounterShape::kPerOpcode: return fmt::format("{}[{}]", c.name, kOpcodes[k].name);
        case CounterShape::kPerMemType: return fmt::format("{}[{}]", c.name, kMemTypes[k].name);
        case CounterShape::kPerUnitStall:
          return fmt::format("{}[{}].{}", c.name, kUnitNames[k / kNumStalls], kStallNames[k % kNumStalls]);
      }
    }
    base += c.size();
  }
  return fmt::format("counter {}", index);
}

}  // namespace tessera::regs
