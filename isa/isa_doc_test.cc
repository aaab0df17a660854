#include "isa/isa_doc.h"

#include <gtest/gtest.h>

#include "isa/base/file.h"
#include "isa/config.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

TEST(IsaDoc, CommittedDocMatchesTheGenerator) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto committed = ReadTextFile("docs/isa.md");
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_TRUE(*committed == GenerateIsaDoc(cfg))
      << "docs/isa.md is stale: run `build/tools/tessera isa doc -c configs/default.json -o docs/isa.md`";
}

TEST(IsaDoc, EveryTableRowAppears) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  std::string doc = GenerateIsaDoc(cfg);
  for (const FieldInfo& f : kFields) EXPECT_NE(doc.find("`" + std::string(f.name) + "`"), std::string::npos) << f.name;
  for (const AluOpInfo& a : kAluOps) EXPECT_NE(doc.find("`" + std::string(a.name) + "`"), std::string::npos) << a.name;
  for (const MemInfo& m : kMemTypes) EXPECT_NE(doc.find("`" + std::string(m.name) + "`"), std::string::npos) << m.name;
  EXPECT_NE(doc.find("| 126..111 | `imm` | 16 |"), std::string::npos);  // ALU imm: the last 16 of 127 bits
}

TEST(VerilogHeader, PositionsMatchTheLayoutOnEveryConfig) {
  for (const std::string& path : testing::BundledConfigPaths()) {
    HwConfig cfg = testing::LoadConfigOrDie(path);
    std::string v = GenerateVerilogHeader(cfg);
    const FieldSlot& s = cfg.layout.slot(Format::kGemm, FieldId::uop_end);
    EXPECT_NE(v.find("localparam integer TSR_GEMM_UOP_END_LSB = " + std::to_string(s.lsb) + ";"), std::string::npos);
    EXPECT_NE(v.find("localparam integer TSR_GEMM_UOP_END_W = " + std::to_string(s.width) + ";"), std::string::npos);
    EXPECT_NE(v.find("localparam integer TSR_BLOCK_OUT = " + std::to_string(cfg.block_out) + ";"), std::string::npos);
    EXPECT_NE(v.find("localparam integer TSR_ALU_MULSHR = 5;"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera
