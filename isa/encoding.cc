#include "isa/encoding.h"

#include "isa/config.h"

namespace tessera {
namespace {

Status CheckModuleFlags(const Instruction& in) {
  Module m = ModuleOf(in);
  if (m == Module::kLoad && (in.pop_prev || in.push_prev))
    return InvalidArgumentError(
        "{} runs on the load module, which has no previous stage: pop_prev/push_prev are illegal",
        FindOpcode(in.opcode)->name);
  if (m == Module::kStore && (in.pop_next || in.push_next))
    return InvalidArgumentError(
        "STORE runs on the store module, which has no next stage: pop_next/push_next are illegal");
  return OkStatus();
}

}  // namespace

bool FitsUnsigned(int64_t v, int width) {
  if (v < 0) return false;
  return width >= 63 || v < (int64_t{1} << width);
}
bool FitsSigned(int64_t v, int width) {
  if (width >= 64) return true;
  if (width == 0) return v == 0;
  const int64_t lim = int64_t{1} << (width - 1);
  return v >= -lim && v < lim;
}

Status ValidateInstruction(const HwConfig& cfg, const Instruction& in) {
  const OpcodeInfo* op = FindOpcode(in.opcode);
  if (op == nullptr) return InvalidArgumentError("unknown opcode {}", in.opcode);
  for (const FieldInfo& fi : kFields) {
    int64_t v = in.Field(fi.id);
    const FieldSlot& slot = cfg.layout.slot(op->format, fi.id);
    if (!slot.present()) {
      if (v != 0) return InvalidArgumentError("field '{}' is not part of {} (value {})", fi.name, op->name, v);
      continue;
    }
    bool fits = fi.kind == FieldKind::kSigned ? FitsSigned(v, slot.width) : FitsUnsigned(v, slot.width);
    if (!fits)
      return InvalidArgumentError("field '{}' = {} does not fit in {} {} bits", fi.name, v,
                                  fi.kind == FieldKind::kSigned ? "signed" : "unsigned", slot.width);
  }
  switch (op->format) {
    case Format::kMem: {
      const MemInfo* mem = FindMemType(in.mem);
      if (mem == nullptr) return InvalidArgumentError("unknown memory type {}", in.mem);
      if (in.op() == Opcode::kLoad && !mem->loadable)
        return InvalidArgumentError("LOAD cannot target memory type '{}'", mem->name);
      if (in.op() == Opcode::kStore && !mem->storable)
        return InvalidArgumentError("STORE cannot read memory type '{}' (only 'out')", mem->name);
      if (in.mem_type() == MemType::kUop && (in.y_pad0 || in.y_pad1 || in.x_pad0 || in.x_pad1 || in.pad_value))
        return InvalidArgumentError("uop loads cannot be padded");
      if (in.ovl && !(in.op() == Opcode::kLoad && IsAccumulatorMem(in.mem_type())))
        return InvalidArgumentError(
            "ovl on {} mem={}: only a LOAD of acc or acc8 (the compute module's ALU pipe) may overlap", op->name,
            mem->name);
      break;
    }
    case Format::kGemm:
    case Format::kAlu: {
      if (in.uop_bgn >= in.uop_end)
        return InvalidArgumentError("empty uop range: uop_bgn {} >= uop_end {}", in.uop_bgn, in.uop_end);
      if (in.uop_end > cfg.uop_entries)
        return InvalidArgumentError("uop_end {} is past the uop buffer ({} entries)", in.uop_end, cfg.uop_entries);
      if (op->format == Format::kAlu) {
        const AluOpInfo* a = FindAluOp(in.alu_op);
        if (a == nullptr) return InvalidArgumentError("unknown ALU operation {}", in.alu_op);
        if (a->operand == AluOperand::kVecAndImm) {
          if (in.use_imm)
            return InvalidArgumentError("ALU {} takes a vector operand and an immediate shift: use_imm is illegal",
                                        a->name);
          if (in.imm < 0 || in.imm > a->imm_max)
            return InvalidArgumentError("ALU {} imm = {} is outside [0, {}]", a->name, in.imm, a->imm_max);
        }
      }
      break;
    }
    case Format::kFinish: break;
  }
  return CheckModuleFlags(in);
}

StatusOr<Word128> Encode(const HwConfig& cfg, const Instruction& in) {
  TSR_RETURN_IF_ERROR(ValidateInstruction(cfg, in));
  Format f = FormatOf(in.op());
  Word128 w;
  for (const FieldInfo& fi : kFields) {
    const FieldSlot& slot = cfg.layout.slot(f, fi.id);
    if (slot.present()) w.Set(slot.lsb, slot.width, static_cast<uint64_t>(in.Field(fi.id)));
  }
  return w;
}

StatusOr<Instruction> Decode(const HwConfig& cfg, const Word128& w) {
  const FieldSlot& op_slot = cfg.layout.slot(Format::kMem, FieldId::opcode);
  int64_t opcode = static_cast<int64_t>(w.Get(op_slot.lsb, op_slot.width));
  const OpcodeInfo* op = FindOpcode(opcode);
  if (op == nullptr) return InvalidArgumentError("unknown opcode {}", opcode);
  int used = cfg.layout.bits_used[static_cast<int>(op->format)];
  if (used < kInsnBits) {
    Word128 rest = w;
    rest.Set(0, std::min(used, 64), 0);
    if (used > 64) rest.Set(64, used - 64, 0);
    if (rest.lo != 0 || rest.hi != 0)
      return InvalidArgumentError("{}: reserved bits [127:{}] are not zero", op->name, used);
  }
  Instruction in;
  for (const FieldInfo& fi : kFields) {
    const FieldSlot& slot = cfg.layout.slot(op->format, fi.id);
    if (!slot.present()) continue;
    uint64_t raw = w.Get(slot.lsb, slot.width);
    int64_t v = static_cast<int64_t>(raw);
    if (fi.kind == FieldKind::kSigned && slot.width > 0 && slot.width < 64 && (raw >> (slot.width - 1)) & 1)
      v = static_cast<int64_t>(raw | (~0ull << slot.width));
    in.Field(fi.id) = v;
  }
  TSR_RETURN_IF_ERROR(ValidateInstruction(cfg, in));
  return in;
}

StatusOr<uint32_t> EncodeUop(const HwConfig& cfg, const Uop& u) {
  Word128 w;
  for (const UopFieldInfo& fi : kUopFields) {
    const FieldSlot& slot = cfg.layout.uop_slot(fi.id);
    int64_t v = u.Field(fi.id);
    if (!FitsUnsigned(v, slot.width))
      return InvalidArgumentError("uop field '{}' = {} does not fit in {} bits", fi.name, v, slot.width);
    w.Set(slot.lsb, slot.width, static_cast<uint64_t>(v));
  }
  return static_cast<uint32_t>(w.lo);
}

Uop DecodeUop(const HwConfig& cfg, uint32_t word) {
  Word128 w;
  w.lo = word;
  Uop u;
  for (const UopFieldInfo& fi : kUopFields) {
    const FieldSlot& slot = cfg.layout.uop_slot(fi.id);
    u.Field(fi.id) = static_cast<int64_t>(w.Get(slot.lsb, slot.width));
  }
  return u;
}

void StoreWord(const Word128& w, uint8_t* out) {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<uint8_t>(w.lo >> (8 * i));
    out[8 + i] = static_cast<uint8_t>(w.hi >> (8 * i));
  }
}

Word128 LoadWord(const uint8_t* in) {
  Word128 w;
  for (int i = 0; i < 8; ++i) {
    w.lo |= static_cast<uint64_t>(in[i]) << (8 * i);
    w.hi |= static_cast<uint64_t>(in[8 + i]) << (8 * i);
  }
  return w;
}

}  // namespace tessera
