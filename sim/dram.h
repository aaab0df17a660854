// Sparse byte-addressed DRAM model shared by every engine. Pages are
// allocated on first write; unwritten memory reads as zero. Every access is
// bounds-checked against the configured size. DRAM images (save/load) use the
// segment format of docs/formats.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

class Dram {
 public:
  static constexpr uint64_t kPageBytes = uint64_t{1} << 16;

  explicit Dram(uint64_t size_bytes) : size_(size_bytes) {}
  uint64_t size() const { return size_; }

  bool InBounds(uint64_t addr, uint64_t n) const { return addr <= size_ && n <= size_ - addr; }
  // Out-of-range accesses return kOutOfRange naming the range.
  Status Read(uint64_t addr, void* dst, uint64_t n) const;
  Status Write(uint64_t addr, const void* src, uint64_t n);
  // Unchecked variants for callers that have already bounds-checked.
  void ReadUnchecked(uint64_t addr, void* dst, uint64_t n) const;
  void WriteUnchecked(uint64_t addr, const void* src, uint64_t n);
  void FillUnchecked(uint64_t addr, uint8_t value, uint64_t n);

  // Allocated pages as coalesced (address, bytes) segments, and just their ranges.
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> Segments() const;
  std::vector<std::pair<uint64_t, uint64_t>> AllocatedRanges() const;
  uint64_t allocated_bytes() const { return pages_.size() * kPageBytes; }

  // DRAM image files: "TSRDRAM\0", u32 version, u32 count, then per segment
  // u64 address, u64 length, bytes (all little-endian).
  Status SaveImage(const std::string& path) const;
  Status LoadImage(const std::string& path);

 private:
  // `overwrite`: the caller writes the whole page, so a new one is not zeroed first.
  uint8_t* Page(uint64_t page_index, bool overwrite = false);
  const uint8_t* PageIfPresent(uint64_t page_index) const;

  uint64_t size_;
  std::map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  // One-entry caches of the last page touched (reads and writes dominate by rows).
  mutable uint64_t last_index_ = ~0ull;
  mutable uint8_t* last_page_ = nullptr;
};

}  // namespace tessera
