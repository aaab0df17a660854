#include "driver/allocator.h"

#include <iterator>

namespace tessera {
namespace {
constexpr size_t kFreedHistory = 4096;
}

RangeAllocator::RangeAllocator(std::string region, uint64_t base, uint64_t size, uint64_t alignment)
    : region_(std::move(region)), base_(base), size_(size), alignment_(alignment), free_bytes_(size) {
  TSR_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0, "alignment {} is not a power of two", alignment);
  TSR_CHECK(base % alignment == 0 && size % alignment == 0, "region {} [0x{:x}, +0x{:x}) not aligned to {}", region_,
            base, size, alignment);
  if (size > 0) free_[base] = size;
}

uint64_t RangeAllocator::largest_free_block() const {
  uint64_t best = 0;
  for (const auto& [addr, bytes] : free_) best = std::max(best, bytes);
  return best;
}

StatusOr<uint64_t> RangeAllocator::Alloc(uint64_t bytes, const std::string& tag) {
  if (bytes == 0) return InvalidArgumentError("allocation of 0 bytes for '{}' in the {} region", tag, region_);
  if (bytes > size_)
    return ResourceExhaustedError("out of device memory: '{}' needs {} bytes but the {} region holds only {} bytes",
                                  tag, bytes, region_, size_);
  const uint64_t need = (bytes + alignment_ - 1) & ~(alignment_ - 1);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t addr = it->first, rest = it->second - need;
    free_.erase(it);
    if (rest > 0) free_[addr + need] = rest;
    live_[addr] = Block{need, tag};
    freed_.erase(addr);
    free_bytes_ -= need;
    return addr;
  }
  return ResourceExhaustedError(
      "out of device memory: cannot allocate {} bytes for '{}' in the {} "
      "region ({} of {} bytes free in {} block(s), "
      "largest {} bytes)",
      bytes, tag, region_, free_bytes_, size_, free_.size(), largest_free_block());
}

Status RangeAllocator::Free(uint64_t addr) {
  auto it = live_.find(addr);
  if (it == live_.end()) {
    auto f = freed_.find(addr);
    if (f != freed_.end())
      return FailedPreconditionError("double free: device address 0x{:x} ('{}') in the {} region was already freed",
                                     addr, f->second, region_);
    return InvalidArgumentError("free of unknown device address 0x{:x}: no allocation of the {} region starts there",
                                addr, region_);
  }
  uint64_t start = addr, bytes = it->second.bytes;
  if (freed_.size() >= kFreedHistory) freed_.erase(freed_.begin());
  freed_[addr] = std::move(it->second.tag);
  live_.erase(it);
  free_bytes_ += bytes;
  // Coalesce with the free blocks on either side.
  auto next = free_.lower_bound(start);
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      bytes += prev->second;
      free_.erase(prev);
    }
  }
  if (next != free_.end() && start + bytes == next->first) {
    bytes += next->second;
    free_.erase(next);
  }
  free_[start] = bytes;
  return OkStatus();
}

const RangeAllocator::Block* RangeAllocator::Find(uint64_t addr) const {
  auto it = live_.find(addr);
  return it == live_.end() ? nullptr : &it->second;
}

}  // namespace tessera
