#include "isa/fingerprint.h"

#include <fmt/format.h>

#include "isa/config.h"

namespace tessera {

std::string IsaFingerprintText(const HwConfig& cfg, const IsaTables& tables) {
  auto layout = ComputeIsaLayout(cfg, tables, "fingerprint");
  TSR_CHECK(layout.ok(), "fingerprint of a config whose layout does not fit: {}", layout.status().ToString());
  std::string s = fmt::format("tessera-isa;semantics={};insn={};uop={}", kIsaSemanticsVersion, kInsnBits, kUopBits);
  for (int f = 0; f < kNumFormats; ++f)
    for (const FieldInfo& fi : tables.fields) {
      const FieldSlot& sl = layout->slots[f][static_cast<int>(fi.id)];
      if (sl.present())
        s += fmt::format(";f{}.{}:{}@{}+{}", f, static_cast<int>(fi.id), static_cast<int>(fi.kind), sl.lsb, sl.width);
    }
  for (const UopFieldInfo& fi : tables.uop_fields) {
    const FieldSlot& sl = layout->uop_slots[static_cast<int>(fi.id)];
    s += fmt::format(";u.{}@{}+{}", static_cast<int>(fi.id), sl.lsb, sl.width);
  }
  for (const OpcodeInfo& o : tables.opcodes)
    s += fmt::format(";op{}:{}", static_cast<int>(o.op), static_cast<int>(o.format));
  for (const MemInfo& m : tables.mem_types)
    s += fmt::format(";mem{}:{}{}{}", static_cast<int>(m.mem), m.loadable, m.storable, static_cast<int>(m.load_module));
  for (const AluOpInfo& a : tables.alu_ops)
    s += fmt::format(";alu{}:{}:{}", static_cast<int>(a.op), static_cast<int>(a.operand), a.imm_max);
  for (const TokenQueueInfo& q : kTokenQueues)
    s += fmt::format(";tq{}:{}>{}", static_cast<int>(q.queue), static_cast<int>(q.from), static_cast<int>(q.to));
  for (const ParamInfo& p : kParams)
    if (p.effect == ParamEffect::kBehaviour) s += fmt::format(";{}={}", p.key, ParamValueText(p, cfg));
  return s;
}

uint64_t IsaFingerprint(const HwConfig& cfg, const IsaTables& tables) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  for (unsigned char ch : IsaFingerprintText(cfg, tables)) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace tessera
