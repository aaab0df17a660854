// Random generators for tests and fuzzers: legal instructions (every field in
// range for a config) and random program objects. Deterministic per seed.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "isa/config.h"
#include "isa/program.h"

namespace tessera::testing {

// The bundled config files (the build's TESSERA_BUNDLED_CONFIGS), for tests that run over every config.
std::vector<std::string> BundledConfigPaths();
// Whether the config's DRAM holds the example programs (data up to 16 MiB) and the bundled
// ImageNet models; ice40-up5k's 128 KiB does not: it runs the workloads that fit it.
bool HoldsBundledWorkloads(const HwConfig& cfg);
// Whether a program failed to assemble only because its data does not fit the DRAM of such a config
// (the assembler's kResourceExhausted): the one reason an example may be skipped.
bool TooBigForSmallDram(const HwConfig& cfg, const Status& assembled);
// "a.json,b.json" (a list the build passes as a compile definition) split at the commas.
std::vector<std::string> ConfigPathList(const std::string& comma_separated);
HwConfig LoadConfigOrDie(const std::string& path);

// The arguments of a module-against-C++ RTL test (hw/rtl/*_test.cc):
// `PROG CONFIG.json [--seed S] [--words N]`; prints the usage and exits 2
// without a config.
struct RtlUnitArgs {
  HwConfig cfg;
  uint64_t seed = 1, words = 0;
};
RtlUnitArgs ParseRtlUnitArgs(int argc, char** argv, uint64_t default_words);
// Test-name suffix for a config path: "configs/pynq-z1.json" -> "pynq_z1".
std::string ConfigTestName(const std::string& path);
// The name generator of a suite parameterized by config paths (INSTANTIATE_TEST_SUITE_P's last argument).
struct ConfigParamName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    return ConfigTestName(info.param);
  }
};

Instruction RandomLegalInstruction(const HwConfig& cfg, std::mt19937_64& rng);
// Random instructions plus random data/uop/expect segments placed without overlap.
Program RandomProgramObject(const HwConfig& cfg, std::mt19937_64& rng, int n_insns);

}  // namespace tessera::testing
