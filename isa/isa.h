// Static ISA metadata generated from isa/isa.def: opcodes, memory types, ALU
// operations, the instruction field list and the uop field list. Nothing here
// depends on a hardware config; widths and positions live in IsaLayout
// (isa/config.h), encoding in isa/encoding.h.
#pragma once

#include <array>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

namespace tessera {

enum class Format : uint8_t { kMem, kGemm, kAlu, kFinish };
inline constexpr int kNumFormats = 4;
enum class Module : uint8_t { kLoad, kCompute, kStore };
inline constexpr int kNumModules = 3;

enum class Opcode : uint8_t {
#define TSR_OPCODE(id, value, ...) id = value,
#include "isa/isa.def"
};
enum class MemType : uint8_t {
#define TSR_MEM(id, value, ...) id = value,
#include "isa/isa.def"
};
enum class AluOp : uint8_t {
#define TSR_ALU_OP(id, value, ...) id = value,
#include "isa/isa.def"
};

// Operand form of an ALU operation.
enum class AluOperand : uint8_t { kImmOrVec, kVecAndImm };
// Cycles of a pass of the ALU lanes: 1, or alu.mul_cycles (isa.def's cycles column).
enum class AluCycles : uint8_t { kOne, kSlow };

enum class FieldId : uint8_t {
#define TSR_FIELD(id, ...) id,
#include "isa/isa.def"
  kCount
};
inline constexpr int kNumFields = static_cast<int>(FieldId::kCount);

enum class UopFieldId : uint8_t {
#define TSR_UOP_FIELD(id, ...) id,
#include "isa/isa.def"
  kCount
};
inline constexpr int kNumUopFields = static_cast<int>(UopFieldId::kCount);

// How a field's width is obtained: fixed, or a rule over the config
// (isa/isa.def lists the rules), optionally capped.
enum class WidthRule : uint8_t {
#define TSR_WIDTH_RULE(name, ...) k##name,
#include "isa/isa.def"
};
struct WidthRuleInfo {
  WidthRule rule;
  std::string_view formula;      // docs: how the width is computed
  std::string_view config_keys;  // the config keys it depends on
};
inline constexpr WidthRuleInfo kWidthRules[] = {
#define TSR_WIDTH_RULE(name, formula, keys) {WidthRule::k##name, formula, keys},
#include "isa/isa.def"
};
struct Width {
  WidthRule rule;
  int fixed = 0;  // the width of a kFixed field
  int cap = 0;    // > 0: at most this many bits
};

enum class FieldKind : uint8_t { kUnsigned, kSigned, kFlag, kEnum, kDramAddr };

inline constexpr uint8_t kFmtM = 1 << 0, kFmtG = 1 << 1, kFmtA = 1 << 2, kFmtF = 1 << 3;
inline constexpr uint8_t kFmtGA = kFmtG | kFmtA, kFmtAll = kFmtM | kFmtG | kFmtA | kFmtF;

struct FieldInfo {
  FieldId id;
  std::string_view name;  // assembly name
  Width width;
  uint8_t formats;  // kFmt* mask
  FieldKind kind;
  std::string_view summary;
  bool InFormat(Format f) const { return formats & (1u << static_cast<int>(f)); }
};
struct UopFieldInfo {
  UopFieldId id;
  std::string_view name;
  Width width;
  std::string_view summary;
};
struct OpcodeInfo {
  Opcode op;
  Format format;
  std::string_view name;
  std::string_view summary;
};
struct MemInfo {
  MemType mem;
  std::string_view name;
  bool loadable, storable;
  Module load_module;
  std::string_view summary;
};
struct AluOpInfo {
  AluOp op;
  std::string_view name;
  AluOperand operand;
  int64_t imm_max;  // kVecAndImm: the immediate lies in [0, imm_max]
  AluCycles cycles;
  std::string_view semantics;
};

namespace isa_detail {
inline constexpr Width W(int n) { return Width{WidthRule::kFixed, n, 0}; }
inline constexpr Width Cap(Width w, int cap) { return Width{w.rule, w.fixed, cap}; }
template <typename F>
constexpr Width WidthOf(F f) {
  return f();
}
#define TSR_WIDTH_RULE(name, ...) inline constexpr Width name{WidthRule::k##name, 0, 0};
#include "isa/isa.def"
}  // namespace isa_detail

inline constexpr std::array<FieldInfo, kNumFields> kFields = {{
#define TSR_FIELD(id, name, width, fmts, kind, summary) \
  {FieldId::id,                                         \
   name,                                                \
   isa_detail::WidthOf([] {                             \
     using namespace isa_detail;                        \
     return width;                                      \
   }),                                                  \
   fmts,                                                \
   FieldKind::kind,                                     \
   summary},
#include "isa/isa.def"
}};
inline constexpr std::array<UopFieldInfo, kNumUopFields> kUopFields = {{
#define TSR_UOP_FIELD(id, name, width, summary)   \
  {UopFieldId::id, name, isa_detail::WidthOf([] { \
     using namespace isa_detail;                  \
     return width;                                \
   }),                                            \
   summary},
#include "isa/isa.def"
}};
inline constexpr OpcodeInfo kOpcodes[] = {
#define TSR_OPCODE(id, value, fmt, name, summary) {Opcode::id, Format::fmt, name, summary},
#include "isa/isa.def"
};
inline constexpr MemInfo kMemTypes[] = {
#define TSR_MEM(id, value, name, ld, st, mod, summary) {MemType::id, name, ld, st, Module::mod, summary},
#include "isa/isa.def"
};
inline constexpr AluOpInfo kAluOps[] = {
#define TSR_ALU_OP(id, value, name, operand, imm_max, cycles, sem) \
  {AluOp::id, name, AluOperand::operand, imm_max, AluCycles::cycles, sem},
#include "isa/isa.def"
};

// Subfields of MULSHRC's immediate (isa.def TSR_ALU_IMM_FIELD rows).
enum class AluImmField : uint8_t {
#define TSR_ALU_IMM_FIELD(id, ...) id,
#include "isa/isa.def"
};
struct AluImmFieldInfo {
  AluImmField id;
  std::string_view name;
  int lsb, width;
  std::string_view summary;
};
inline constexpr AluImmFieldInfo kAluImmFields[] = {
#define TSR_ALU_IMM_FIELD(id, name, lsb, width, summary) {AluImmField::id, name, lsb, width, summary},
#include "isa/isa.def"
};
constexpr int64_t AluImmMax(AluImmField f) { return (int64_t{1} << kAluImmFields[static_cast<int>(f)].width) - 1; }
// The subfield's value in `imm`, and an immediate holding `v` (in range) there.
constexpr int64_t AluImmGet(AluImmField f, int64_t imm) {
  return (imm >> kAluImmFields[static_cast<int>(f)].lsb) & AluImmMax(f);
}
constexpr int64_t AluImmPut(AluImmField f, int64_t v) { return v << kAluImmFields[static_cast<int>(f)].lsb; }
// MULSHRC's imm_max covers exactly its subfields.
constexpr bool MulShrClipImmMaxMatchesFields() {
  int64_t all = 0;
  for (const AluImmFieldInfo& f : kAluImmFields) all |= AluImmPut(f.id, AluImmMax(f.id));
  for (const AluOpInfo& a : kAluOps)
    if (a.op == AluOp::kMulShrClip) return a.imm_max == all;
  return false;
}
static_assert(MulShrClipImmMaxMatchesFields(), "isa.def: MULSHRC's imm_max and its immediate's subfields disagree");
// The ALU rows are listed in value order from 0 (AluOpCycles indexes them).
constexpr bool AluOpsInValueOrder() {
  for (size_t i = 0; i < std::size(kAluOps); ++i)
    if (static_cast<size_t>(kAluOps[i].op) != i) return false;
  return true;
}
static_assert(AluOpsInValueOrder(), "isa.def: TSR_ALU_OP rows out of value order");
// A pass's cycle class of `op` (isa.def's cycles column).
constexpr AluCycles AluOpCycles(AluOp op) { return kAluOps[static_cast<size_t>(op)].cycles; }

// The ISA tables as values: what the layout and the fingerprint are computed
// from (a test changes a row and checks the fingerprint changes).
struct IsaTables {
  std::vector<FieldInfo> fields;
  std::vector<UopFieldInfo> uop_fields;
  std::vector<OpcodeInfo> opcodes;
  std::vector<MemInfo> mem_types;
  std::vector<AluOpInfo> alu_ops;
};
const IsaTables& DefaultIsaTables();  // isa/isa.def

// Lookups; nullptr / nullopt when the value or name is not in the table.
const OpcodeInfo* FindOpcode(int64_t value);
const OpcodeInfo* FindOpcode(std::string_view name);
const MemInfo* FindMemType(int64_t value);
const MemInfo* FindMemType(std::string_view name);
const AluOpInfo* FindAluOp(int64_t value);
const AluOpInfo* FindAluOp(std::string_view name);
const FieldInfo* FindField(std::string_view name);
const UopFieldInfo* FindUopField(std::string_view name);
const char* ModuleName(Module m);
const char* FormatName(Format f);

// A decoded instruction: every field of every format, as plain integers
// (signed fields sign-extended). Fields outside the opcode's format are 0.
struct Instruction {
#define TSR_FIELD(id, ...) int64_t id = 0;
#include "isa/isa.def"

