#include "sim/loader.h"

#include "isa/config.h"
#include "sim/dram.h"

namespace tessera {

Status LoadProgram(const HwConfig& cfg, const Program& prog, Dram* dram) {
  return PlaceProgram(cfg, prog,
                      [dram](uint64_t addr, const void* src, uint64_t n) { return dram->Write(addr, src, n); });
}

Status CheckExpectations(const Program& prog, const Dram& dram, int* checked_segments) {
  return CheckExpectations(
      prog, [&dram](uint64_t addr, void* dst, uint64_t n) { return dram.Read(addr, dst, n); }, checked_segments);
}

}  // namespace tessera
