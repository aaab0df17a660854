#include "driver/backend_options.h"

#include <cstdlib>

namespace tessera {

int64_t BackendOptionValues::Int(const std::string& name, int64_t fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : std::strtoll(it->second.c_str(), nullptr, 10);
}

std::string BackendOptionValues::String(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

}  // namespace tessera
