#include "tests/fuzz/fuzz_util.h"

#include <map>

namespace tessera::fuzz {

const HwConfig& Config(const std::string& name) {
  static std::map<std::string, HwConfig> configs;
  auto it = configs.find(name);
  if (it != configs.end()) return it->second;
  auto c = LoadHwConfig(std::string(TESSERA_SOURCE_DIR) + "/configs/" + name + ".json");
  if (!c.ok()) Broken("bundled config", c.status().ToString());
  return configs.emplace(name, *c).first->second;
}

}  // namespace tessera::fuzz
