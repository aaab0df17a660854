// Recursive-descent parser over a small lexer. Grammar (docs/compiler.md):
//   graph  := 'graph' '@' name '(' [param {',' param}] ')' '{' {stmt} 'return' refs '}'
//   stmt   := def {',' def} '=' ( 'const' literal | op '(' [refs] ')' [attrs] ['@' name] )
//   def    := '%' name ':' type ;  type := dtype '[' dims ']' ['<' quant '>']
#include "compiler/ir/parser.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"

namespace tessera::ir {
namespace {

enum class Tok { kEnd, kIdent, kValue, kAt, kNumber, kString, kPunct };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, name (unquoted), number text, string contents, punctuation
  int line = 1, col = 1;
};

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '$' || c == '/' || c == '-';
}
bool IsNumberChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' || c == '+' || c == '-';
}

class Parser {
 public:
  Parser(std::string_view text, std::string filename) : text_(text), file_(std::move(filename)) {}

  StatusOr<std::unique_ptr<Graph>> Run() {
    TSR_RETURN_IF_ERROR(Next());
    TSR_RETURN_IF_ERROR(ExpectIdent("graph"));
    if (tok_.kind != Tok::kAt)
      return Error(tok_, fmt::format("expected '@name' after 'graph', got {}", Describe(tok_)));
    std::string gname = tok_.text;
    TSR_RETURN_IF_ERROR(Next());
    auto g = std::make_unique<Graph>(gname);
    g_ = g.get();
    TSR_RETURN_IF_ERROR(ExpectPunct("("));
    if (!IsPunct(")")) {
      while (true) {
        Token at = tok_;
        std::string name;
        TensorType type;
        TSR_RETURN_IF_ERROR(ParseDef(&name, &type));
        TSR_RETURN_IF_ERROR(CheckFresh(name, at));
        TSR_RETURN_IF_ERROR(ValidateShape(type.shape, "input '%" + name + "'").WithContext(Where(at)));
        g_->AddInput(name, type);
        if (!IsPunct(",")) break;
        TSR_RETURN_IF_ERROR(Next());
      }
    }
    TSR_RETURN_IF_ERROR(ExpectPunct(")"));
    TSR_RETURN_IF_ERROR(ExpectPunct("{"));
    while (!(tok_.kind == Tok::kIdent && tok_.text == "return")) TSR_RETURN_IF_ERROR(ParseStatement());
    TSR_RETURN_IF_ERROR(Next());
    std::vector<Value*> outs;
    while (true) {
      Value* v;
      TSR_RETURN_IF_ERROR(ParseRef(&v));
      outs.push_back(v);
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    g_->SetOutputs(outs);
    TSR_RETURN_IF_ERROR(ExpectPunct("}"));
    if (tok_.kind != Tok::kEnd) return Error(tok_, "unexpected '" + tok_.text + "' after the graph");
    return g;
  }

 private:
  // ---- lexer ----
  Status Next() {
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
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
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

  Status LexString(std::string* out) {
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

  // ---- helpers ----
  std::string Where(const Token& t) const { return fmt::format("{}:{}:{}", file_, t.line, t.col); }
  Status Error(const Token& t, const std::string& msg) const { return InvalidArgumentError("{}: {}", Where(t), msg); }
  std::string Describe(const Token& t) const {
    switch (t.kind) {
      case Tok::kEnd: return "end of input";
      case Tok::kValue: return "'%" + t.text + "'";
      case Tok::kAt: return "'@" + t.text + "'";
      case Tok::kString: return "a string";
      default: return "'" + t.text + "'";
    }
  }
  bool IsPunct(const char* p) const { return tok_.kind == Tok::kPunct && tok_.text == p; }
  Status ExpectPunct(const char* p) {
    if (!IsPunct(p)) return Error(tok_, fmt::format("expected '{}', got {}", p, Describe(tok_)));
    return Next();
  }
  Status ExpectIdent(const char* w) {
    if (tok_.kind != Tok::kIdent || tok_.text != w)
      return Error(tok_, fmt::format("expected '{}', got {}", w, Describe(tok_)));
    return Next();
  }
  Status CheckFresh(const std::string& name, const Token& at) {
    if (g_->FindValue(name)) return Error(at, fmt::format("value '%{}' is defined twice", name));
    return OkStatus();
  }

  Status ParseRef(Value** v) {
    if (tok_.kind != Tok::kValue) return Error(tok_, fmt::format("expected a value, got {}", Describe(tok_)));
    *v = g_->FindValue(tok_.text);
    if (!*v) return Error(tok_, fmt::format("use of undefined value '%{}'", tok_.text));
    return Next();
  }

  Status ParseInt(const Token& t, int64_t* out) {
    if (t.kind != Tok::kNumber) return Error(t, fmt::format("expected an integer, got {}", Describe(t)));
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (errno || *end) return Error(t, fmt::format("'{}' is not an integer", t.text));
    *out = v;
    return OkStatus();
  }
  Status ParseFloat(const Token& t, float* out) {
    if (t.kind != Tok::kNumber && !(t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan")))
      return Error(t, fmt::format("expected a number, got {}", Describe(t)));
    char* end = nullptr;
    *out = std::strtof(t.text.c_str(), &end);
    if (*end || t.text.rfind("0x", 0) == 0) return Error(t, fmt::format("'{}' is not a number", t.text));
    return OkStatus();
  }

  Status ParseIntList(std::vector<int64_t>* out) {
    TSR_RETURN_IF_ERROR(ExpectPunct("["));
    while (!IsPunct("]")) {
      int64_t v;
      TSR_RETURN_IF_ERROR(ParseInt(tok_, &v));
      out->push_back(v);
      TSR_RETURN_IF_ERROR(Next());
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    return ExpectPunct("]");
  }
  Status ParseFloatList(std::vector<float>* out) {
    TSR_RETURN_IF_ERROR(ExpectPunct("["));
    while (!IsPunct("]")) {
      float v;
      TSR_RETURN_IF_ERROR(ParseFloat(tok_, &v));
      out->push_back(v);
      TSR_RETURN_IF_ERROR(Next());
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    return ExpectPunct("]");
  }

  // ---- grammar ----
  Status ParseType(TensorType* t) {
    if (tok_.kind != Tok::kIdent) return Error(tok_, fmt::format("expected a type, got {}", Describe(tok_)));
    auto dt = ParseDType(tok_.text);
    if (!dt) return Error(tok_, fmt::format("unknown element type '{}'", tok_.text));
    t->dtype = *dt;
    TSR_RETURN_IF_ERROR(Next());
    t->shape.clear();
    TSR_RETURN_IF_ERROR(ParseIntList(&t->shape));
    t->quant.reset();
    if (!IsPunct("<")) return OkStatus();
    Token at = tok_;
    TSR_RETURN_IF_ERROR(Next());
    QuantParams q;
    bool have_zp = false;
    while (!IsPunct(">")) {
      if (tok_.kind != Tok::kIdent) return Error(tok_, "expected 'axis', 's' or 'zp'");
      const std::string key = tok_.text;
      TSR_RETURN_IF_ERROR(Next());
      TSR_RETURN_IF_ERROR(ExpectPunct("="));
      if (key == "axis") {
        int64_t a;
        TSR_RETURN_IF_ERROR(ParseInt(tok_, &a));
        q.axis = static_cast<int>(a);
        TSR_RETURN_IF_ERROR(Next());
      } else if (key == "s") {
        if (IsPunct("[")) {
          TSR_RETURN_IF_ERROR(ParseFloatList(&q.scale));
        } else {
          float s;
          TSR_RETURN_IF_ERROR(ParseFloat(tok_, &s));
          q.scale = {s};
          TSR_RETURN_IF_ERROR(Next());
        }
      } else if (key == "zp") {
        have_zp = true;
        std::vector<int64_t> zps;
        if (IsPunct("[")) {
          TSR_RETURN_IF_ERROR(ParseIntList(&zps));
        } else {
          int64_t z;
          TSR_RETURN_IF_ERROR(ParseInt(tok_, &z));
          zps = {z};
          TSR_RETURN_IF_ERROR(Next());
        }
        for (int64_t z : zps) {
          if (z < INT32_MIN || z > INT32_MAX) return Error(at, "zero point out of range");
          q.zero_point.push_back(static_cast<int32_t>(z));
        }
      } else {
        return Error(at, fmt::format("unknown quantization key '{}'", key));
      }
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    TSR_RETURN_IF_ERROR(ExpectPunct(">"));
    if (!have_zp) q.zero_point.assign(q.scale.size(), 0);
    t->quant = q;
    TSR_RETURN_IF_ERROR(ValidateQuant(*t, "type").WithContext(Where(at)));
    // Canonical form: zero points print only when non-zero.
    if (have_zp && q.symmetric()) return Error(at, "write all-zero zero points by omitting 'zp'");
    return OkStatus();
  }

  Status ParseDef(std::string* name, TensorType* type) {
    if (tok_.kind != Tok::kValue) return Error(tok_, fmt::format("expected a value name, got {}", Describe(tok_)));
    *name = tok_.text;
    TSR_RETURN_IF_ERROR(Next());
    TSR_RETURN_IF_ERROR(ExpectPunct(":"));
    return ParseType(type);
  }

  // The declared size is checked against the data present before the tensor
  // is allocated: a short file cannot demand gigabytes.
  Status ParseConstData(const Token& at, const std::string& name, const TensorType& type, Tensor* out) {
    TSR_RETURN_IF_ERROR(ValidateShape(type.shape, "constant '%" + name + "'").WithContext(Where(at)));
    const int64_t numel = NumElements(type.shape);
    const uint64_t nbytes = static_cast<uint64_t>(numel) * DTypeSize(type.dtype);
    if (IsPunct("<")) return Error(tok_, fmt::format("constant '%{}' was printed with elided data", name));
    if (tok_.kind == Tok::kNumber && tok_.text.rfind("0x", 0) == 0) {
      const std::string& h = tok_.text;
      if (h.size() - 2 != 2 * nbytes)
        return Error(tok_,
                     fmt::format("constant '%{}' needs {} bytes of data, got {}", name, nbytes, (h.size() - 2) / 2));
      *out = Tensor(type.dtype, type.shape);
      uint8_t* p = out->raw();
      for (size_t i = 0; i < out->nbytes(); ++i) {
        int hi = HexDigit(h[2 + 2 * i]), lo = HexDigit(h[3 + 2 * i]);
        if (hi < 0 || lo < 0) return Error(tok_, "bad hex digit in constant data");
        p[i] = static_cast<uint8_t>(hi << 4 | lo);
      }
      return Next();
    }
    Token list_at = tok_;
    // Each element takes at least one character of what is left of the file.
    if (static_cast<uint64_t>(numel) > text_.size() - pos_ + 1)
      return Error(list_at, fmt::format("constant '%{}' declares {} elements but the file has only {} bytes left", name,
                                        numel, text_.size() - pos_));
    *out = Tensor(type.dtype, type.shape);
    TSR_RETURN_IF_ERROR(ExpectPunct("["));
    int64_t i = 0;
    while (!IsPunct("]")) {
      if (i >= out->numel()) return Error(tok_, fmt::format("too many elements for constant '%{}'", name));
      if (type.dtype == DType::kF32) {
        TSR_RETURN_IF_ERROR(ParseFloat(tok_, &out->data<float>()[i]));
      } else {
        int64_t v;
        TSR_RETURN_IF_ERROR(ParseInt(tok_, &v));
        if (v < DTypeMin(type.dtype) || v > DTypeMax(type.dtype))
          return Error(tok_, fmt::format("{} out of range for {}", v, DTypeName(type.dtype)));
        switch (type.dtype) {
          case DType::kI8: out->data<int8_t>()[i] = static_cast<int8_t>(v); break;
          case DType::kU8:
          case DType::kBool: out->raw()[i] = static_cast<uint8_t>(v); break;
          case DType::kI32: out->data<int32_t>()[i] = static_cast<int32_t>(v); break;
          default: out->data<int64_t>()[i] = v; break;
        }
      }
      ++i;
      TSR_RETURN_IF_ERROR(Next());
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    if (i != out->numel())
      return Error(list_at, fmt::format("constant '%{}' has {} elements, its type needs {}", name, i, out->numel()));
    return ExpectPunct("]");
  }
  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  Status ParseAttr(const OpDef* def, const std::string& op, Attrs* attrs) {
    if (tok_.kind != Tok::kIdent) return Error(tok_, fmt::format("expected an attribute name, got {}", Describe(tok_)));
    Token at = tok_;
    const std::string key = tok_.text;
    const AttrDef* ad = def->FindAttr(key);
    if (!ad) return Error(at, fmt::format("op '{}' has no attribute '{}'", op, key));
    if (attrs->Has(key)) return Error(at, fmt::format("attribute '{}' given twice", key));
    TSR_RETURN_IF_ERROR(Next());
    TSR_RETURN_IF_ERROR(ExpectPunct("="));
    switch (ad->kind) {
      case AttrKind::kInt: {
        int64_t v;
        TSR_RETURN_IF_ERROR(ParseInt(tok_, &v));
        attrs->Set(key, v);
        return Next();
      }
      case AttrKind::kFloat: {
        float v;
        TSR_RETURN_IF_ERROR(ParseFloat(tok_, &v));
        attrs->Set(key, v);
        return Next();
      }
      case AttrKind::kString: {
        if (tok_.kind != Tok::kString) return Error(tok_, fmt::format("attribute '{}' must be a string", key));
        attrs->Set(key, tok_.text);
        return Next();
      }
      case AttrKind::kInts: {
        std::vector<int64_t> v;
        TSR_RETURN_IF_ERROR(ParseIntList(&v));
        attrs->Set(key, v);
        return OkStatus();
      }
      case AttrKind::kFloats: {
        std::vector<float> v;
        TSR_RETURN_IF_ERROR(ParseFloatList(&v));
        attrs->Set(key, v);
        return OkStatus();
      }
    }
    return OkStatus();
  }

  Status ParseStatement() {
    std::vector<std::pair<std::string, TensorType>> defs;
    std::vector<Token> def_at;
    while (true) {
      def_at.push_back(tok_);
      std::string name;
      TensorType type;
      TSR_RETURN_IF_ERROR(ParseDef(&name, &type));
      TSR_RETURN_IF_ERROR(CheckFresh(name, def_at.back()));
      for (const auto& d : defs)
        if (d.first == name) return Error(def_at.back(), fmt::format("value '%{}' is defined twice", name));
      defs.emplace_back(name, type);
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    TSR_RETURN_IF_ERROR(ExpectPunct("="));
    if (tok_.kind != Tok::kIdent) return Error(tok_, fmt::format("expected an op name, got {}", Describe(tok_)));
    Token op_at = tok_;
    const std::string op = tok_.text;
    TSR_RETURN_IF_ERROR(Next());
    if (op == "const") {
      if (defs.size() != 1) return Error(op_at, "a constant defines exactly one value");
      Tensor data;
      TSR_RETURN_IF_ERROR(ParseConstData(def_at[0], defs[0].first, defs[0].second, &data));
      g_->AddConstant(defs[0].first, std::move(data), defs[0].second.quant);
      return OkStatus();
    }
    const OpDef* def = FindOp(op);
    if (!def) return Error(op_at, fmt::format("unknown op '{}'", op));
    std::vector<Value*> args;
    TSR_RETURN_IF_ERROR(ExpectPunct("("));
    while (!IsPunct(")")) {
      Value* v;
      TSR_RETURN_IF_ERROR(ParseRef(&v));
      args.push_back(v);
      if (!IsPunct(",")) break;
      TSR_RETURN_IF_ERROR(Next());
    }
    TSR_RETURN_IF_ERROR(ExpectPunct(")"));
    Attrs attrs;
    if (IsPunct("{")) {
      TSR_RETURN_IF_ERROR(Next());
      while (!IsPunct("}")) {
        TSR_RETURN_IF_ERROR(ParseAttr(def, op, &attrs));
        if (!IsPunct(",")) break;
        TSR_RETURN_IF_ERROR(Next());
      }
      TSR_RETURN_IF_ERROR(ExpectPunct("}"));
    }
    std::string node_name;
    if (tok_.kind == Tok::kAt) {
      node_name = tok_.text;
      TSR_RETURN_IF_ERROR(Next());
    }
    std::vector<std::string> names;
    for (const auto& d : defs) names.push_back(d.first);
    Node* n = g_->AddNode(op, args, names, std::move(attrs), node_name);
    for (size_t i = 0; i < defs.size(); ++i) {
      TSR_RETURN_IF_ERROR(
          ValidateShape(defs[i].second.shape, "'%" + defs[i].first + "'").WithContext(Where(def_at[i])));
      n->output(static_cast<int>(i))->set_type(defs[i].second);
    }
    return OkStatus();
  }

  std::string_view text_;
  std::string file_;
  size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
  Token tok_;
  Graph* g_ = nullptr;
};

}  // namespace

StatusOr<std::unique_ptr<Graph>> ParseGraph(std::string_view text, const std::string& filename) {
  return Parser(text, filename).Run();
}

}  // namespace tessera::ir
