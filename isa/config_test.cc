#include "isa/config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tessera {
namespace {

const char* kConfigs[] = {"configs/default.json", "configs/pynq-z1.json", "configs/tiny.json", "configs/large.json",
                          "configs/ice40-up5k.json"};

nlohmann::json DefaultJson() {
  auto cfg = LoadHwConfig("configs/default.json");
  EXPECT_TRUE(cfg.ok()) << cfg.status().ToString();
  return nlohmann::json::parse(HwConfigToJson(*cfg));
}

std::string ErrorOf(const nlohmann::json& j) {
  auto r = ParseHwConfig(j.dump(), "test.json");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(HwConfig, BundledConfigsLoad) {
  for (const char* path : kConfigs) {
    auto cfg = LoadHwConfig(path);
    ASSERT_TRUE(cfg.ok()) << path << ": " << cfg.status().ToString();
    EXPECT_LE(cfg->layout.bits_used[0], 128);
  }
}

TEST(HwConfig, DefaultDerivedSizes) {
  auto cfg = LoadHwConfig("configs/default.json");
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->inp_tile_bytes, 16);
  EXPECT_EQ(cfg->wgt_tile_bytes, 256);
  EXPECT_EQ(cfg->acc_tile_bytes, 64);
  EXPECT_EQ(cfg->out_tile_bytes, 16);
  EXPECT_EQ(cfg->inp_entries, 2048);
  EXPECT_EQ(cfg->wgt_entries, 1024);
  EXPECT_EQ(cfg->acc_entries, 2048);
  EXPECT_EQ(cfg->uop_entries, 8192);
  EXPECT_EQ(cfg->inp_idx_bits, 11);
  EXPECT_EQ(cfg->wgt_idx_bits, 10);
  EXPECT_EQ(cfg->uop_idx_bits, 13);
  EXPECT_EQ(cfg->macs_per_cycle, 256);
  EXPECT_EQ(cfg->layout.uop_bits_used, 32);
  // The opcode sits at bits [2:0] of every format.
  for (int f = 0; f < kNumFormats; ++f) {
    EXPECT_EQ(cfg->layout.slots[f][static_cast<int>(FieldId::opcode)].lsb, 0);
    EXPECT_EQ(cfg->layout.slots[f][static_cast<int>(FieldId::opcode)].width, 3);
  }
}

TEST(HwConfig, JsonRoundTrip) {
  for (const char* path : kConfigs) {
    auto a = LoadHwConfig(path);
    ASSERT_TRUE(a.ok());
    auto b = ParseHwConfig(HwConfigToJson(*a), "roundtrip");
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(HwConfigToJson(*a), HwConfigToJson(*b));
    EXPECT_EQ(a->isa_fingerprint, b->isa_fingerprint);
  }
}

TEST(HwConfig, FingerprintIgnoresTimingButNotShape) {
  auto j = DefaultJson();
  auto base = ParseHwConfig(j.dump(), "a");
  j["dram"]["latency_cycles"] = 99;
  auto timing = ParseHwConfig(j.dump(), "b");
  j["gemm"]["block_out"] = 32;
  auto shape = ParseHwConfig(j.dump(), "c");
  ASSERT_TRUE(base.ok() && timing.ok() && shape.ok());
  EXPECT_EQ(base->isa_fingerprint, timing->isa_fingerprint);
  EXPECT_NE(base->isa_fingerprint, shape->isa_fingerprint);
}

TEST(HwConfigErrors, NotJson) {
  auto r = ParseHwConfig("{ \"name\": ", "broken.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("broken.json: not valid JSON"), std::string::npos);
}

TEST(HwConfigErrors, MissingFile) {
  auto r = LoadHwConfig("configs/does-not-exist.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does-not-exist.json"), std::string::npos);
}

TEST(HwConfigErrors, UnknownKey) {
  auto j = DefaultJson();
  j["gemm"]["blok_in"] = 16;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'gemm.blok_in': unknown key");
  j = DefaultJson();
  j["extra"] = 1;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'extra': unknown key");
}

TEST(HwConfigErrors, MissingKey) {
  auto j = DefaultJson();
  j["scratchpads"].erase("wgt_bytes");
  EXPECT_EQ(ErrorOf(j), "test.json: key 'scratchpads.wgt_bytes': missing");
  j = DefaultJson();
  j.erase("timing");
  EXPECT_EQ(ErrorOf(j), "test.json: key 'timing': missing");
}

TEST(HwConfigErrors, NotPowerOfTwo) {
  auto j = DefaultJson();
  j["gemm"]["block_in"] = 12;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'gemm.block_in': must be a power of two, got 12");
  j = DefaultJson();
  j["scratchpads"]["acc_bytes"] = 100000;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'scratchpads.acc_bytes': must be a power of two, got 100000");
}

TEST(HwConfigErrors, WrongTypeAndRange) {
  auto j = DefaultJson();
  j["gemm"]["batch"] = "one";
  EXPECT_EQ(ErrorOf(j), "test.json: key 'gemm.batch': must be an integer, got \"one\"");
  j = DefaultJson();
  j["datatypes"]["inp_bits"] = 4;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'datatypes.inp_bits': must be one of {8, 16}, got 4");
  j = DefaultJson();
  j["dram"]["latency_cycles"] = 0;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'dram.latency_cycles': must be in [1, 100000], got 0");
}

// Issue 15, finding 5: numbers JSON cannot hold in a double or an int64 are
// errors naming the file or key (was an uncaught exception / a wrapped value),
// and a fetch buffer smaller than one fetch block (sim deadlocked in cycle 0).
TEST(HwConfigErrors, OverflowingNumbersAndFetchBuffer) {
  std::string text = HwConfigToJson(*LoadHwConfig("configs/default.json"));
  const std::string clock = "\"clock_mhz\": 100";
  ASSERT_NE(text.find(clock), std::string::npos);
  std::string huge = text;
  huge.replace(huge.find(clock), clock.size(), "\"clock_mhz\": 1e999");
  auto r = ParseHwConfig(huge, "test.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("test.json: not valid JSON: ", 0), 0u) << r.status().message();
  EXPECT_NE(r.status().message().find("number overflow parsing '1e999'"), std::string::npos);

  auto j = DefaultJson();
  j["dram"]["size_bytes"] = UINT64_MAX;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'dram.size_bytes': must be in [65536, 68719476736], got 18446744073709551615");
  j = DefaultJson();
  j["queues"]["fetch_buffer"] = 0;
  EXPECT_EQ(ErrorOf(j), "test.json: key 'queues.fetch_buffer': must be in [1, 65536], got 0");
  j["queues"]["fetch_buffer"] = 1;
  auto one = ParseHwConfig(j.dump(), "test.json");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->fetch_block, 1);  // a fetch request reads min(8, F) instructions
  j["queues"]["fetch_buffer"] = 3;
  EXPECT_EQ(ErrorOf(j),
            "test.json: key 'queues.fetch_buffer': below 8 must be a power of two (fetch blocks of min(8, F) must "
            "divide the 4 KiB page), got 3");
  j["queues"]["fetch_buffer"] = 12;
  EXPECT_EQ(ParseHwConfig(j.dump(), "test.json")->fetch_block, 8);
}

TEST(HwConfigErrors, BufferTooSmallForOneTile) {
  auto j = DefaultJson();
  j["scratchpads"]["wgt_bytes"] = 128;  // one 16x16 int8 weight tile is 256 bytes
  EXPECT_EQ(ErrorOf(j),
            "test.json: key 'scratchpads.wgt_bytes': 128 bytes is too small for one tile of 256 "
            "bytes (set by gemm.* and datatypes.*)");
}

TEST(HwConfigErrors, AluLanesDivideTheVector) {
  auto j = DefaultJson();  // 1 x 16 elements
  j["alu"]["lanes"] = 3;
  EXPECT_EQ(ErrorOf(j),
            "test.json: key 'alu.lanes': must divide the ALU's 16 elements (gemm.batch x gemm.block_out), got 3");
  j["alu"]["lanes"] = 32;
  EXPECT_EQ(ErrorOf(j),
            "test.json: key 'alu.lanes': must divide the ALU's 16 elements (gemm.batch x gemm.block_out), got 32");
  j["alu"]["lanes"] = 4;
  auto four = ParseHwConfig(j.dump(), "test.json");
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(four->alu_lane_count, 4);
  j["alu"]["lanes"] = 0;  // one lane per element
  auto full = ParseHwConfig(j.dump(), "test.json");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->alu_lane_count, 16);
  EXPECT_EQ(full->isa_fingerprint, four->isa_fingerprint);  // timing only
}

