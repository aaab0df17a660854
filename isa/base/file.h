// File helpers returning Status: whole-file reads and writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

StatusOr<std::string> ReadTextFile(const std::string& path);
StatusOr<std::vector<uint8_t>> ReadBinaryFile(const std::string& path, uint64_t max_bytes = ~0ull);
Status WriteFile(const std::string& path, const void* data, size_t size);
inline Status WriteFile(const std::string& path, const std::string& text) {
  return WriteFile(path, text.data(), text.size());
}
inline Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  return WriteFile(path, bytes.data(), bytes.size());
}

}  // namespace tessera
