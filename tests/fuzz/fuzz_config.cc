// Config JSON: any text is a config or an error; a parsed config prints to
// JSON that parses back to the same fingerprint.
#include <cstdint>
#include <string>

#include "isa/config.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto c = ParseHwConfig(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!c.ok()) return 0;
  auto back = ParseHwConfig(HwConfigToJson(*c), "round trip");
  if (!back.ok()) fuzz::Broken("config round trip", back.status().ToString());
  if (back->isa_fingerprint != c->isa_fingerprint) fuzz::Broken("config round trip", "fingerprint changed");
  return 0;
}
