// Disassembler: prints a Program in the assembler's syntax so that it
// re-assembles to the same program object bytes.
#include <fmt/format.h>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/encoding.h"

namespace tessera {
namespace {

// Fields printed even when zero, because zero is a meaningful address.
bool AlwaysPrint(FieldId id) {
  return id == FieldId::mem || id == FieldId::alu_op || id == FieldId::sram || id == FieldId::dram ||
         id == FieldId::uop_bgn;
}

int ValuesPerLine(ElemType t) { return ElemBytes(t) == 1 ? 16 : 8; }

}  // namespace

std::string FormatInstruction(const HwConfig& cfg, const Instruction& in) {
  const OpcodeInfo* op = FindOpcode(in.opcode);
  TSR_CHECK(op != nullptr, "formatting an unvalidated instruction (opcode {})", in.opcode);
  std::string s(op->name), flags;
  for (const FieldInfo& fi : kFields) {
    if (!fi.InFormat(op->format) || fi.id == FieldId::opcode) continue;
    int64_t v = in.Field(fi.id);
    if (v == 0 && !AlwaysPrint(fi.id)) continue;
    switch (fi.kind) {
      case FieldKind::kFlag: flags += fmt::format(" {}", fi.name); break;  // flags go last
      case FieldKind::kEnum:
        if (fi.id == FieldId::mem)
          s += fmt::format(" mem={}", FindMemType(v)->name);
        else
          s += fmt::format(" op={}", FindAluOp(v)->name);
        break;
      case FieldKind::kDramAddr:
        s += fmt::format(" dram=0x{:x}", static_cast<uint64_t>(v) * cfg.ElementBytes(in.mem_type()));
        break;
      default: s += fmt::format(" {}={}", fi.name, v); break;
    }
  }
  s += flags;
  return s;
}

std::string Disassemble(const HwConfig& cfg, const Program& prog) {
  std::string out =
      fmt::format("# Tessera program for config '{}' (isa fingerprint 0x{:016x})\n", cfg.name, cfg.isa_fingerprint);
  out += fmt::format(".text 0x{:x}\n", prog.text_addr);
  for (const Segment& s : prog.segments) {
    out += "\n";
    switch (s.kind) {
      case Segment::Kind::kUops: out += fmt::format(".uops {} 0x{:x}\n", s.name, s.addr); break;
      case Segment::Kind::kData:
        out += fmt::format(".data {} 0x{:x} {}\n", s.name, s.addr, ElemTypeName(s.type));
        break;
      case Segment::Kind::kExpect:
        out += fmt::format(".expect {} 0x{:x} {}\n", s.name, s.addr, ElemTypeName(s.type));
        break;
    }
    if (s.kind == Segment::Kind::kUops) {
      for (size_t i = 0; i < s.count(); ++i) {
        Uop u = DecodeUop(cfg, static_cast<uint32_t>(s.Element(i)));
        out += fmt::format("  dst={} src={} wgt={}\n", u.dst, u.src, u.wgt);
      }
    } else {
      const size_t per = ValuesPerLine(s.type);
      for (size_t i = 0; i < s.count(); i += per) {
        out += " ";
        for (size_t k = i; k < std::min(s.count(), i + per); ++k)
          out += fmt::format(" {}{}", s.Element(k), k + 1 < std::min(s.count(), i + per) ? "," : "");
        out += "\n";
      }
    }
    out += ".end\n";
  }
  out += "\n";
  for (const Instruction& in : prog.insns) out += FormatInstruction(cfg, in) + "\n";
  return out;
}

}  // namespace tessera
