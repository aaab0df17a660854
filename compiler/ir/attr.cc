#include "compiler/ir/attr.h"

#include <fmt/core.h>

#include "compiler/ir/type.h"
#include "isa/base/check.h"

namespace tessera::ir {

AttrKind KindOf(const AttrValue& v) { return static_cast<AttrKind>(v.index()); }

const char* AttrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::kInt: return "int";
    case AttrKind::kFloat: return "float";
    case AttrKind::kString: return "string";
    case AttrKind::kInts: return "int list";
    case AttrKind::kFloats: return "float list";
  }
  return "?";
}

namespace {
template <typename T>
const T& Get(const std::map<std::string, AttrValue>& m, const std::string& name, AttrKind kind) {
  const AttrValue& v = m.at(name);
  TSR_CHECK(KindOf(v) == kind, "attribute '{}' is a {}, not a {}", name, AttrKindName(KindOf(v)), AttrKindName(kind));
  return std::get<T>(v);
}
}  // namespace

int64_t Attrs::Int(const std::string& name, int64_t dflt) const {
  return Has(name) ? Get<int64_t>(map_, name, AttrKind::kInt) : dflt;
}
float Attrs::Float(const std::string& name, float dflt) const {
  return Has(name) ? Get<float>(map_, name, AttrKind::kFloat) : dflt;
}
std::string Attrs::Str(const std::string& name, const std::string& dflt) const {
  return Has(name) ? Get<std::string>(map_, name, AttrKind::kString) : dflt;
}
std::vector<int64_t> Attrs::Ints(const std::string& name, std::vector<int64_t> dflt) const {
  return Has(name) ? Get<std::vector<int64_t>>(map_, name, AttrKind::kInts) : dflt;
}
std::vector<float> Attrs::Floats(const std::string& name, std::vector<float> dflt) const {
  return Has(name) ? Get<std::vector<float>>(map_, name, AttrKind::kFloats) : dflt;
}

std::string QuoteString(const std::string& text) {
  std::string s = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      s += fmt::format("\\x{:02x}", c);
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + "\"";
}

std::string AttrValueToString(const AttrValue& v) {
  switch (KindOf(v)) {
    case AttrKind::kInt: return std::to_string(std::get<int64_t>(v));
    case AttrKind::kFloat: return FloatToString(std::get<float>(v));
    case AttrKind::kString: return QuoteString(std::get<std::string>(v));
    case AttrKind::kInts: {
      std::string s = "[";
      const auto& xs = std::get<std::vector<int64_t>>(v);
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
      return s + "]";
    }
    case AttrKind::kFloats: {
      std::string s = "[";
      const auto& xs = std::get<std::vector<float>>(v);
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + FloatToString(xs[i]);
      return s + "]";
    }
  }
  return "";
}

}  // namespace tessera::ir