TEST(HwConfigErrors, AluMulCyclesAtMostTheAccumulatorBits) {
  auto j = DefaultJson();
  j["datatypes"]["acc_bits"] = 16;
  j["scratchpads"]["acc_bytes"] = j["scratchpads"]["acc_bytes"].get<int64_t>() / 2;  // the same entries
  j["alu"]["mul_cycles"] = 32;
  EXPECT_EQ(ErrorOf(j),
            "test.json: key 'alu.mul_cycles': must be at most datatypes.acc_bits (16): the multiplier takes "
            "acc_bits / k bits a cycle, got 32");
  j["alu"]["mul_cycles"] = 16;
  auto k16 = ParseHwConfig(j.dump(), "test.json");
  ASSERT_TRUE(k16.ok()) << k16.status().ToString();
  j["alu"]["mul_cycles"] = 1;
  auto k1 = ParseHwConfig(j.dump(), "test.json");
  ASSERT_TRUE(k1.ok()) << k1.status().ToString();
  EXPECT_EQ(k16->isa_fingerprint, k1->isa_fingerprint);  // timing only
}

TEST(HwConfigErrors, FieldNoLongerFitsInstruction) {
  auto j = DefaultJson();
  j["scratchpads"]["uop_bytes"] = 1 << 20;  // 18-bit uop indices overflow 128 bits
  std::string msg = ErrorOf(j);
  EXPECT_NE(msg.find("instruction format needs"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 128"), std::string::npos) << msg;
  EXPECT_NE(msg.find("scratchpads.uop_bytes"), std::string::npos) << msg;
}

TEST(HwConfigErrors, UopFormatOverflow) {
  auto j = DefaultJson();
  // 12-bit acc + 12-bit src + 10-bit wgt indices = 34 bits; instructions still fit.
  j["scratchpads"]["acc_bytes"] = 1 << 18;
  j["scratchpads"]["uop_bytes"] = 1 << 13;
  std::string msg = ErrorOf(j);
  EXPECT_NE(msg.find("the uop format needs 34 bits, more than 32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dst 12 bits (scratchpads.acc_bytes)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tessera
