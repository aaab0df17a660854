#include "sim/dram.h"

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

uint8_t* Dram::Page(uint64_t index) {
  if (index == last_index_) return last_page_;
  auto& p = pages_[index];
  if (!p) {
    p.reset(new uint8_t[kPageBytes]);
    std::memset(p.get(), 0, kPageBytes);
  }
  last_index_ = index;
  last_page_ = p.get();
  return p.get();
}

const uint8_t* Dram::PageIfPresent(uint64_t index) const {
  if (index == last_index_) return last_page_;
  auto it = pages_.find(index);
  if (it == pages_.end()) return nullptr;
  last_index_ = index;
  last_page_ = it->second.get();
  return last_page_;
}

void Dram::ReadUnchecked(uint64_t addr, void* dst, uint64_t n) const {
  uint8_t* out = static_cast<uint8_t*>(dst);
  while (n > 0) {
    uint64_t off = addr % kPageBytes;
    uint64_t chunk = std::min(n, kPageBytes - off);
    const uint8_t* page = PageIfPresent(addr / kPageBytes);
    if (page)
      std::memcpy(out, page + off, chunk);
    else
      std::memset(out, 0, chunk);
    out += chunk, addr += chunk, n -= chunk;
  }
}

void Dram::WriteUnchecked(uint64_t addr, const void* src, uint64_t n) {
  const uint8_t* in = static_cast<const uint8_t*>(src);
  while (n > 0) {
    uint64_t off = addr % kPageBytes;
    uint64_t chunk = std::min(n, kPageBytes - off);
    std::memcpy(Page(addr / kPageBytes) + off, in, chunk);
    in += chunk, addr += chunk, n -= chunk;
  }
}

void Dram::FillUnchecked(uint64_t addr, uint8_t value, uint64_t n) {
  while (n > 0) {
    uint64_t off = addr % kPageBytes;
    uint64_t chunk = std::min(n, kPageBytes - off);
    std::memset(Page(addr / kPageBytes) + off, value, chunk);
    addr += chunk, n -= chunk;
  }
}

Status Dram::Read(uint64_t addr, void* dst, uint64_t n) const {
  if (!InBounds(addr, n))
    return OutOfRangeError("DRAM read [0x{:x}, 0x{:x}) is outside DRAM of {} bytes", addr, addr + n, size_);
  ReadUnchecked(addr, dst, n);
  return OkStatus();
}

Status Dram::Write(uint64_t addr, const void* src, uint64_t n) {
  if (!InBounds(addr, n))
    return OutOfRangeError("DRAM write [0x{:x}, 0x{:x}) is outside DRAM of {} bytes", addr, addr + n, size_);
  WriteUnchecked(addr, src, n);
  return OkStatus();
}

std::vector<std::pair<uint64_t, std::vector<uint8_t>>> Dram::Segments() const {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> out;
  for (const auto& [index, page] : pages_) {
    uint64_t addr = index * kPageBytes;
    if (!out.empty() && out.back().first + out.back().second.size() == addr) {
      out.back().second.insert(out.back().second.end(), page.get(), page.get() + kPageBytes);
    } else {
      out.emplace_back(addr, std::vector<uint8_t>(page.get(), page.get() + kPageBytes));
    }
  }
  return out;
}

Status Dram::SaveImage(const std::string& path) const {
  auto segs = Segments();
  std::vector<uint8_t> out(kImageMagic, kImageMagic + sizeof(kImageMagic));
  PutLe(out, kImageVersion, 4);
  PutLe(out, segs.size(), 4);
  for (const auto& [addr, bytes] : segs) {
    PutLe(out, addr, 8);
    PutLe(out, bytes.size(), 8);
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
  return WriteFile(path, out);
}

Status Dram::LoadImage(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> in, ReadBinaryFile(path));
  auto le = [&](size_t pos, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(in[pos + i]) << (8 * i);
    return v;
  };
  if (in.size() < 16 || std::memcmp(in.data(), kImageMagic, sizeof(kImageMagic)) != 0)
    return InvalidArgumentError("{}: not a Tessera DRAM image (bad magic)", path);
  if (le(8, 4) != kImageVersion)
    return InvalidArgumentError("{}: DRAM image version {} is not supported", path, le(8, 4));
  uint64_t count = le(12, 4);
  size_t pos = 16;
  for (uint64_t i = 0; i < count; ++i) {
    if (in.size() - pos < 16) return DataLossError("{}: truncated header of segment {}", path, i);
    uint64_t addr = le(pos, 8), len = le(pos + 8, 8);
    pos += 16;
    if (len > in.size() - pos)
      return DataLossError("{}: segment {} claims {} bytes, {} left", path, i, len, in.size() - pos);
    Status s = Write(addr, in.data() + pos, len);
    if (!s.ok()) return s.WithContext(fmt::format("{}: segment {}", path, i));
    pos += len;
  }
  if (pos != in.size()) return DataLossError("{}: {} trailing bytes", path, in.size() - pos);
  return OkStatus();
}

}  // namespace tessera
