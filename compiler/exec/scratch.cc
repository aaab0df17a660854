#include "compiler/exec/scratch.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "isa/base/check.h"

namespace tessera::exec {
namespace {

struct Slot {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> ptr;
  size_t size = 0;
};

}  // namespace

void* Scratch(int slot, size_t bytes) {
  thread_local Slot slots[kScratchSlots];
  TSR_CHECK(slot >= 0 && slot < kScratchSlots, "scratch slot {} out of range", slot);
  Slot& s = slots[slot];
  if (bytes > s.size || !s.ptr) {
    const size_t size = (std::max<size_t>(bytes, 64) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, size);
    TSR_CHECK(p != nullptr, "out of memory allocating {} bytes of scratch", size);
    s.ptr.reset(p);
    s.size = size;
  }
  return s.ptr.get();
}

}  // namespace tessera::exec
