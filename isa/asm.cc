// Two-pass assembler. Pass 1 tokenizes every line, parses expressions, lays
// out segments and defines symbols (.equ, segment names, NAME.count,
// NAME.end). Pass 2 evaluates instruction fields and segment values, so
// instructions may refer to symbols defined later in the file.
#include "isa/asm.h"

#include <cctype>
#include <sstream>

#include "isa/asm_expr.h"
#include "isa/base/file.h"
#include "isa/config.h"
#include "isa/encoding.h"

namespace tessera {
namespace {

using asm_internal::Eval;
using asm_internal::Expr;
using asm_internal::Symbols;
using asm_internal::Token;
using asm_internal::TokenStream;

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

bool ValidName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

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

// Range of element type t, for .data / .expect / .random values.
void TypeRange(ElemType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ElemType::kI8: *lo = INT8_MIN, *hi = INT8_MAX; return;
    case ElemType::kU8: *lo = 0, *hi = UINT8_MAX; return;
    case ElemType::kI16: *lo = INT16_MIN, *hi = INT16_MAX; return;
    case ElemType::kU16: *lo = 0, *hi = UINT16_MAX; return;
    case ElemType::kI32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case ElemType::kU32:
    case ElemType::kUop: *lo = 0, *hi = UINT32_MAX; return;
  }
}

void AppendLe(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Assembler {
 public:
  Assembler(const HwConfig& cfg, const std::string& file) : cfg_(cfg), file_(file) {
    // Predefined symbols let one source serve several configs.
    syms_ = {{"BATCH", cfg.batch},
             {"BLOCK_IN", cfg.block_in},
             {"BLOCK_OUT", cfg.block_out},
             {"INP_ENTRIES", cfg.inp_entries},
             {"WGT_ENTRIES", cfg.wgt_entries},
             {"ACC_ENTRIES", cfg.acc_entries},
             {"UOP_ENTRIES", cfg.uop_entries},
             {"INP_TILE_BYTES", cfg.inp_tile_bytes},
             {"WGT_TILE_BYTES", cfg.wgt_tile_bytes},
             {"ACC_TILE_BYTES", cfg.acc_tile_bytes},
             {"OUT_TILE_BYTES", cfg.out_tile_bytes}};
  }

  StatusOr<Program> Run(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines_.push_back(line);
    TSR_RETURN_IF_ERROR(ProcessRange(0, lines_.size()));
    if (open_ != nullptr)
      return InvalidArgumentError("{}:{}: segment '{}' is not closed by .end", file_, open_line_, open_->seg.name);
    return Finish();
  }

 private:
  // Processes lines [begin, end); `.for NAME, START, END` ... `.endfor`
  // repeats its body with NAME bound to START .. END-1. Loops nest at most
  // kMaxForNesting deep and loop bodies expand to at most kMaxExpandedTokens
  // tokens in all, so a short file can neither recurse without bound nor
  // take hours and gigabytes.
  static constexpr int kMaxForNesting = 16;
  static constexpr int64_t kMaxExpandedTokens = int64_t{1} << 21;

  Status ProcessRange(size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const int lineno = static_cast<int>(i) + 1;
      std::string where = fmt::format("{}:{}", file_, lineno);
      TSR_ASSIGN_OR_RETURN(std::vector<Token> toks, asm_internal::Tokenize(lines_[i], where));
      if (!locals_.empty()) expanded_tokens_ += static_cast<int64_t>(toks.size());
      if (expanded_tokens_ > kMaxExpandedTokens)
        return InvalidArgumentError("{}: the source expands (through .for) to more than {} tokens", where,
                                    kMaxExpandedTokens);
      TokenStream ts(std::move(toks), where);
      if (ts.AtEnd()) continue;
      const Token& first = ts.Peek();
      if (first.kind == Token::Kind::kDirective && first.text == "endfor")
        return ts.Error(first.col, ".endfor without .for");
      if (first.kind != Token::Kind::kDirective || first.text != "for") {
        TSR_RETURN_IF_ERROR(Line(ts, lineno));
        continue;
      }
      ts.Next();
      int name_col = ts.Peek().col;
      TSR_ASSIGN_OR_RETURN(std::string var, ts.Ident("a loop variable name"));
      if (locals_.count(var) || syms_.count(var))
        return ts.Error(name_col, fmt::format("loop variable '{}' shadows an existing symbol", var));
      TSR_RETURN_IF_ERROR(ts.Expect(","));
      TSR_ASSIGN_OR_RETURN(int64_t lo, EvalNow(ts));
      TSR_RETURN_IF_ERROR(ts.Expect(","));
      TSR_ASSIGN_OR_RETURN(int64_t hi, EvalNow(ts));
      if (!ts.AtEnd()) return ts.Error(ts.Peek().col, fmt::format("unexpected '{}' after .for", ts.Peek().text));
      if (hi > lo && static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > (uint64_t{1} << 20))
        return ts.Error(first.col, fmt::format(".for range [{}, {}) has too many iterations (at most 2^20)", lo, hi));
      if (static_cast<int>(locals_.size()) >= kMaxForNesting)
        return ts.Error(first.col, fmt::format(".for loops nest more than {} deep", kMaxForNesting));
      TSR_ASSIGN_OR_RETURN(size_t close, MatchingEndfor(i, end));
      for (int64_t v = lo; v < hi; ++v) {
        locals_[var] = v;
        TSR_RETURN_IF_ERROR(ProcessRange(i + 1, close));
      }
      locals_.erase(var);
      i = close;
    }
    return OkStatus();
  }

  StatusOr<size_t> MatchingEndfor(size_t open, size_t end) {
    int depth = 0;
    for (size_t i = open + 1; i < end; ++i) {
      auto toks = asm_internal::Tokenize(lines_[i], "");
      if (!toks.ok() || toks->empty() || (*toks)[0].kind != Token::Kind::kDirective) continue;
      if ((*toks)[0].text == "for") ++depth;
      if ((*toks)[0].text == "endfor" && depth-- == 0) return i;
    }
    return InvalidArgumentError("{}:{}: .for is not closed by .endfor", file_, open + 1);
  }

 private:
  Status Define(const TokenStream& ts, int col, const std::string& name, int64_t value) {
    if (!syms_.emplace(name, value).second) return ts.Error(col, fmt::format("symbol '{}' is already defined", name));
    return OkStatus();
  }

  StatusOr<int64_t> EvalNow(TokenStream& ts) {
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> e, ts.ParseExpr());
    return Eval(*e, syms_, locals_, ts.where());
  }

