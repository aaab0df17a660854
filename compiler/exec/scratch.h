// Per-thread scratch buffers for kernels (im2col columns, accumulators),
// grown on demand and reused across calls so steady-state inference does not
// allocate. Slots let one kernel hold several buffers at once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::exec {

inline constexpr int kScratchSlots = 4;

// At least `bytes` bytes, 64-byte aligned, valid until the next call with the same slot.
void* Scratch(int slot, size_t bytes);

template <typename T>
T* ScratchAs(int slot, int64_t count) {
  return static_cast<T*>(Scratch(slot, static_cast<size_t>(count) * sizeof(T)));
}

}  // namespace tessera::exec
