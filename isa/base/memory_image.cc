#include "isa/base/memory_image.h"

#include <cstring>

#include "isa/base/file.h"

namespace tessera {
namespace {

constexpr char kImageMagic[8] = {'T', 'S', 'R', 'D', 'R', 'A', 'M', '\0'};
constexpr uint32_t kImageVersion = 1;

void PutLe(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

Status SaveMemoryImage(const std::string& path, const std::vector<MemorySegment>& segments) {
  std::vector<uint8_t> out(kImageMagic, kImageMagic + sizeof(kImageMagic));
  PutLe(out, kImageVersion, 4);
  PutLe(out, segments.size(), 4);
  for (const MemorySegment& s : segments) {
    PutLe(out, s.addr, 8);
    PutLe(out, s.bytes.size(), 8);
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  return WriteFile(path, out);
}

StatusOr<std::vector<MemorySegment>> LoadMemoryImage(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> in, ReadBinaryFile(path));
  return ParseMemoryImage(in, path);
}

StatusOr<std::vector<MemorySegment>> ParseMemoryImage(const std::vector<uint8_t>& in, const std::string& path) {
  auto le = [&](size_t pos, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(in[pos + i]) << (8 * i);
    return v;
  };
  if (in.size() < 16 || std::memcmp(in.data(), kImageMagic, sizeof(kImageMagic)) != 0)
    return InvalidArgumentError("{}: not a Tessera DRAM image (bad magic)", path);
  if (le(8, 4) != kImageVersion)
    return InvalidArgumentError("{}: DRAM image version {} is not supported", path, le(8, 4));
  const uint64_t count = le(12, 4);
  std::vector<MemorySegment> out;
  size_t pos = 16;
  for (uint64_t i = 0; i < count; ++i) {
    if (in.size() - pos < 16) return DataLossError("{}: truncated header of segment {}", path, i);
    const uint64_t addr = le(pos, 8), len = le(pos + 8, 8);
    pos += 16;
    if (len > in.size() - pos)
      return DataLossError("{}: segment {} claims {} bytes, {} left", path, i, len, in.size() - pos);
    out.push_back(MemorySegment{addr, std::vector<uint8_t>(in.begin() + pos, in.begin() + pos + len)});
    pos += len;
  }
  if (pos != in.size()) return DataLossError("{}: {} trailing bytes", path, in.size() - pos);
  return out;
}

}  // namespace tessera
