// tessera_rtl_header CONFIG.json OUT.vh: the generated Verilog header of a
// config (the same text as `tessera isa verilog`) for the rtl backend's
// models. The build cannot run `tessera` for this: the CLI links every
// backend, this one included.
#include <fstream>
#include <iostream>

#include "hw/verilog_header.h"
#include "isa/config.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tessera_rtl_header CONFIG.json OUT.vh\n";
    return 2;
  }
  auto cfg = tessera::LoadHwConfig(argv[1]);
  if (!cfg.ok()) {
    std::cerr << cfg.status().ToString() << "\n";
    return 1;
  }
  if (tessera::Status s = tessera::ValidateForRtl(*cfg, argv[1]); !s.ok()) {
    std::cerr << s.ToString() << "\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << tessera::GenerateVerilogHeader(*cfg);
  return out.good() ? 0 : 1;
}
