#include "sim/dram.h"

#include <cstring>

#include "isa/base/memory_image.h"

namespace tessera {

uint8_t* Dram::Page(uint64_t index, bool overwrite) {
  if (index == last_index_) return last_page_;
  auto& p = pages_[index];
  if (!p) {
    p.reset(new uint8_t[kPageBytes]);
    if (!overwrite) std::memset(p.get(), 0, kPageBytes);
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
    std::memcpy(Page(addr / kPageBytes, chunk == kPageBytes) + off, in, chunk);
    in += chunk, addr += chunk, n -= chunk;
  }
}

void Dram::FillUnchecked(uint64_t addr, uint8_t value, uint64_t n) {
  while (n > 0) {
    uint64_t off = addr % kPageBytes;
    uint64_t chunk = std::min(n, kPageBytes - off);
    std::memset(Page(addr / kPageBytes, chunk == kPageBytes) + off, value, chunk);
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

std::vector<std::pair<uint64_t, uint64_t>> Dram::AllocatedRanges() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [index, page] : pages_) {
    const uint64_t addr = index * kPageBytes;
    if (!out.empty() && out.back().first + out.back().second == addr)
      out.back().second += kPageBytes;
    else
      out.emplace_back(addr, kPageBytes);
  }
  return out;
}

Status Dram::SaveImage(const std::string& path) const {
  std::vector<MemorySegment> image;
  for (auto& [addr, bytes] : Segments()) image.push_back(MemorySegment{addr, std::move(bytes)});
  return SaveMemoryImage(path, image);
}

Status Dram::LoadImage(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<MemorySegment> image, LoadMemoryImage(path));
  for (size_t i = 0; i < image.size(); ++i) {
    Status s = Write(image[i].addr, image[i].bytes.data(), image[i].bytes.size());
    if (!s.ok()) return s.WithContext(fmt::format("{}: segment {}", path, i));
  }
  return OkStatus();
}

}  // namespace tessera
