// The tokens of the graph IR's text form (printed by compiler/ir/printer.h,
// parsed by parser.cc): identifiers, %value and @name references (bare or
// quoted), numbers, strings and punctuation; // comments are skipped. Errors
// carry "file:line:col: message".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "isa/base/status.h"

namespace tessera::ir::text {

enum class Tok { kEnd, kIdent, kValue, kAt, kNumber, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, name (unquoted), number text, string contents, punctuation
  int line = 1, col = 1;
};

// The characters of a bare %value or @name (the printer quotes other names).
bool IsNameChar(char c);

// The current token of `text` and the moves every grammar rule makes on it.
class Lexer {
 public:
  Lexer(std::string_view text, std::string filename) : text_(text), file_(std::move(filename)) {}

  const Token& tok() const { return tok_; }
  // Moves to the next token.
  Status Next();
  // Bytes of input after the current token.
  size_t BytesLeft() const { return text_.size() - pos_; }

  std::string Where(const Token& t) const;
  Status Error(const Token& t, const std::string& msg) const;
  // A token as error messages name it.
  std::string Describe(const Token& t) const;
  bool IsPunct(const char* p) const { return tok_.kind == Tok::kPunct && tok_.text == p; }
  Status ExpectPunct(const char* p);
  Status ExpectIdent(const char* w);
  // A number token's value, and bracketed lists of numbers.
  Status ParseInt(const Token& t, int64_t* out) const;
  Status ParseFloat(const Token& t, float* out) const;
  Status ParseIntList(std::vector<int64_t>* out);
  Status ParseFloatList(std::vector<float>* out);

 private:
  Status LexString(std::string* out);
  // '[' {number ','} ']' with each number read by `parse`.
  template <typename T>
  Status ParseList(Status (Lexer::*parse)(const Token&, T*) const, std::vector<T>* out);

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
  Token tok_;
};

}  // namespace tessera::ir::text