  Opcode op() const { return static_cast<Opcode>(opcode); }
  MemType mem_type() const { return static_cast<MemType>(mem); }
  AluOp alu() const { return static_cast<AluOp>(alu_op); }
  int64_t& Field(FieldId f);
  int64_t Field(FieldId f) const;
  bool operator==(const Instruction& o) const;
  bool operator!=(const Instruction& o) const { return !(*this == o); }
};

struct Uop {
#define TSR_UOP_FIELD(id, ...) int64_t id = 0;
#include "isa/isa.def"
  int64_t& Field(UopFieldId f);
  int64_t Field(UopFieldId f) const;
  bool operator==(const Uop& o) const { return dst == o.dst && src == o.src && wgt == o.wgt; }
};

// Which format an opcode uses, and which module executes an instruction.
Format FormatOf(Opcode op);
Module ModuleOf(const Instruction& insn);
// acc and acc8: the LOADs into the accumulator (the compute module's ALU
// pipe), the only LOADs that may carry ovl.
inline bool IsAccumulatorMem(MemType m) { return m == MemType::kAcc || m == MemType::kAcc8; }

// The dependency-token queues (isa/isa.def): one producer, one consumer each.
enum class TokenQueue : uint8_t {
#define TSR_TOKEN_QUEUE(id, ...) id,
#include "isa/isa.def"
};
struct TokenQueueInfo {
  TokenQueue queue;
  Module from, to;
  std::string_view name;  // "load->compute"
};
inline constexpr TokenQueueInfo kTokenQueues[] = {
#define TSR_TOKEN_QUEUE(id, from, to, name) {TokenQueue::id, Module::from, Module::to, name},
#include "isa/isa.def"
};
inline constexpr int kNumTokenQueues = static_cast<int>(std::size(kTokenQueues));
// The queue from one module to another; nullopt when the two are not neighbours.
std::optional<TokenQueue> TokenQueueBetween(Module from, Module to);
const TokenQueueInfo& TokenQueueOf(TokenQueue q);
// The dependency flags: the producer pushes towards the consumer (push_next
// when the consumer comes after it in load, compute, store order, else
// push_prev) and the consumer pops from the producer.
FieldId PushFlagOf(TokenQueue q);
FieldId PopFlagOf(TokenQueue q);

// 128-bit instruction word; serialized little-endian (lo first).
struct Word128 {
  uint64_t lo = 0, hi = 0;
  uint64_t Get(int lsb, int width) const;
  void Set(int lsb, int width, uint64_t value);
  bool operator==(const Word128& o) const { return lo == o.lo && hi == o.hi; }
};
inline constexpr int kInsnBytes = 16;
inline constexpr int kInsnBits = 128;
inline constexpr int kUopBytes = 4;
inline constexpr int kUopBits = 32;
// Instructions per fetch request at most (docs/microarch.md, "Fetch"); a
// smaller fetch buffer (queues.fetch_buffer) caps it (HwConfig::fetch_block).
inline constexpr int64_t kFetchBlockInsns = 8;

}  // namespace tessera
