#include "tools/tessera/backend_flags.h"

#include <map>

#include "driver/registry.h"

namespace tessera::cli {

std::string TargetHelp(bool devices_only) {
  std::string s;
  for (const BackendInfo& b : Backends())
    if (b.built() && (b.is_device() || !devices_only)) s += (s.empty() ? "" : "; ") + b.name + ": " + b.description;
  return s;
}

void AddBackendFlags(CLI::App* cmd, BackendOptionValues* values) {
  // name -> (declaration, targets declaring it)
  std::map<std::string, std::pair<BackendOption, std::string>> flags;
  for (const BackendInfo& b : Backends()) {
    if (!b.built()) continue;
    for (const BackendOption& o : b.options) {
      auto [it, fresh] = flags.emplace(o.name, std::make_pair(o, b.name));
      if (!fresh) it->second.second += "|" + b.name;
    }
  }
  for (const auto& [name, decl] : flags) {
    const BackendOption& o = decl.first;
    const std::string help = decl.second + ": " + o.help, flag = "--" + name, key = name;
    if (o.type == BackendOptionType::kFlag) {
      cmd->add_flag_callback(
          flag, [values, key] { values->Set(key, "true"); }, help);
    } else {
      cmd->add_option_function<std::string>(
             flag, [values, key](const std::string& v) { values->Set(key, v); }, help)
          ->type_name(o.type == BackendOptionType::kInt ? "INT" : "TEXT");
    }
  }
}

}  // namespace tessera::cli
