// Lexer and integer expressions of the assembly language. Internal to the
// assembler (isa/asm.cc); separate so the parser file stays small.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera::asm_internal {

struct Token {
  enum class Kind { kIdent, kNumber, kDirective, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;  // identifier / directive name / punctuation
  int64_t value = 0;
  int col = 0;  // 1-based
};

// Splits one line (comments already allowed: '#', ';', '//') into tokens.
// `where` is "file:line" for messages.
StatusOr<std::vector<Token>> Tokenize(const std::string& line, const std::string& where);

struct Expr {
  char op = 'n';  // 'n' number, 's' symbol, 'u' negate, '~', '(' unused, or a binary operator
  int depth = 1;  // height of this tree; bounded by kMaxExprDepth
  int64_t value = 0;
  std::string sym;
  int col = 0;
  std::unique_ptr<Expr> a, b;
};

using Symbols = std::map<std::string, int64_t>;

// Parsing, evaluating and freeing an expression recurse over its tree, so both
// the nesting of parentheses / unary operators / calls and the height of the
// tree (a chain of binary operators) are bounded: deeper input is an error,
// never a stack overflow.
inline constexpr int kMaxExprDepth = 256;

// Cursor over one line's tokens with error helpers.
class TokenStream {
 public:
  TokenStream(std::vector<Token> toks, std::string where) : toks_(std::move(toks)), where_(std::move(where)) {}
  const Token& Peek(int k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& Next() { return toks_[std::min(pos_++, toks_.size() - 1)]; }
  bool AtEnd() const { return Peek().kind == Token::Kind::kEnd; }
  bool IsPunct(const char* p, int k = 0) const { return Peek(k).kind == Token::Kind::kPunct && Peek(k).text == p; }
  Status Error(int col, const std::string& msg, StatusCode code = StatusCode::kInvalidArgument) const;
  Status Expect(const char* punct);
  StatusOr<std::string> Ident(const char* what);
  // expr := or; precedence (low to high) | & (== !=) (< <= > >=) (<< >>) (+ -) (* / %) unary
  StatusOr<std::unique_ptr<Expr>> ParseExpr();
  const std::string& where() const { return where_; }

 private:
  StatusOr<std::unique_ptr<Expr>> Binary(int level);
  StatusOr<std::unique_ptr<Expr>> Unary();
  StatusOr<std::unique_ptr<Expr>> UnaryInner();
  Status TooDeep(int col) const;
  std::vector<Token> toks_;
  std::string where_;
  size_t pos_ = 0;
  int nesting_ = 0;  // Unary() frames currently active
};

// Evaluates with the given symbols (`locals`, e.g. .for variables, shadow
// `syms`); errors name the column.
StatusOr<int64_t> Eval(const Expr& e, const Symbols& syms, const Symbols& locals, const std::string& where);

}  // namespace tessera::asm_internal
