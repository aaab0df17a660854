#include "isa/asm_expr.h"

#include <algorithm>
#include <cctype>

namespace tessera::asm_internal {
namespace {

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

}  // namespace

StatusOr<std::vector<Token>> Tokenize(const std::string& line, const std::string& where) {
  std::vector<Token> out;
  size_t i = 0, n = line.size();
  while (i < n) {
    char c = line[i];
    int col = static_cast<int>(i) + 1;
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#' || c == ';' || (c == '/' && i + 1 < n && line[i + 1] == '/')) break;
    Token t;
    t.col = col;
    if (IdentStart(c) || (c == '.' && i + 1 < n && IdentStart(line[i + 1]))) {
      size_t j = i + 1;
      while (j < n && IdentChar(line[j])) ++j;
      t.kind = c == '.' ? Token::Kind::kDirective : Token::Kind::kIdent;
      t.text = line.substr(c == '.' ? i + 1 : i, c == '.' ? j - i - 1 : j - i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      int base = 10;
      size_t j = i;
      if (c == '0' && i + 1 < n && (line[i + 1] == 'x' || line[i + 1] == 'X'))
        base = 16, j += 2;
      else if (c == '0' && i + 1 < n && (line[i + 1] == 'b' || line[i + 1] == 'B'))
        base = 2, j += 2;
      size_t start = j;
      unsigned __int128 v = 0;
      while (j < n && std::isxdigit(static_cast<unsigned char>(line[j]))) {
        int d = std::isdigit(static_cast<unsigned char>(line[j])) ? line[j] - '0' : std::tolower(line[j]) - 'a' + 10;
        if (d >= base) break;
        v = v * base + d;
        if (v > static_cast<unsigned __int128>(INT64_MAX))
          return InvalidArgumentError("{}:{}: number too large", where, col);
        ++j;
      }
      if (j == start || (j < n && IdentChar(line[j])))
        return InvalidArgumentError("{}:{}: malformed number '{}'", where, col, line.substr(i, j - i + 1));
      t.kind = Token::Kind::kNumber;
      t.value = static_cast<int64_t>(v);
      t.text = line.substr(i, j - i);
      i = j;
    } else {
      static const char* kTwo[] = {"<<", ">>", "==", "!=", "<=", ">="};
      static const std::string kOne = "=,()+-*/%~&|:<>";
      t.kind = Token::Kind::kPunct;
      bool two = false;
      for (const char* op : kTwo) two = two || (i + 1 < n && line.compare(i, 2, op) == 0);
      if (two) {
        t.text = line.substr(i, 2);
        i += 2;
      } else if (kOne.find(c) != std::string::npos) {
        t.text = std::string(1, c);
        ++i;
      } else {
        return InvalidArgumentError("{}:{}: unexpected character '{}'", where, col, c);
      }
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.col = static_cast<int>(n) + 1;
  out.push_back(end);
  return out;
}

Status TokenStream::Error(int col, const std::string& msg, StatusCode code) const {
  return Status(code, fmt::format("{}:{}: {}", where_, col, msg));
}

Status TokenStream::Expect(const char* punct) {
  if (!IsPunct(punct)) {
    const Token& t = Peek();
    return Error(t.col, fmt::format("expected '{}', found {}", punct,
                                    t.kind == Token::Kind::kEnd ? "end of line" : "'" + t.text + "'"));
  }
  Next();
  return OkStatus();
}

StatusOr<std::string> TokenStream::Ident(const char* what) {
  const Token& t = Peek();
  if (t.kind != Token::Kind::kIdent)
    return Error(t.col, fmt::format("expected {}, found {}", what,
                                    t.kind == Token::Kind::kEnd ? "end of line" : "'" + t.text + "'"));
  return Next().text;
}

StatusOr<std::unique_ptr<Expr>> TokenStream::ParseExpr() { return Binary(0); }

Status TokenStream::TooDeep(int col) const {
  return Error(col, fmt::format("expression nested more than {} levels deep", kMaxExprDepth));
}

StatusOr<std::unique_ptr<Expr>> TokenStream::Binary(int level) {
  static const std::vector<std::vector<const char*>> kLevels = {
      {"|"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
  if (level == static_cast<int>(kLevels.size())) return Unary();
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> lhs, Binary(level + 1));
  for (;;) {
    const char* match = nullptr;
    for (const char* op : kLevels[level])
      if (IsPunct(op)) match = op;
    if (!match) return lhs;
    int col = Next().col;
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> rhs, Binary(level + 1));
    auto e = std::make_unique<Expr>();
    const std::string m = match;
    e->op = m == "<<"   ? 'L'
            : m == ">>" ? 'R'
            : m == "==" ? 'E'
            : m == "!=" ? 'N'
            : m == "<=" ? 'l'
            : m == ">=" ? 'g'
                        : m[0];
    e->col = col;
    e->depth = 1 + std::max(lhs->depth, rhs->depth);
    if (e->depth > kMaxExprDepth) return TooDeep(col);
    e->a = std::move(lhs);
    e->b = std::move(rhs);
    lhs = std::move(e);
  }
}

StatusOr<std::unique_ptr<Expr>> TokenStream::Unary() {
  if (nesting_ >= kMaxExprDepth) return TooDeep(Peek().col);
  ++nesting_;
  auto e = UnaryInner();
  --nesting_;
  if (e.ok() && (*e)->depth > kMaxExprDepth) return TooDeep((*e)->col);
  return e;
}

StatusOr<std::unique_ptr<Expr>> TokenStream::UnaryInner() {
  const Token& t = Peek();
  auto e = std::make_unique<Expr>();
  e->col = t.col;
  if (IsPunct("-") || IsPunct("~") || IsPunct("+")) {
    char op = Next().text[0];
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> inner, Unary());
    if (op == '+') return inner;
    e->op = op == '-' ? 'u' : '~';
    e->depth = 1 + inner->depth;
    e->a = std::move(inner);
    return e;
  }
  if (IsPunct("(")) {
    Next();
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> inner, ParseExpr());
    TSR_RETURN_IF_ERROR(Expect(")"));
    return inner;
  }
  if (t.kind == Token::Kind::kNumber) {
    e->op = 'n';
    e->value = Next().value;
    return e;
  }
  if (t.kind == Token::Kind::kIdent && IsPunct("(", 1)) {  // builtin: min(a, b) max(a, b) log2(a)
    const std::string fn = Next().text;
    const int arity = fn == "log2" ? 1 : (fn == "min" || fn == "max") ? 2 : 0;
    if (arity == 0) return Error(t.col, fmt::format("unknown function '{}'; expected min, max or log2", fn));
    Next();
    e->op = fn == "log2" ? 'G' : fn == "min" ? 'm' : 'M';
    TSR_ASSIGN_OR_RETURN(e->a, ParseExpr());
    e->depth = 1 + e->a->depth;
    if (arity == 2) {
      TSR_RETURN_IF_ERROR(Expect(","));
      TSR_ASSIGN_OR_RETURN(e->b, ParseExpr());
      e->depth = std::max(e->depth, 1 + e->b->depth);
    }
    TSR_RETURN_IF_ERROR(Expect(")"));
    return e;
  }
  if (t.kind == Token::Kind::kIdent) {
    e->op = 's';
    e->sym = Next().text;
    return e;
  }
  return Error(t.col, fmt::format("expected a number, symbol or '(', found {}",
                                  t.kind == Token::Kind::kEnd ? "end of line" : "'" + t.text + "'"));
}

StatusOr<int64_t> Eval(const Expr& e, const Symbols& syms, const Symbols& locals, const std::string& where) {
  auto err = [&](const std::string& m) { return InvalidArgumentError("{}:{}: {}", where, e.col, m); };
  switch (e.op) {
    case 'n': return e.value;
    case 's': {
      if (auto local = locals.find(e.sym); local != locals.end()) return local->second;
      auto it = syms.find(e.sym);
      if (it == syms.end()) return err(fmt::format("undefined symbol '{}'", e.sym));
      return it->second;
    }
    case 'u': {
      TSR_ASSIGN_OR_RETURN(int64_t a, Eval(*e.a, syms, locals, where));
      return static_cast<int64_t>(0 - static_cast<uint64_t>(a));  // wraps like + - *
    }
    case '~': {
      TSR_ASSIGN_OR_RETURN(int64_t a, Eval(*e.a, syms, locals, where));
      return ~a;
    }
    case 'G': {
      TSR_ASSIGN_OR_RETURN(int64_t a, Eval(*e.a, syms, locals, where));
      if (a <= 0) return err(fmt::format("log2 of {} is undefined", a));
      return 63 - __builtin_clzll(static_cast<uint64_t>(a));
    }
    default: break;
  }
  TSR_ASSIGN_OR_RETURN(int64_t a, Eval(*e.a, syms, locals, where));
  TSR_ASSIGN_OR_RETURN(int64_t b, Eval(*e.b, syms, locals, where));
  switch (e.op) {
    case '+': return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    case '-': return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    case '*': return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    case '/':
    case '%':
      if (b == 0) return err("division by zero");
      if (a == INT64_MIN && b == -1) return err("division overflow");
      return e.op == '/' ? a / b : a % b;
    case 'L':
    case 'R':
      if (b < 0 || b > 63) return err(fmt::format("shift amount {} outside [0, 63]", b));
      return e.op == 'L' ? static_cast<int64_t>(static_cast<uint64_t>(a) << b) : a >> b;
    case '&': return a & b;
    case '|': return a | b;
    case 'm': return std::min(a, b);
    case 'M': return std::max(a, b);
    case 'E': return a == b;
    case 'N': return a != b;
    case '<': return a < b;
    case 'l': return a <= b;
    case '>': return a > b;
    case 'g': return a >= b;
  }
  TSR_UNREACHABLE("bad expression operator '{}'", e.op);
}

}  // namespace tessera::asm_internal