  Status Line(TokenStream& ts, int lineno) {
    const Token& first = ts.Peek();
    if (open_ != nullptr && !(first.kind == Token::Kind::kDirective && first.text == "end"))
      return open_->seg.kind == Segment::Kind::kUops ? UopLine(ts) : ValueLine(ts);
    if (first.kind == Token::Kind::kDirective) return Directive(ts, lineno);
    if (first.kind == Token::Kind::kIdent) return Instr(ts, lineno);
    return ts.Error(first.col, "expected an instruction mnemonic or a directive");
  }

  Status Directive(TokenStream& ts, int lineno) {
    Token d = ts.Next();
    if (d.text == "end") {
      if (open_ == nullptr) return ts.Error(d.col, ".end without an open segment");
      size_t count = open_->seg.kind == Segment::Kind::kUops ? open_->uops.size() : open_->values.size();
      TSR_RETURN_IF_ERROR(DefineSegmentSymbols(ts, d.col, open_->seg, count));
      open_ = nullptr;
    } else if (d.text == "text") {
      TSR_ASSIGN_OR_RETURN(int64_t a, EvalNow(ts));
      if (a < 0 || a % kInsnBytes != 0)
        return ts.Error(d.col, fmt::format(".text address {} is not a non-negative multiple of 16", a));
      text_addr_ = static_cast<uint64_t>(a);
    } else if (d.text == "equ") {
      int col = ts.Peek().col;
      TSR_ASSIGN_OR_RETURN(std::string name, ts.Ident("a symbol name"));
      if (ts.IsPunct(",")) ts.Next();
      TSR_ASSIGN_OR_RETURN(int64_t v, EvalNow(ts));
      TSR_RETURN_IF_ERROR(Define(ts, col, name, v));
    } else if (d.text == "data" || d.text == "expect" || d.text == "uops" || d.text == "random") {
      return SegmentHeader(ts, d, lineno);
    } else {
      return ts.Error(
          d.col,
          fmt::format(
              "unknown directive '.{}'; expected one of .text .equ .data .uops .random .expect .end .for .endfor",
              d.text));
    }
    if (!ts.AtEnd()) return ts.Error(ts.Peek().col, fmt::format("unexpected '{}' after .{}", ts.Peek().text, d.text));
    return OkStatus();
  }

  Status DefineSegmentSymbols(const TokenStream& ts, int col, const Segment& s, size_t count) {
    const int eb = ElemBytes(s.type);
    TSR_RETURN_IF_ERROR(Define(ts, col, s.name + ".count", static_cast<int64_t>(count)));
    return Define(ts, col, s.name + ".end", static_cast<int64_t>(s.addr + count * eb));
  }

