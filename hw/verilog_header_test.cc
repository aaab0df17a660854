#include "hw/verilog_header.h"

#include <gtest/gtest.h>

#include "isa/config.h"
#include "isa/regs.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

bool Has(const std::string& v, const std::string& line) { return v.find(line) != std::string::npos; }

TEST(VerilogHeader, PositionsMatchTheLayoutOnEveryConfig) {
  for (const std::string& path : testing::BundledConfigPaths()) {
    SCOPED_TRACE(path);
    HwConfig cfg = testing::LoadConfigOrDie(path);
    const std::string v = GenerateVerilogHeader(cfg);
    for (int f = 0; f < kNumFormats; ++f)
      for (const FieldInfo& fi : kFields) {
        const FieldSlot& s = cfg.layout.slot(static_cast<Format>(f), fi.id);
        if (!s.present()) continue;
        std::string name = std::string("TSR_") + FormatName(static_cast<Format>(f)) + "_" + std::string(fi.name);
        for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        EXPECT_TRUE(Has(v, "localparam integer " + name + "_LSB = " + std::to_string(s.lsb) + ";")) << name;
        EXPECT_TRUE(Has(v, "localparam integer " + name + "_W = " + std::to_string(s.width) + ";")) << name;
      }
    EXPECT_TRUE(Has(v, "localparam integer TSR_BLOCK_OUT = " + std::to_string(cfg.block_out) + ";"));
    EXPECT_TRUE(Has(v, "localparam integer TSR_ALU_MULSHR = 5;"));
    // imm_max by op value, the highest first: mulshrc (8) 2047, mov, clip, mulshr (5) 63, then 0 for min..mul.
    EXPECT_TRUE(Has(v,
                    "localparam [143:0] TSR_ALU_IMM_MAX_BY_OP = {16'd2047, 16'd0, 16'd0, 16'd63, 16'd0, 16'd0, "
                    "16'd0, 16'd0, 16'd0};"));
    EXPECT_TRUE(Has(v, "localparam integer TSR_ALU_IMM_C_LSB = 6;"));
    EXPECT_TRUE(Has(v, fmt::format("localparam [63:0] TSR_FINGERPRINT = 64'h{:016x};", cfg.isa_fingerprint)));
    EXPECT_TRUE(Has(v, "localparam integer TSR_CFG_QUEUES_TOKEN_DEPTH = " + std::to_string(cfg.token_queue_depth)));
  }
}

TEST(VerilogHeader, HasTheRegisterMapCountersAndErrorCodes) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  const std::string v = GenerateVerilogHeader(cfg);
  for (const regs::RegInfo& r : regs::kRegs)
    EXPECT_TRUE(Has(v, fmt::format("localparam integer TSR_REG_{} = {};", r.name, r.offset))) << r.name;
  EXPECT_TRUE(Has(v, "localparam integer TSR_BIT_CTRL_START = 0;"));
  EXPECT_TRUE(Has(v, "localparam integer TSR_BIT_STATUS_ERROR = 2;"));
  EXPECT_TRUE(Has(v, "localparam integer TSR_ERR_MEMORY_FAULT = 3;"));
  EXPECT_TRUE(Has(v, fmt::format("localparam integer TSR_NUM_COUNTERS = {};", regs::kNumCounters)));
  EXPECT_TRUE(
      Has(v, fmt::format("localparam integer TSR_CTR_STALLS = {};", regs::CounterIndex(regs::Counter::stalls))));
  EXPECT_TRUE(Has(v, "localparam integer TSR_UNIT_COMPUTE = 2;"));
  EXPECT_TRUE(Has(v, "localparam integer TSR_STALL_WAIT_MEMORY = 3;"));
  EXPECT_TRUE(Has(v, "localparam integer TSR_TQ_STORE_TO_COMPUTE_FROM = 2;"));
  EXPECT_TRUE(Has(v, "localparam integer TSR_BURST_MAX_BEATS = 256;"));
  // Values of 2^31 and above do not fit a Verilog integer.
  HwConfig large = testing::LoadConfigOrDie("configs/large.json");
  EXPECT_TRUE(Has(GenerateVerilogHeader(large), "localparam [63:0] TSR_CFG_DRAM_SIZE_BYTES = 64'd2147483648;"));
}

// ValidateForRtl: every bundled config is buildable; a valid config whose
// tiles are narrower than a bus beat (1x2x2, B = 4: 2-byte inp and out
// tiles), with a beat over 64 bytes or with T_setup = 0 is refused, naming
// the keys at fault.
TEST(VerilogHeader, ValidateForRtlRefusesTilesNarrowerThanABeat) {
  for (const std::string& path : testing::BundledConfigPaths())
    EXPECT_TRUE(ValidateForRtl(testing::LoadConfigOrDie(path), path).ok()) << path;
  HwConfig c = testing::LoadConfigOrDie("configs/ice40-up5k.json");
  c.block_in = 2;
  c.block_out = 2;
  ASSERT_TRUE(ValidateHwConfig(c, "small").ok());
  Status s = ValidateForRtl(c, "small.json");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("small.json: key 'dram.bytes_per_cycle'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("the inp tile is 2 bytes (gemm.batch x gemm.block_in"), std::string::npos) << s.message();
  c.dram_bytes_per_cycle = 2;  // 2-byte inp/out, 4-byte wgt, 8-byte acc tiles
  ASSERT_TRUE(ValidateHwConfig(c, "small").ok());
  EXPECT_TRUE(ValidateForRtl(c, "small.json").ok());
  c.dram_bytes_per_cycle = 128;
  c.block_in = c.block_out = 128;
  c.inp_bytes = c.wgt_bytes = c.acc_bytes = 1 << 20;
  ASSERT_TRUE(ValidateHwConfig(c, "wide").ok());
  EXPECT_NE(ValidateForRtl(c, "wide.json").message().find("at most 64, got 128"), std::string::npos);
  c = testing::LoadConfigOrDie("configs/ice40-up5k.json");
  c.dma_setup_cycles = 0;
  ASSERT_TRUE(ValidateHwConfig(c, "small").ok());
  s = ValidateForRtl(c, "small.json");
  EXPECT_NE(s.message().find("key 'timing.dma_setup_cycles'"), std::string::npos) << s.message();
  // compute_overlap banks the accumulator in two halves.
  c = testing::LoadConfigOrDie("configs/ice40-up5k.json");
  c.compute_overlap = 1;
  EXPECT_TRUE(ValidateForRtl(c, "small.json").ok());
  c.acc_entries = 1;  // (a one-tile accumulator)
  s = ValidateForRtl(c, "one.json");
  EXPECT_NE(s.message().find("an even number of entries, got 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tessera
