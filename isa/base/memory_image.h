// Memory images: byte segments at addresses. The DRAM image file ("TSRDRAM\0",
// u32 version, u32 count, then per segment u64 address, u64 length, bytes; all
// little-endian; docs/formats.md) is read and written here for every engine
// and device, which place or collect the segments themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

struct MemorySegment {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

Status SaveMemoryImage(const std::string& path, const std::vector<MemorySegment>& segments);
// Checks the header and every segment's length against the file (errors name the file and segment).
StatusOr<std::vector<MemorySegment>> LoadMemoryImage(const std::string& path);
// The same for an image held in memory, named `path` in messages.
StatusOr<std::vector<MemorySegment>> ParseMemoryImage(const std::vector<uint8_t>& bytes, const std::string& path);

}  // namespace tessera
