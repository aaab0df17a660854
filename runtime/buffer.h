// Buffer: a handle to a DMA-able allocation in the device's data region,
// created and freed by a Runtime. Copyable; the Runtime tracks liveness, so a
// handle to a freed buffer is rejected wherever it is used.
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

class Buffer {
 public:
  Buffer() = default;
  bool valid() const { return id_ != 0; }
  uint64_t id() const { return id_; }      // unique per Runtime, never reused
  uint64_t phys() const { return phys_; }  // device (physical) byte address
  uint64_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }

 private:
  friend class Runtime;
  Buffer(uint64_t owner, uint64_t id, uint64_t phys, uint64_t bytes, std::string name)
      : owner_(owner), id_(id), phys_(phys), bytes_(bytes), name_(std::move(name)) {}
  uint64_t owner_ = 0;  // serial number of the Runtime that allocated it
  uint64_t id_ = 0, phys_ = 0, bytes_ = 0;
  std::string name_;
};

}  // namespace tessera
