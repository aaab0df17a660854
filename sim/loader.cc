#include "sim/loader.h"

#include "isa/config.h"
#include "sim/dram.h"

namespace tessera {

Status LoadProgram(const HwConfig& cfg, const Program& prog, Dram* dram) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, EncodeStream(cfg, prog.insns));
  TSR_RETURN_IF_ERROR(dram->Write(prog.text_addr, stream.data(), stream.size()).WithContext("instruction stream"));
  for (const Segment& s : prog.segments) {
    if (s.kind == Segment::Kind::kExpect) continue;
    TSR_RETURN_IF_ERROR(dram->Write(s.addr, s.bytes.data(), s.bytes.size()).WithContext("segment '" + s.name + "'"));
  }
  return OkStatus();
}

Status CheckExpectations(const Program& prog, const Dram& dram, int* checked_segments) {
  int checked = 0;
  std::string report;
  int64_t mismatches = 0;
  for (const Segment& s : prog.segments) {
    if (s.kind != Segment::Kind::kExpect) continue;
    ++checked;
    Segment actual = s;
    TSR_RETURN_IF_ERROR(
        dram.Read(s.addr, actual.bytes.data(), actual.bytes.size()).WithContext("expect '" + s.name + "'"));
    for (size_t i = 0; i < s.count(); ++i) {
      if (s.Element(i) == actual.Element(i)) continue;
      if (++mismatches <= 8)
        report += fmt::format("\n  {}[{}] at 0x{:x}: expected {}, got {}", s.name, i, s.addr + i * ElemBytes(s.type),
                              s.Element(i), actual.Element(i));
    }
  }
  if (checked_segments) *checked_segments = checked;
  if (mismatches)
    return FailedPreconditionError("{} element(s) differ from the expected DRAM contents:{}{}", mismatches, report,
                                   mismatches > 8 ? "\n  ..." : "");
  return OkStatus();
}

}  // namespace tessera
