#include "compiler/ir/printer.h"

#include <fmt/format.h>

#include "compiler/ir/graph.h"
#include "compiler/ir/lexer.h"

namespace tessera::ir {
namespace {

std::string Ident(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name) plain &= text::IsNameChar(c);
  return plain ? name : QuoteString(name);
}

void AppendHex(const Tensor& t, std::string* out) {
  static const char kDigits[] = "0123456789abcdef";
  const uint8_t* p = t.raw();
  const size_t n = t.nbytes();
  size_t pos = out->size();
  out->resize(pos + 2 + 2 * n);
  (*out)[pos++] = '0';
  (*out)[pos++] = 'x';
  for (size_t i = 0; i < n; ++i) {
    (*out)[pos++] = kDigits[p[i] >> 4];
    (*out)[pos++] = kDigits[p[i] & 15];
  }
}

void AppendList(const Tensor& t, std::string* out) {
  *out += '[';
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (i) *out += ", ";
    switch (t.dtype()) {
      case DType::kF32: *out += FloatToString(t.data<float>()[i]); break;
      case DType::kI64: *out += std::to_string(t.data<int64_t>()[i]); break;
      default: *out += std::to_string(static_cast<int64_t>(t.GetAsDouble(i))); break;
    }
  }
  *out += ']';
}

}  // namespace

std::string ValueRef(const std::string& name) { return "%" + Ident(name); }

std::string PrintGraph(const Graph& g, const PrintOptions& opt) {
  std::string s = "graph @" + Ident(g.name()) + "(";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Value* in = g.inputs()[i];
    s += (i ? ", " : "") + ValueRef(in->name()) + ": " + TypeToString(in->type());
  }
  s += ") {\n";
  for (const Value* c : g.constants()) {
    s += "  " + ValueRef(c->name()) + ": " + TypeToString(c->type()) + " = const ";
    if (c->data().numel() <= opt.list_limit)
      AppendList(c->data(), &s);
    else if (opt.elide_constants)
      s += "<elided>";
    else
      AppendHex(c->data(), &s);
    s += '\n';
  }
  for (const Node* n : g.nodes()) {
    s += "  ";
    for (int i = 0; i < n->num_outputs(); ++i)
      s += (i ? ", " : "") + ValueRef(n->output(i)->name()) + ": " + TypeToString(n->output(i)->type());
    s += " = " + n->op() + "(";
    for (int i = 0; i < n->num_inputs(); ++i) s += (i ? ", " : "") + ValueRef(n->input(i)->name());
    s += ")";
    if (!n->attrs().empty()) {
      s += " {";
      bool first = true;
      for (const auto& [k, v] : n->attrs().map()) {
        s += (first ? "" : ", ") + k + "=" + AttrValueToString(v);
        first = false;
      }
      s += "}";
    }
    if (!n->name().empty()) s += " @" + Ident(n->name());
    s += '\n';
  }
  s += "  return";
  for (size_t i = 0; i < g.outputs().size(); ++i) s += (i ? ", " : " ") + ValueRef(g.outputs()[i]->name());
  s += "\n}\n";
  return s;
}

}  // namespace tessera::ir
