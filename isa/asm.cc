// The assembler's driver (isa/assembler.h): reads the lines, expands .for
// loops, dispatches each line and runs pass 2 over the statements.
#include "isa/asm.h"

#include <sstream>

#include "isa/assembler.h"
#include "isa/base/file.h"

namespace tessera {
namespace asm_internal {

Assembler::Assembler(const HwConfig& cfg, const std::string& file) : cfg_(cfg), file_(file) {
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

StatusOr<Program> Assembler::Run(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines_.push_back(line);
  TSR_RETURN_IF_ERROR(ProcessRange(0, lines_.size()));
  if (open_ != nullptr)
    return InvalidArgumentError("{}:{}: segment '{}' is not closed by .end", file_, open_line_, open_->seg.name);
  return Finish();
}

Status Assembler::ProcessRange(size_t begin, size_t end) {
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

StatusOr<size_t> Assembler::MatchingEndfor(size_t open, size_t end) {
  int depth = 0;
  for (size_t i = open + 1; i < end; ++i) {
    auto toks = asm_internal::Tokenize(lines_[i], "");
    if (!toks.ok() || toks->empty() || (*toks)[0].kind != Token::Kind::kDirective) continue;
    if ((*toks)[0].text == "for") ++depth;
    if ((*toks)[0].text == "endfor" && depth-- == 0) return i;
  }
  return InvalidArgumentError("{}:{}: .for is not closed by .endfor", file_, open + 1);
}

Status Assembler::Define(const TokenStream& ts, int col, const std::string& name, int64_t value) {
  if (!syms_.emplace(name, value).second) return ts.Error(col, fmt::format("symbol '{}' is already defined", name));
  return OkStatus();
}

StatusOr<int64_t> Assembler::EvalNow(TokenStream& ts) {
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> e, ts.ParseExpr());
  return Eval(*e, syms_, locals_, ts.where());
}

Status Assembler::Line(TokenStream& ts, int lineno) {
  const Token& first = ts.Peek();
  if (open_ != nullptr && !(first.kind == Token::Kind::kDirective && first.text == "end"))
    return open_->seg.kind == Segment::Kind::kUops ? UopLine(ts) : ValueLine(ts);
  if (first.kind == Token::Kind::kDirective) return Directive(ts, lineno);
  if (first.kind == Token::Kind::kIdent) return Instr(ts, lineno);
  return ts.Error(first.col, "expected an instruction mnemonic or a directive");
}

Status Assembler::Directive(TokenStream& ts, int lineno) {
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
        fmt::format("unknown directive '.{}'; expected one of .text .equ .data .uops .random .expect .end .for .endfor",
                    d.text));
  }
  if (!ts.AtEnd()) return ts.Error(ts.Peek().col, fmt::format("unexpected '{}' after .{}", ts.Peek().text, d.text));
  return OkStatus();
}

StatusOr<Program> Assembler::Finish() {
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

}  // namespace asm_internal

StatusOr<Program> Assemble(const HwConfig& cfg, const std::string& text, const std::string& filename) {
  return asm_internal::Assembler(cfg, filename).Run(text);
}

StatusOr<Program> AssembleFile(const HwConfig& cfg, const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return Assemble(cfg, text, path);
}

}  // namespace tessera
