#include "isa/isa.h"

#include "isa/base/check.h"

namespace tessera {
namespace {

using InsnMember = int64_t Instruction::*;
constexpr InsnMember kInsnMembers[] = {
#define TSR_FIELD(id, ...) &Instruction::id,
#include "isa/isa.def"
};
using UopMember = int64_t Uop::*;
constexpr UopMember kUopMembers[] = {
#define TSR_UOP_FIELD(id, ...) &Uop::id,
#include "isa/isa.def"
};

template <typename Table, typename Pred>
auto FindIn(const Table& table, Pred pred) -> decltype(&table[0]) {
  for (const auto& row : table)
    if (pred(row)) return &row;
  return nullptr;
}

}  // namespace

const IsaTables& DefaultIsaTables() {
  static const IsaTables* t = new IsaTables{{std::begin(kFields), std::end(kFields)},
                                            {std::begin(kUopFields), std::end(kUopFields)},
                                            {std::begin(kOpcodes), std::end(kOpcodes)},
                                            {std::begin(kMemTypes), std::end(kMemTypes)},
                                            {std::begin(kAluOps), std::end(kAluOps)}};
  return *t;
}

const OpcodeInfo* FindOpcode(int64_t value) {
  return FindIn(kOpcodes, [&](const OpcodeInfo& r) { return static_cast<int64_t>(r.op) == value; });
}
const OpcodeInfo* FindOpcode(std::string_view name) {
  return FindIn(kOpcodes, [&](const OpcodeInfo& r) { return r.name == name; });
}
const MemInfo* FindMemType(int64_t value) {
  return FindIn(kMemTypes, [&](const MemInfo& r) { return static_cast<int64_t>(r.mem) == value; });
}
const MemInfo* FindMemType(std::string_view name) {
  return FindIn(kMemTypes, [&](const MemInfo& r) { return r.name == name; });
}
const AluOpInfo* FindAluOp(int64_t value) {
  return FindIn(kAluOps, [&](const AluOpInfo& r) { return static_cast<int64_t>(r.op) == value; });
}
const AluOpInfo* FindAluOp(std::string_view name) {
  return FindIn(kAluOps, [&](const AluOpInfo& r) { return r.name == name; });
}
const FieldInfo* FindField(std::string_view name) {
  return FindIn(kFields, [&](const FieldInfo& r) { return r.name == name; });
}
const UopFieldInfo* FindUopField(std::string_view name) {
  return FindIn(kUopFields, [&](const UopFieldInfo& r) { return r.name == name; });
}

const char* ModuleName(Module m) {
  switch (m) {
    case Module::kLoad: return "load";
    case Module::kCompute: return "compute";
    case Module::kStore: return "store";
  }
  TSR_UNREACHABLE("bad module {}", static_cast<int>(m));
}

const char* FormatName(Format f) {
  switch (f) {
    case Format::kMem: return "MEM";
    case Format::kGemm: return "GEMM";
    case Format::kAlu: return "ALU";
    case Format::kFinish: return "FINISH";
  }
  TSR_UNREACHABLE("bad format {}", static_cast<int>(f));
}

int64_t& Instruction::Field(FieldId f) { return this->*kInsnMembers[static_cast<int>(f)]; }
int64_t Instruction::Field(FieldId f) const { return this->*kInsnMembers[static_cast<int>(f)]; }
bool Instruction::operator==(const Instruction& o) const {
  for (auto m : kInsnMembers)
    if (this->*m != o.*m) return false;
  return true;
}
int64_t& Uop::Field(UopFieldId f) { return this->*kUopMembers[static_cast<int>(f)]; }
int64_t Uop::Field(UopFieldId f) const { return this->*kUopMembers[static_cast<int>(f)]; }

Format FormatOf(Opcode op) {
  const OpcodeInfo* info = FindOpcode(static_cast<int64_t>(op));
  TSR_CHECK(info != nullptr, "opcode {} not in the ISA table", static_cast<int>(op));
  return info->format;
}

Module ModuleOf(const Instruction& insn) {
  switch (insn.op()) {
    case Opcode::kLoad: {
      const MemInfo* m = FindMemType(insn.mem);
      TSR_CHECK(m != nullptr, "memory type {} not validated", insn.mem);
      return m->load_module;
    }
    case Opcode::kStore: return Module::kStore;
    case Opcode::kGemm:
    case Opcode::kAlu:
    case Opcode::kFinish: return Module::kCompute;
  }
  TSR_UNREACHABLE("opcode {} not validated", insn.opcode);
}

std::optional<TokenQueue> TokenQueueBetween(Module from, Module to) {
  for (const TokenQueueInfo& q : kTokenQueues)
    if (q.from == from && q.to == to) return q.queue;
  return std::nullopt;
}

const TokenQueueInfo& TokenQueueOf(TokenQueue q) {
  const auto i = static_cast<size_t>(q);
  TSR_CHECK(i < std::size(kTokenQueues), "bad token queue {}", i);
  return kTokenQueues[i];
}

FieldId PushFlagOf(TokenQueue q) {
  const TokenQueueInfo& t = TokenQueueOf(q);
  return t.to > t.from ? FieldId::push_next : FieldId::push_prev;
}

FieldId PopFlagOf(TokenQueue q) {
  const TokenQueueInfo& t = TokenQueueOf(q);
  return t.from < t.to ? FieldId::pop_prev : FieldId::pop_next;
}

uint64_t Word128::Get(int lsb, int width) const {
  TSR_CHECK(width >= 0 && width <= 64 && lsb >= 0 && lsb + width <= 128, "lsb {} width {}", lsb, width);
  if (width == 0) return 0;
  unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
  v >>= lsb;
  uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
  return static_cast<uint64_t>(v) & mask;
}

void Word128::Set(int lsb, int width, uint64_t value) {
  TSR_CHECK(width >= 0 && width <= 64 && lsb >= 0 && lsb + width <= 128, "lsb {} width {}", lsb, width);
  if (width == 0) return;
  uint64_t mask = width == 64 ? ~0ull : ((1ull << width) - 1);
  unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
  unsigned __int128 m = static_cast<unsigned __int128>(mask) << lsb;
  v = (v & ~m) | ((static_cast<unsigned __int128>(value & mask) << lsb) & m);
  lo = static_cast<uint64_t>(v);
  hi = static_cast<uint64_t>(v >> 64);
}

}  // namespace tessera
