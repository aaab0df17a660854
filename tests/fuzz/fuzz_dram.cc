// DRAM images: any bytes parse or are an error; parsed segments are written
// to a DRAM model, which refuses those outside it.
#include <cstdint>
#include <vector>

#include "isa/base/memory_image.h"
#include "sim/dram.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto image = ParseMemoryImage(std::vector<uint8_t>(data, data + size), "fuzz.dram");
  if (!image.ok()) return 0;
  Dram dram(fuzz::Config("default").dram_size_bytes);
  for (const MemorySegment& s : *image) (void)dram.Write(s.addr, s.bytes.data(), s.bytes.size());
  return 0;
}
