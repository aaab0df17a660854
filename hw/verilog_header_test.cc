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
    EXPECT_TRUE(Has(v, "localparam integer TSR_ALU_MULSHR_IMM_MAX = 63;"));
    EXPECT_TRUE(Has(v, "localparam integer TSR_ALU_MULSHRC_IMM_MAX = 2047;"));
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

}  // namespace
}  // namespace tessera
