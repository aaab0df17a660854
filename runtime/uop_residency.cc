#include "runtime/uop_residency.h"

#include <algorithm>

namespace tessera {

UopResidency::Entry* UopResidency::Lookup(const UopImage& img) {
  for (Entry& e : entries_)
    if (e.image.get() == &img || e.image->SameWords(img)) {
      e.last_use = ++clock_;
      return &e;
    }
  return nullptr;
}

void UopResidency::MarkSnapshot() {
  for (Entry& e : entries_) e.from_snapshot = true;
}

bool UopResidency::Holds(const UopImage& img, int64_t offset) const {
  for (const Entry& e : entries_)
    if (e.offset == offset && (e.image.get() == &img || e.image->SameWords(img))) return true;
  return false;
}

int64_t UopResidency::Place(const std::shared_ptr<const UopImage>& img, int64_t* evictions) {
  const int64_t n = static_cast<int64_t>(img->words.size());
  TSR_CHECK(n >= 1 && n <= capacity_, "uop image '{}' of {} words does not fit {} entries", img->name, n, capacity_);
  for (;;) {
    int64_t at = 0;
    size_t pos = 0;
    for (; pos < entries_.size(); ++pos) {
      if (entries_[pos].offset - at >= n) break;
      at = entries_[pos].end();
    }
    if (pos < entries_.size() || capacity_ - at >= n) {
      entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(pos), Entry{img, at, ++clock_, false});
      return at;
    }
    auto lru = std::min_element(entries_.begin(), entries_.end(),
                                [](const Entry& a, const Entry& b) { return a.last_use < b.last_use; });
    entries_.erase(lru);
    if (evictions) ++*evictions;
  }
}

void UopResidency::Assume(const std::shared_ptr<const UopImage>& img, int64_t offset) {
  const int64_t end = offset + static_cast<int64_t>(img->words.size());
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const Entry& e) { return e.offset < end && offset < e.end(); }),
                 entries_.end());
  auto pos = std::lower_bound(entries_.begin(), entries_.end(), offset,
                              [](const Entry& e, int64_t off) { return e.offset < off; });
  entries_.insert(pos, Entry{img, offset, ++clock_, false});
}

}  // namespace tessera
