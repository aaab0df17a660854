// Recursive-descent parser over the lexer of lexer.h. Grammar (docs/compiler.md):
//   graph  := 'graph' '@' name '(' [param {',' param}] ')' '{' {stmt} 'return' refs '}'
//   stmt   := def {',' def} '=' ( 'const' literal | op '(' [refs] ')' [attrs] ['@' name] )
//   def    := '%' name ':' type ;  type := dtype '[' dims ']' ['<' quant '>']
#include "compiler/ir/parser.h"

#include <fmt/format.h>

#include <cstdint>

#include "compiler/ir/graph.h"
#include "compiler/ir/lexer.h"
#include "compiler/ir/ops.h"

namespace tessera::ir {
namespace text {
namespace {

class Parser : Lexer {
 public:
  Parser(std::string_view text, std::string filename) : Lexer(text, std::move(filename)) {}

  StatusOr<std::unique_ptr<Graph>> Run() {
    TSR_RETURN_IF_ERROR(Next());
    TSR_RETURN_IF_ERROR(ExpectIdent("graph"));
    if (tok().kind != Tok::kAt)
      return Error(tok(), fmt::format("expected '@name' after 'graph', got {}", Describe(tok())));
    std::string gname = tok().text;
    TSR_RETURN_IF_ERROR(Next());
    auto g = std::make_unique<Graph>(gname);
    g_ = g.get();
    TSR_RETURN_IF_ERROR(ExpectPunct("("));
    if (!IsPunct(")")) {
      while (true) {
        Token at = tok();
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
    while (!(tok().kind == Tok::kIdent && tok().text == "return")) TSR_RETURN_IF_ERROR(ParseStatement());
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
    if (tok().kind != Tok::kEnd) return Error(tok(), "unexpected '" + tok().text + "' after the graph");
    return g;
  }

 private:
  Status CheckFresh(const std::string& name, const Token& at) {
    if (g_->FindValue(name)) return Error(at, fmt::format("value '%{}' is defined twice", name));
    return OkStatus();
  }

  Status ParseRef(Value** v) {
    if (tok().kind != Tok::kValue) return Error(tok(), fmt::format("expected a value, got {}", Describe(tok())));
    *v = g_->FindValue(tok().text);
    if (!*v) return Error(tok(), fmt::format("use of undefined value '%{}'", tok().text));
    return Next();
  }

  Status ParseType(TensorType* t) {
    if (tok().kind != Tok::kIdent) return Error(tok(), fmt::format("expected a type, got {}", Describe(tok())));
    auto dt = ParseDType(tok().text);
    if (!dt) return Error(tok(), fmt::format("unknown element type '{}'", tok().text));
    t->dtype = *dt;
    TSR_RETURN_IF_ERROR(Next());
    t->shape.clear();
    TSR_RETURN_IF_ERROR(ParseIntList(&t->shape));
    t->quant.reset();
    if (!IsPunct("<")) return OkStatus();
    Token at = tok();
    TSR_RETURN_IF_ERROR(Next());
    QuantParams q;
    bool have_zp = false;
    while (!IsPunct(">")) {
      if (tok().kind != Tok::kIdent) return Error(tok(), "expected 'axis', 's' or 'zp'");
      const std::string key = tok().text;
      TSR_RETURN_IF_ERROR(Next());
      TSR_RETURN_IF_ERROR(ExpectPunct("="));
      if (key == "axis") {
        int64_t a;
        TSR_RETURN_IF_ERROR(ParseInt(tok(), &a));
        q.axis = static_cast<int>(a);
        TSR_RETURN_IF_ERROR(Next());
      } else if (key == "s") {
        if (IsPunct("[")) {
          TSR_RETURN_IF_ERROR(ParseFloatList(&q.scale));
        } else {
          float s;
          TSR_RETURN_IF_ERROR(ParseFloat(tok(), &s));
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
          TSR_RETURN_IF_ERROR(ParseInt(tok(), &z));
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
    if (tok().kind != Tok::kValue) return Error(tok(), fmt::format("expected a value name, got {}", Describe(tok())));
    *name = tok().text;
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
    if (IsPunct("<")) return Error(tok(), fmt::format("constant '%{}' was printed with elided data", name));
    if (tok().kind == Tok::kNumber && tok().text.rfind("0x", 0) == 0) {
      const std::string& h = tok().text;
      if (h.size() - 2 != 2 * nbytes)
        return Error(tok(),
                     fmt::format("constant '%{}' needs {} bytes of data, got {}", name, nbytes, (h.size() - 2) / 2));
      *out = Tensor(type.dtype, type.shape);
      uint8_t* p = out->raw();
      for (size_t i = 0; i < out->nbytes(); ++i) {
        int hi = HexDigit(h[2 + 2 * i]), lo = HexDigit(h[3 + 2 * i]);
        if (hi < 0 || lo < 0) return Error(tok(), "bad hex digit in constant data");
        p[i] = static_cast<uint8_t>(hi << 4 | lo);
      }
      return Next();
    }
    Token list_at = tok();
    // Each element takes at least one character of what is left of the file.
    if (static_cast<uint64_t>(numel) > BytesLeft() + 1)
      return Error(list_at, fmt::format("constant '%{}' declares {} elements but the file has only {} bytes left", name,
                                        numel, BytesLeft()));
    *out = Tensor(type.dtype, type.shape);
    TSR_RETURN_IF_ERROR(ExpectPunct("["));
    int64_t i = 0;
    while (!IsPunct("]")) {
      if (i >= out->numel()) return Error(tok(), fmt::format("too many elements for constant '%{}'", name));
      if (type.dtype == DType::kF32) {
        TSR_RETURN_IF_ERROR(ParseFloat(tok(), &out->data<float>()[i]));
      } else {
        int64_t v;
        TSR_RETURN_IF_ERROR(ParseInt(tok(), &v));
        if (v < DTypeMin(type.dtype) || v > DTypeMax(type.dtype))
          return Error(tok(), fmt::format("{} out of range for {}", v, DTypeName(type.dtype)));
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
    if (tok().kind != Tok::kIdent)
      return Error(tok(), fmt::format("expected an attribute name, got {}", Describe(tok())));
    Token at = tok();
    const std::string key = tok().text;
    const AttrDef* ad = def->FindAttr(key);
    if (!ad) return Error(at, fmt::format("op '{}' has no attribute '{}'", op, key));
    if (attrs->Has(key)) return Error(at, fmt::format("attribute '{}' given twice", key));
    TSR_RETURN_IF_ERROR(Next());
    TSR_RETURN_IF_ERROR(ExpectPunct("="));
    switch (ad->kind) {
      case AttrKind::kInt: {
        int64_t v;
        TSR_RETURN_IF_ERROR(ParseInt(tok(), &v));
        attrs->Set(key, v);
        return Next();
      }
      case AttrKind::kFloat: {
        float v;
        TSR_RETURN_IF_ERROR(ParseFloat(tok(), &v));
        attrs->Set(key, v);
        return Next();
      }
      case AttrKind::kString: {
        if (tok().kind != Tok::kString) return Error(tok(), fmt::format("attribute '{}' must be a string", key));
        attrs->Set(key, tok().text);
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
      def_at.push_back(tok());
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
    if (tok().kind != Tok::kIdent) return Error(tok(), fmt::format("expected an op name, got {}", Describe(tok())));
    Token op_at = tok();
    const std::string op = tok().text;
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
    if (tok().kind == Tok::kAt) {
      node_name = tok().text;
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

  Graph* g_ = nullptr;
};

}  // namespace
}  // namespace text

StatusOr<std::unique_ptr<Graph>> ParseGraph(std::string_view text, const std::string& filename) {
  return text::Parser(text, filename).Run();
}

}  // namespace tessera::ir