  // .data NAME ADDR TYPE | .expect NAME ADDR TYPE | .uops NAME ADDR |
  // .random NAME ADDR TYPE count=N seed=S [min=LO] [max=HI]
  Status SegmentHeader(TokenStream& ts, const Token& d, int lineno) {
    auto st = std::make_unique<SegStmt>();
    Segment& s = st->seg;
    s.kind = d.text == "uops"     ? Segment::Kind::kUops
             : d.text == "expect" ? Segment::Kind::kExpect
                                  : Segment::Kind::kData;
    int name_col = ts.Peek().col;
    TSR_ASSIGN_OR_RETURN(s.name, ts.Ident("a segment name"));
    if (!ValidName(s.name)) return ts.Error(name_col, fmt::format("segment name '{}' may not contain '.'", s.name));
    for (const auto& other : segs_)
      if (other->seg.name == s.name) return ts.Error(name_col, fmt::format("segment '{}' is already defined", s.name));
    int addr_col = ts.Peek().col;
    TSR_ASSIGN_OR_RETURN(int64_t addr, EvalNow(ts));
    if (addr < 0) return ts.Error(addr_col, fmt::format("negative address {}", addr));
    s.addr = static_cast<uint64_t>(addr);
    if (s.kind == Segment::Kind::kUops) {
      s.type = ElemType::kUop;
    } else {
      int type_col = ts.Peek().col;
      TSR_ASSIGN_OR_RETURN(std::string type, ts.Ident("an element type (i8 u8 i16 u16 i32 u32)"));
      if (!ParseElemType(type, &s.type))
        return ts.Error(type_col, fmt::format("unknown element type '{}'; expected i8 u8 i16 u16 i32 u32", type));
    }
    if (s.kind != Segment::Kind::kUops && s.addr % ElemBytes(s.type) != 0)
      return ts.Error(addr_col,
                      fmt::format("address 0x{:x} is not aligned to {} elements", s.addr, ElemTypeName(s.type)));
    if (d.text == "random") {
      // Named arguments: count=E seed=E [min=E] [max=E]
      int64_t count = -1, seed = 0, lo = 0, hi = 0;
      TypeRange(s.type, &lo, &hi);
      int64_t tlo = lo, thi = hi;
      bool have_seed = false;
      int range_col = 0;
      while (!ts.AtEnd()) {
        int col = ts.Peek().col;
        TSR_ASSIGN_OR_RETURN(std::string key, ts.Ident("count=, seed=, min= or max="));
        TSR_RETURN_IF_ERROR(ts.Expect("="));
        TSR_ASSIGN_OR_RETURN(int64_t v, EvalNow(ts));
        if (key == "count")
          count = v;
        else if (key == "seed")
          seed = v, have_seed = true;
        else if (key == "min")
          lo = v, range_col = range_col ? range_col : col;
        else if (key == "max")
          hi = v, range_col = range_col ? range_col : col;
        else
          return ts.Error(col, fmt::format("unknown .random argument '{}'; expected count seed min max", key));
      }
      if (count < 0 || count > (int64_t{1} << 28))
        return ts.Error(d.col, fmt::format(".random needs count= in [0, 2^28], got {}", count));
      // Generated now, so bounded now: segments cannot overlap, so all of them fit in DRAM.
      const uint64_t bytes = static_cast<uint64_t>(count) * ElemBytes(s.type);
      random_bytes_ += bytes;
      if (s.addr > cfg_.dram_size_bytes || bytes > cfg_.dram_size_bytes - s.addr ||
          random_bytes_ > cfg_.dram_size_bytes)
        return ts.Error(
            d.col, fmt::format(".random segment '{}' does not fit in DRAM ({} bytes)", s.name, cfg_.dram_size_bytes),
            StatusCode::kResourceExhausted);
      if (!have_seed) return ts.Error(d.col, ".random needs seed=");
      if (lo > hi || lo < tlo || hi > thi)
        return ts.Error(range_col,
                        fmt::format("random range [{}, {}] is empty or outside {}", lo, hi, ElemTypeName(s.type)));
      uint64_t state = static_cast<uint64_t>(seed);
      const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
      for (int64_t i = 0; i < count; ++i)
        AppendLe(s.bytes, static_cast<uint64_t>(lo + static_cast<int64_t>(SplitMix64(state) % span)),
                 ElemBytes(s.type));
      st->random = true;
      TSR_RETURN_IF_ERROR(Define(ts, name_col, s.name, static_cast<int64_t>(s.addr)));
      TSR_RETURN_IF_ERROR(DefineSegmentSymbols(ts, name_col, s, static_cast<size_t>(count)));
      segs_.push_back(std::move(st));
      return OkStatus();
    }
    if (!ts.AtEnd())
      return ts.Error(ts.Peek().col, fmt::format("unexpected '{}' after .{} header", ts.Peek().text, d.text));
    TSR_RETURN_IF_ERROR(Define(ts, name_col, s.name, static_cast<int64_t>(s.addr)));
    open_ = st.get();
    open_line_ = lineno;
    segs_.push_back(std::move(st));
    return OkStatus();
  }

