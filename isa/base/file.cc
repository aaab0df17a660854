#include "isa/base/file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tessera {
namespace {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

}  // namespace

StatusOr<std::vector<uint8_t>> ReadBinaryFile(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return NotFoundError("{}: cannot open: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return InvalidArgumentError("{}: is a directory", path);
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return ResourceExhaustedError("{}: {} bytes exceeds the limit of {} bytes", path, st.st_size, max_bytes);
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return NotFoundError("{}: cannot open: {}", path, std::strerror(errno));
  std::vector<uint8_t> data(static_cast<size_t>(st.st_size));
  if (!data.empty() && std::fread(data.data(), 1, data.size(), f.get()) != data.size())
    return DataLossError("{}: short read", path);
  return data;
}

StatusOr<std::string> ReadTextFile(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(path));
  return std::string(bytes.begin(), bytes.end());
}

Status WriteFile(const std::string& path, const void* data, size_t size) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f) return NotFoundError("{}: cannot create: {}", path, std::strerror(errno));
  if (size && std::fwrite(data, 1, size, f.get()) != size)
    return DataLossError("{}: write failed: {}", path, std::strerror(errno));
  if (std::fclose(f.release()) != 0) return DataLossError("{}: close failed: {}", path, std::strerror(errno));
  return OkStatus();
}

}  // namespace tessera
