// Shared by the simulator benchmarks: a config from configs/ and a program
// from examples/programs/, loaded once, and a fresh DRAM image per iteration.
// Load failures abort with the culprit named (a benchmark has no other input).
#pragma once

#include <memory>
#include <string>

#include "isa/asm.h"
#include "isa/base/check.h"
#include "isa/config.h"
#include "sim/dram.h"
#include "sim/loader.h"

namespace tessera::bench {

struct BenchProgram {
  HwConfig cfg;
  Program prog;
};

inline BenchProgram LoadBenchProgram(const std::string& program, const std::string& config) {
  const std::string src = TESSERA_SOURCE_DIR;
  auto cfg = LoadHwConfig(src + "/configs/" + config + ".json");
  TSR_CHECK(cfg.ok(), "{}", cfg.status().ToString());
  auto prog = AssembleFile(*cfg, src + "/examples/programs/" + program + ".s");
  TSR_CHECK(prog.ok(), "{}", prog.status().ToString());
  return {*cfg, *prog};
}

// DRAM holding the program's text and data segments.
inline std::unique_ptr<Dram> FreshDram(const BenchProgram& b) {
  auto dram = std::make_unique<Dram>(b.cfg.dram_size_bytes);
  Status st = LoadProgram(b.cfg, b.prog, dram.get());
  TSR_CHECK(st.ok(), "{}", st.ToString());
  return dram;
}

}  // namespace tessera::bench
