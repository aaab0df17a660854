// Backend-specific options. A backend declares its own (name, type, help) in
// its registration (driver/registry.h); the CLI offers every declared option
// on `exec` and `run` and passes the values through untouched; OpenDevice
// checks that each value given belongs to the target and has the declared
// type before the backend reads it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tessera {

enum class BackendOptionType { kFlag, kInt, kString };

struct BackendOption {
  std::string name;  // the command-line spelling without dashes: "vcd" is --vcd
  BackendOptionType type = BackendOptionType::kFlag;
  std::string help;
};

// Values given for backend options, by name. Flags hold "true"; the typed
// reads return `fallback` when the option was not given.
class BackendOptionValues {
 public:
  void Set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  bool empty() const { return values_.empty(); }
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  bool Flag(const std::string& name) const { return Has(name); }
  int64_t Int(const std::string& name, int64_t fallback) const;
  std::string String(const std::string& name, const std::string& fallback = "") const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace tessera
