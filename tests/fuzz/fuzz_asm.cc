// Assembly text: any source assembles or is an error; an assembled program
// serializes to a program object that parses back with the same stream.
#include <cstdint>
#include <string>

#include "isa/asm.h"
#include "isa/program.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const HwConfig& cfg = fuzz::Config("default");
  auto p = Assemble(cfg, std::string(reinterpret_cast<const char*>(data), size), "fuzz.s");
  if (!p.ok()) return 0;
  auto bin = SerializeProgram(cfg, *p);
  if (!bin.ok()) return 0;  // e.g. a program too large for the object format
  auto back = ParseProgramObject(cfg, *bin, "round trip");
  if (!back.ok()) fuzz::Broken("program object round trip", back.status().ToString());
  if (back->insns.size() != p->insns.size()) fuzz::Broken("program object round trip", "instruction count");
  return 0;
}
