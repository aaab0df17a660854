// Program objects (.bin): any bytes parse or are an error; a parsed program
// passes the layout check or is refused, and is placed in DRAM when it passes.
#include <cstdint>
#include <vector>

#include "isa/program.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const HwConfig& cfg = fuzz::Config("default");
  auto p = ParseProgramObject(cfg, std::vector<uint8_t>(data, data + size), "fuzz.bin");
  if (!p.ok()) return 0;
  if (!CheckProgramLayout(cfg, *p).ok()) return 0;
  Dram dram(cfg.dram_size_bytes);
  (void)LoadProgram(cfg, *p, &dram);
  return 0;
}
