// Node attributes: a sorted name -> value map. Kinds are int, float, string,
// int list and float list; each op declares the kinds of its attributes
// (compiler/ir/ops.h), which the parser and the verifier use.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tessera::ir {

enum class AttrKind : uint8_t { kInt, kFloat, kString, kInts, kFloats };

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>>;

AttrKind KindOf(const AttrValue& v);
const char* AttrKindName(AttrKind k);

class Attrs {
 public:
  bool Has(const std::string& name) const { return map_.count(name) != 0; }
  void Set(const std::string& name, AttrValue v) { map_[name] = std::move(v); }
  void Erase(const std::string& name) { map_.erase(name); }
  const std::map<std::string, AttrValue>& map() const { return map_; }
  bool empty() const { return map_.empty(); }

  // Typed getters: the default when absent. A present attribute of the wrong
  // kind is an internal error (the verifier rejects it first).
  int64_t Int(const std::string& name, int64_t dflt = 0) const;
  float Float(const std::string& name, float dflt = 0.f) const;
  std::string Str(const std::string& name, const std::string& dflt = "") const;
  std::vector<int64_t> Ints(const std::string& name, std::vector<int64_t> dflt = {}) const;
  std::vector<float> Floats(const std::string& name, std::vector<float> dflt = {}) const;

  bool operator==(const Attrs& o) const { return map_ == o.map_; }

 private:
  std::map<std::string, AttrValue> map_;
};

// "text" with \" \\ and \xNN escapes (bytes outside printable ASCII).
std::string QuoteString(const std::string& text);
// "[1, 2]", "0.5", "\"relu\"" — the text form used by the printer.
std::string AttrValueToString(const AttrValue& v);

}  // namespace tessera::ir
