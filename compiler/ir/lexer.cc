// The IR text form's lexer (lexer.h).
#include "compiler/ir/lexer.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tessera::ir::text {
namespace {

bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-';
}

}  // namespace

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$' || c == '/' || c == '-';
}

Status Lexer::Next() {
  // Skip whitespace and // comments.
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
      ++pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
  tok_ = Token();
  tok_.line = line_;
  tok_.col = static_cast<int>(pos_ - line_start_) + 1;
  if (pos_ >= text_.size()) return OkStatus();
  char c = text_[pos_];
  if (c == '%' || c == '@') {
    ++pos_;
    tok_.kind = c == '%' ? Tok::kValue : Tok::kAt;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      TSR_RETURN_IF_ERROR(LexString(&tok_.text));
      if (c == '%' && tok_.text.empty()) return Error(tok_, "a value name cannot be empty");
      return OkStatus();
    }
    size_t start = pos_;
    while (pos_ < text_.size() && IsNameChar(text_[pos_])) ++pos_;
    if (pos_ == start) return Error(tok_, std::string("expected a name after '") + c + "'");
    tok_.text = std::string(text_.substr(start, pos_ - start));
    return OkStatus();
  }
  if (c == '"') {
    tok_.kind = Tok::kString;
    return LexString(&tok_.text);
  }
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    size_t start = pos_++;
    while (pos_ < text_.size() && IsNumberChar(text_[pos_])) ++pos_;
    tok_.kind = Tok::kNumber;
    tok_.text = std::string(text_.substr(start, pos_ - start));
    return OkStatus();
  }
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           ((text_[pos_] >= 'a' && text_[pos_] <= 'z') || (text_[pos_] >= 'A' && text_[pos_] <= 'Z') ||
            (text_[pos_] >= '0' && text_[pos_] <= '9') || text_[pos_] == '_'))
      ++pos_;
    tok_.kind = Tok::kIdent;
    tok_.text = std::string(text_.substr(start, pos_ - start));
    return OkStatus();
  }
  if (std::strchr("(){}[]<>,:=", c)) {
    ++pos_;
    tok_.kind = Tok::kPunct;
    tok_.text = std::string(1, c);
    return OkStatus();
  }
  return Error(tok_, fmt::format("unexpected character '{}'", c));
}

Status Lexer::LexString(std::string* out) {
  ++pos_;  // opening quote
  out->clear();
  while (true) {
    if (pos_ >= text_.size() || text_[pos_] == '\n') return Error(tok_, "unterminated string");
    char c = text_[pos_++];
    if (c == '"') return OkStatus();
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (pos_ >= text_.size()) return Error(tok_, "unterminated string");
    char e = text_[pos_++];
    if (e == '"' || e == '\\') {
      *out += e;
    } else if (e == 'x' && pos_ + 2 <= text_.size() && std::isxdigit(static_cast<unsigned char>(text_[pos_])) &&
               std::isxdigit(static_cast<unsigned char>(text_[pos_ + 1]))) {
      *out += static_cast<char>(std::strtol(std::string(text_.substr(pos_, 2)).c_str(), nullptr, 16));
      pos_ += 2;
    } else {
      return Error(tok_, fmt::format("bad escape '\\{}' in string", e));
    }
  }
}

std::string Lexer::Where(const Token& t) const { return fmt::format("{}:{}:{}", file_, t.line, t.col); }

Status Lexer::Error(const Token& t, const std::string& msg) const {
  return InvalidArgumentError("{}: {}", Where(t), msg);
}

std::string Lexer::Describe(const Token& t) const {
  switch (t.kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kValue: return "'%" + t.text + "'";
    case Tok::kAt: return "'@" + t.text + "'";
    case Tok::kString: return "a string";
    default: return "'" + t.text + "'";
  }
}

Status Lexer::ExpectPunct(const char* p) {
  if (!IsPunct(p)) return Error(tok_, fmt::format("expected '{}', got {}", p, Describe(tok_)));
  return Next();
}

Status Lexer::ExpectIdent(const char* w) {
  if (tok_.kind != Tok::kIdent || tok_.text != w)
    return Error(tok_, fmt::format("expected '{}', got {}", w, Describe(tok_)));
  return Next();
}

Status Lexer::ParseInt(const Token& t, int64_t* out) const {
  if (t.kind != Tok::kNumber) return Error(t, fmt::format("expected an integer, got {}", Describe(t)));
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.text.c_str(), &end, 10);
  if (errno || *end) return Error(t, fmt::format("'{}' is not an integer", t.text));
  *out = v;
  return OkStatus();
}

Status Lexer::ParseFloat(const Token& t, float* out) const {
  if (t.kind != Tok::kNumber && !(t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan")))
    return Error(t, fmt::format("expected a number, got {}", Describe(t)));
  char* end = nullptr;
  *out = std::strtof(t.text.c_str(), &end);
  if (*end || t.text.rfind("0x", 0) == 0) return Error(t, fmt::format("'{}' is not a number", t.text));
  return OkStatus();
}

Status Lexer::ParseIntList(std::vector<int64_t>* out) { return ParseList(&Lexer::ParseInt, out); }

Status Lexer::ParseFloatList(std::vector<float>* out) { return ParseList(&Lexer::ParseFloat, out); }

template <typename T>
Status Lexer::ParseList(Status (Lexer::*parse)(const Token&, T*) const, std::vector<T>* out) {
  TSR_RETURN_IF_ERROR(ExpectPunct("["));
  while (!IsPunct("]")) {
    T v;
    TSR_RETURN_IF_ERROR((this->*parse)(tok_, &v));
    out->push_back(v);
    TSR_RETURN_IF_ERROR(Next());
    if (!IsPunct(",")) break;
    TSR_RETURN_IF_ERROR(Next());
  }
  return ExpectPunct("]");
}

}  // namespace tessera::ir::text
