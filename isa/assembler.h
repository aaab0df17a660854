// The assembler's statements and state, internal to isa/asm*.cc. Pass 1
// tokenizes every line, parses expressions, lays out segments and defines
// symbols (.equ, segment names, NAME.count, NAME.end); pass 2 evaluates
// instruction fields and segment values, so instructions may refer to
// symbols defined later in the file. asm.cc holds the passes, lines, .for
// and directives; asm_segment.cc the segments; asm_insn.cc the instructions.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "isa/asm_expr.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "isa/program.h"

namespace tessera::asm_internal {

struct FieldAssign {
  const FieldInfo* field;
  std::unique_ptr<Expr> expr;  // null: enum name or bare flag
  std::string enum_name;
  int col;
};
struct InsnStmt {
  const OpcodeInfo* op;
  std::vector<FieldAssign> fields;
  std::string where;
  int line, col;
  Symbols locals;  // .for variables in scope
};
struct ValueExpr {
  std::unique_ptr<Expr> expr;
  std::string where;
  Symbols locals;
};
struct UopStmt {
  std::array<std::unique_ptr<Expr>, kNumUopFields> fields;
  std::string where;
  Symbols locals;
};
struct SegStmt {
  Segment seg;                    // kind, name, addr, type; bytes filled in pass 2
  std::vector<ValueExpr> values;  // .data / .expect
  std::vector<UopStmt> uops;      // .uops
  bool random = false;            // bytes already generated in pass 1
};

class Assembler {
 public:
  Assembler(const HwConfig& cfg, const std::string& file);
  StatusOr<Program> Run(const std::string& text);

 private:
  // Processes lines [begin, end); `.for NAME, START, END` ... `.endfor`
  // repeats its body with NAME bound to START .. END-1. Loops nest at most
  // kMaxForNesting deep and loop bodies expand to at most kMaxExpandedTokens
  // tokens in all, so a short file can neither recurse without bound nor
  // take hours and gigabytes.
  static constexpr int kMaxForNesting = 16;
  static constexpr int64_t kMaxExpandedTokens = int64_t{1} << 21;

  // asm.cc
  Status ProcessRange(size_t begin, size_t end);
  StatusOr<size_t> MatchingEndfor(size_t open, size_t end);
  Status Define(const TokenStream& ts, int col, const std::string& name, int64_t value);
  StatusOr<int64_t> EvalNow(TokenStream& ts);
  Status Line(TokenStream& ts, int lineno);
  Status Directive(TokenStream& ts, int lineno);
  StatusOr<Program> Finish();
  // asm_segment.cc
  Status DefineSegmentSymbols(const TokenStream& ts, int col, const Segment& s, size_t count);
  // .data NAME ADDR TYPE | .expect NAME ADDR TYPE | .uops NAME ADDR |
  // .random NAME ADDR TYPE count=N seed=S [min=LO] [max=HI]
  Status SegmentHeader(TokenStream& ts, const Token& d, int lineno);
  Status ValueLine(TokenStream& ts);
  Status UopLine(TokenStream& ts);
  Status FillSegment(SegStmt& st);
  // asm_insn.cc
  Status Instr(TokenStream& ts, int lineno);
  StatusOr<Instruction> BuildInsn(const InsnStmt& st);

  const HwConfig& cfg_;
  std::string file_;
  Symbols syms_;
  Symbols locals_;               // .for variables currently bound
  int64_t expanded_tokens_ = 0;  // tokens processed inside .for bodies, once per iteration
  uint64_t random_bytes_ = 0;    // bytes of .random segments generated so far
  std::vector<std::string> lines_;
  uint64_t text_addr_ = 0;
  std::vector<InsnStmt> insns_;
  std::vector<std::unique_ptr<SegStmt>> segs_;
  SegStmt* open_ = nullptr;
  int open_line_ = 0;
};

}  // namespace tessera::asm_internal
