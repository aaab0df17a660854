// A model of the uop scratchpad's contents: which UopImages are resident at
// which entry ranges. Placement is first-fit; when no gap is large enough the
// least recently used image is evicted, repeatedly, until one is. The JIT
// keeps one per stream (what the device will hold as the stream executes) and
// the Runtime one for the device between runs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/kernel.h"

namespace tessera {

class UopResidency {
 public:
  struct Entry {
    std::shared_ptr<const UopImage> image;
    int64_t offset = 0;
    uint64_t last_use = 0;
    bool from_snapshot = false;  // placed before the stream began (not loaded by it)
    int64_t end() const { return offset + static_cast<int64_t>(image->words.size()); }
  };

  explicit UopResidency(int64_t capacity = 0) : capacity_(capacity) {}

  // The entry holding the image (marked used), or nullptr.
  Entry* Lookup(const UopImage& img);
  // Places an image that is not resident, evicting LRU images until it fits
  // (the caller ensures it fits the whole buffer). Returns the offset.
  int64_t Place(const std::shared_ptr<const UopImage>& img, int64_t* evictions = nullptr);
  // Records that `img` occupies [offset, offset + size), dropping overlapped entries.
  void Assume(const std::shared_ptr<const UopImage>& img, int64_t offset);
  // Marks every entry as present before a stream began.
  void MarkSnapshot();
  bool Holds(const UopImage& img, int64_t offset) const;

  const std::vector<Entry>& entries() const { return entries_; }  // sorted by offset
  int64_t capacity() const { return capacity_; }
  void Clear() { entries_.clear(); }

 private:
  int64_t capacity_;
  uint64_t clock_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace tessera
