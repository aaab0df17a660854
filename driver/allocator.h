// First-fit allocator over a range of device (physical) addresses, with
// coalescing of freed neighbours. Every error names the region, the request
// and the state (free bytes, largest block) or the address at fault; a double
// free is told apart from a free of an address that was never allocated.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "isa/base/status.h"

namespace tessera {

class RangeAllocator {
 public:
  struct Block {
    uint64_t bytes = 0;
    std::string tag;  // what the memory is for, for messages
  };

  // Manages [base, base + size); every allocation is aligned to `alignment`
  // (a power of two) and rounded up to a multiple of it.
  RangeAllocator(std::string region, uint64_t base, uint64_t size, uint64_t alignment);

  StatusOr<uint64_t> Alloc(uint64_t bytes, const std::string& tag);
  Status Free(uint64_t addr);

  // The live allocation starting at addr, or nullptr.
  const Block* Find(uint64_t addr) const;
  bool Contains(uint64_t addr) const { return addr >= base_ && addr - base_ < size_; }

  const std::string& region() const { return region_; }
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t free_bytes() const { return free_bytes_; }
  uint64_t largest_free_block() const;
  size_t live_count() const { return live_.size(); }

 private:
  std::string region_;
  uint64_t base_, size_, alignment_;
  uint64_t free_bytes_;
  std::map<uint64_t, uint64_t> free_;      // address -> bytes, non-adjacent
  std::map<uint64_t, Block> live_;         // address -> allocation
  std::map<uint64_t, std::string> freed_;  // recently freed addresses -> tag (double-free messages)
};

}  // namespace tessera