  Status ValueLine(TokenStream& ts) {
    for (;;) {
      TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> e, ts.ParseExpr());
      open_->values.push_back({std::move(e), ts.where(), locals_});
      if (ts.AtEnd()) return OkStatus();
      TSR_RETURN_IF_ERROR(ts.Expect(","));
      if (ts.AtEnd()) return OkStatus();  // trailing comma
    }
  }

  Status UopLine(TokenStream& ts) {
    UopStmt u;
    u.where = ts.where();
    u.locals = locals_;
    while (!ts.AtEnd()) {
      int col = ts.Peek().col;
      TSR_ASSIGN_OR_RETURN(std::string name, ts.Ident("a uop field (dst src wgt)"));
      const UopFieldInfo* fi = FindUopField(name);
      if (fi == nullptr) return ts.Error(col, fmt::format("unknown uop field '{}'; expected dst src wgt", name));
      auto& slot = u.fields[static_cast<int>(fi->id)];
      if (slot) return ts.Error(col, fmt::format("uop field '{}' given twice", name));
      TSR_RETURN_IF_ERROR(ts.Expect("="));
      TSR_ASSIGN_OR_RETURN(slot, ts.ParseExpr());
      if (ts.IsPunct(",")) ts.Next();
    }
    open_->uops.push_back(std::move(u));
    return OkStatus();
  }

  Status Instr(TokenStream& ts, int lineno) {
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

  StatusOr<Instruction> BuildInsn(const InsnStmt& st) {
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
            return err(fa.col,
                       fmt::format("unknown memory type '{}'; expected uop wgt inp acc out acc8", fa.enum_name));
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

  Status FillSegment(SegStmt& st) {
    Segment& s = st.seg;
    if (st.random) return OkStatus();
    if (s.kind == Segment::Kind::kUops) {
      for (const UopStmt& u : st.uops) {
        Uop uop;
        for (int f = 0; f < kNumUopFields; ++f) {
          if (!u.fields[f]) continue;
          TSR_ASSIGN_OR_RETURN(uop.Field(static_cast<UopFieldId>(f)), Eval(*u.fields[f], syms_, u.locals, u.where));
        }
        auto word = EncodeUop(cfg_, uop);
        if (!word.ok()) return word.status().WithContext(u.where);
        AppendLe(s.bytes, *word, kUopBytes);
      }
      return OkStatus();
    }
    int64_t lo = 0, hi = 0;
    TypeRange(s.type, &lo, &hi);
    for (const ValueExpr& ve : st.values) {
      TSR_ASSIGN_OR_RETURN(int64_t v, Eval(*ve.expr, syms_, ve.locals, ve.where));
      if (v < lo || v > hi)
        return InvalidArgumentError("{}:{}: value {} does not fit {} [{}, {}]", ve.where, ve.expr->col, v,
                                    ElemTypeName(s.type), lo, hi);
      AppendLe(s.bytes, static_cast<uint64_t>(v), ElemBytes(s.type));
    }
    return OkStatus();
  }

  StatusOr<Program> Finish() {
    Program p;
    p.text_addr = text_addr_;
    for (const InsnStmt& st : insns_) {
      TSR_ASSIGN_OR_RETURN(Instruction in, BuildInsn(st));
      p.insns.push_back(in);
      p.insn_lines.push_back(st.line);
    }
    for (auto& st : segs_) {
      TSR_RETURN_IF_ERROR(FillSegment(*st));
      p.segments.push_back(std::move(st->seg));
    }
    Status layout = CheckProgramLayout(cfg_, p);
    if (!layout.ok()) return layout.WithContext(file_);
    return p;
  }

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

}  // namespace

StatusOr<Program> Assemble(const HwConfig& cfg, const std::string& text, const std::string& filename) {
  return Assembler(cfg, filename).Run(text);
}

StatusOr<Program> AssembleFile(const HwConfig& cfg, const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return Assemble(cfg, text, path);
}

}  // namespace tessera
