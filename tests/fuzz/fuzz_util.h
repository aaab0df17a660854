// Shared by the fuzz harnesses: the configs they run with, and the one way a
// harness reports a broken invariant (abort, which every fuzzer catches).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "isa/config.h"

namespace tessera::fuzz {

// A bundled config by name ("default", "tiny"), loaded once.
const HwConfig& Config(const std::string& name);

[[noreturn]] inline void Broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz invariant broken: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace tessera::fuzz
