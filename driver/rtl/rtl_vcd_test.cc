// `--vcd` on the rtl backend. Models Verilated with --trace
// (-DTESSERA_RTL_VCD=ON) write the run's waveform; the default models (no
// --trace, for speed) refuse the option at open with a FailedPrecondition
// that says how to build them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/program.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

TEST(RtlVcd, WritesTheWaveformOrSaysHowToBuildModelsThatCan) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  const std::string path = (std::filesystem::temp_directory_path() / "tessera_rtl_vcd_test.vcd").string();
  std::filesystem::remove(path);
  DeviceOptions opts;
  opts.backend.Set("vcd", path);
  auto dev = OpenDevice("rtl", cfg, opts);
#if TESSERA_RTL_VCD
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  auto prog = AssembleFile(cfg, "examples/programs/gemm_small.s");
  ASSERT_TRUE(prog.ok()) << prog.status().ToString();
  Device& d = **dev;
  ASSERT_TRUE(
      PlaceProgram(cfg, *prog, [&](uint64_t a, const void* src, uint64_t n) { return d.Write(a, src, n); }).ok());
  ASSERT_TRUE(d.Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 0).ok());
  dev->reset();  // closes the file
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("$version", 0), 0u);
  EXPECT_NE(text.str().find("m_axi_araddr"), std::string::npos);
  EXPECT_NE(text.str().find("\n#"), std::string::npos);  // value changes over time
  std::filesystem::remove(path);
#else
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(dev.status().message().find("-DTESSERA_RTL_VCD=ON"), std::string::npos) << dev.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(path));
#endif
}

}  // namespace
}  // namespace tessera
