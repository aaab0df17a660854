// The assembler's instructions (isa/assembler.h): a mnemonic and its named
// fields in pass 1; in pass 2 the fields evaluated, enum names resolved,
// dram= scaled to elements and the instruction validated against the config.
#include <cctype>

#include "isa/assembler.h"

namespace tessera::asm_internal {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string FieldList(Format f) {
  std::string s;
  for (const FieldInfo& fi : kFields)
    if (fi.InFormat(f) && fi.id != FieldId::opcode) s += (s.empty() ? "" : " ") + std::string(fi.name);
  return s;
}

}  // namespace

Status Assembler::Instr(TokenStream& ts, int lineno) {
  const Token& m = ts.Next();
  const OpcodeInfo* op = FindOpcode(Upper(m.text));
  if (op == nullptr)
    return ts.Error(m.col,
                    fmt::format("unknown mnemonic '{}'; expected LOAD STORE GEMM ALU FINISH or a directive", m.text));
  InsnStmt st{op, {}, ts.where(), lineno, m.col, locals_};
  while (!ts.AtEnd()) {
    int col = ts.Peek().col;
    TSR_ASSIGN_OR_RETURN(std::string name, ts.Ident("a field name"));
    const FieldInfo* fi = FindField(name);
    if (fi == nullptr || !fi->InFormat(op->format) || fi->id == FieldId::opcode)
      return ts.Error(
          col, fmt::format("unknown field '{}' for {}; expected one of: {}", name, op->name, FieldList(op->format)));
    for (const FieldAssign& f : st.fields)
      if (f.field == fi) return ts.Error(col, fmt::format("field '{}' given twice", name));
    FieldAssign fa{fi, nullptr, "", col};
    if (!ts.IsPunct("=")) {
      if (fi->kind != FieldKind::kFlag)
        return ts.Error(ts.Peek().col, fmt::format("expected '=' after field '{}'", name));
    } else {
      ts.Next();
      if (fi->kind == FieldKind::kEnum && ts.Peek().kind == Token::Kind::kIdent) {
        fa.enum_name = ts.Next().text;
      } else {
        TSR_ASSIGN_OR_RETURN(fa.expr, ts.ParseExpr());
      }
    }
    st.fields.push_back(std::move(fa));
    if (ts.IsPunct(",")) ts.Next();
  }
  insns_.push_back(std::move(st));
  return OkStatus();
}

StatusOr<Instruction> Assembler::BuildInsn(const InsnStmt& st) {
  Instruction in;
  in.opcode = static_cast<int64_t>(st.op->op);
  auto err = [&](int col, const std::string& msg) { return InvalidArgumentError("{}:{}: {}", st.where, col, msg); };
  const FieldAssign* dram = nullptr;
  for (const FieldAssign& fa : st.fields) {
    int64_t v = 1;  // bare flag
    if (!fa.enum_name.empty()) {
      if (fa.field->id == FieldId::mem) {
        const MemInfo* mi = FindMemType(fa.enum_name);
        if (!mi)
          return err(fa.col, fmt::format("unknown memory type '{}'; expected uop wgt inp acc out acc8", fa.enum_name));
        v = static_cast<int64_t>(mi->mem);
      } else if (fa.field->id == FieldId::alu_op) {
        const AluOpInfo* ai = FindAluOp(fa.enum_name);
        if (!ai) {
          std::string names;
          for (const AluOpInfo& a : kAluOps) names += (names.empty() ? "" : " ") + std::string(a.name);
          return err(fa.col, fmt::format("unknown ALU operation '{}'; expected {}", fa.enum_name, names));
        }
        v = static_cast<int64_t>(ai->op);
      } else {
        return err(fa.col, fmt::format("field '{}' takes a number", fa.field->name));
      }
    } else if (fa.expr) {
      TSR_ASSIGN_OR_RETURN(v, Eval(*fa.expr, syms_, st.locals, st.where));
    }
    if (fa.field->kind == FieldKind::kDramAddr) dram = &fa;
    in.Field(fa.field->id) = v;
  }
  if (dram != nullptr) {
    const MemInfo* mi = FindMemType(in.mem);
    if (mi == nullptr) return err(dram->col, "dram= needs a valid mem= to know the element size");
    int eb = cfg_.ElementBytes(mi->mem);
    if (in.dram < 0 || in.dram % eb != 0)
      return err(dram->col, fmt::format("dram address 0x{:x} is not a multiple of the {} element size ({} bytes)",
                                        in.dram, mi->name, eb));
    in.dram /= eb;
  }
  Status v = ValidateInstruction(cfg_, in);
  if (!v.ok()) return err(st.col, v.message());
  return in;
}

}  // namespace tessera::asm_internal
