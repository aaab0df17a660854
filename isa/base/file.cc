#include "isa/base/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

StatusOr<MappedFile> MappedFile::Open(const std::string& path, uint64_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFoundError("{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  Status err = OkStatus();
  if (::fstat(fd, &st) != 0)
    err = DataLossError("{}: cannot stat: {}", path, std::strerror(errno));
  else if (S_ISDIR(st.st_mode))
    err = InvalidArgumentError("{}: is a directory", path);
  else if (static_cast<uint64_t>(st.st_size) > max_bytes)
    err = ResourceExhaustedError("{}: {} bytes exceeds the limit of {} bytes", path, st.st_size, max_bytes);
  MappedFile f;
  if (err.ok() && st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED)
      err = DataLossError("{}: cannot map: {}", path, std::strerror(errno));
    else
      f.data_ = static_cast<const uint8_t*>(p), f.size_ = static_cast<uint64_t>(st.st_size);
  }
  ::close(fd);
  if (!err.ok()) return err;
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    this->~MappedFile();
    data_ = o.data_, size_ = o.size_;
    o.data_ = nullptr, o.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
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
