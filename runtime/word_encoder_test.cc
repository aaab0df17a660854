// WordEncoder agrees with the ISA's validating encoder on random legal
// instructions of every config.
#include "runtime/word_encoder.h"

#include <gtest/gtest.h>

#include "isa/asm.h"
#include "isa/encoding.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

TEST(WordEncoder, MatchesEncodeOnRandomLegalInstructions) {
  for (const std::string& path : testing::BundledConfigPaths()) {
    SCOPED_TRACE(path);
    HwConfig cfg = testing::LoadConfigOrDie(path);
    WordEncoder enc(cfg);
    std::mt19937_64 rng(42);
    for (int i = 0; i < 20000; ++i) {
      Instruction in = testing::RandomLegalInstruction(cfg, rng);
      auto w = Encode(cfg, in);
      ASSERT_TRUE(w.ok()) << w.status().ToString();
      ASSERT_EQ(enc.Encode(in), *w) << FormatInstruction(cfg, in);
    }
  }
}

}  // namespace
}  // namespace tessera
