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

// The other generated documents: the register map and the parameter table.
TEST(IsaDoc, CommittedRegisterAndConfigDocsMatchTheGenerators) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto regs = ReadTextFile("docs/registers.md");
  ASSERT_TRUE(regs.ok()) << regs.status().ToString();
  EXPECT_TRUE(*regs == GenerateRegsDoc(cfg))
      << "docs/registers.md is stale: run `build/tools/tessera isa regs -c configs/default.json -o docs/registers.md`";
  auto params = ReadTextFile("docs/config.md");
  ASSERT_TRUE(params.ok()) << params.status().ToString();
  EXPECT_TRUE(*params == GenerateConfigDoc(cfg))
      << "docs/config.md is stale: run `build/tools/tessera config doc -c configs/default.json -o docs/config.md`";
}

TEST(IsaDoc, EveryTableRowAppears) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  std::string doc = GenerateIsaDoc(cfg);
  for (const FieldInfo& f : kFields) EXPECT_NE(doc.find("`" + std::string(f.name) + "`"), std::string::npos) << f.name;
  for (const AluOpInfo& a : kAluOps) EXPECT_NE(doc.find("`" + std::string(a.name) + "`"), std::string::npos) << a.name;
  for (const MemInfo& m : kMemTypes) EXPECT_NE(doc.find("`" + std::string(m.name) + "`"), std::string::npos) << m.name;
  EXPECT_NE(doc.find("| 115..100 | `imm` | 16 |"), std::string::npos);  // ALU imm: 12 spare bits above it
}

}  // namespace
}  // namespace tessera
