// File helpers returning Status: whole-file reads and writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

StatusOr<std::string> ReadTextFile(const std::string& path);
StatusOr<std::vector<uint8_t>> ReadBinaryFile(const std::string& path, uint64_t max_bytes = ~0ull);

// A whole file mapped read-only (pages come from the page cache, populated in
// one call: no buffer to allocate, zero and copy into). For large inputs that
// are parsed once (.tsr, .onnx). Move-only; unmapped on destruction.
class MappedFile {
 public:
  static StatusOr<MappedFile> Open(const std::string& path, uint64_t max_bytes = ~0ull);
  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};
Status WriteFile(const std::string& path, const void* data, size_t size);
inline Status WriteFile(const std::string& path, const std::string& text) {
  return WriteFile(path, text.data(), text.size());
}
inline Status WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  return WriteFile(path, bytes.data(), bytes.size());
}

}  // namespace tessera
