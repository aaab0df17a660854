// The Device interface on its in-process backends: identity registers, the
// driver sequence, counters, memory pools, and every error a run can raise.
#include "driver/device.h"

#include <gtest/gtest.h>

#include "driver/sim_device.h"
#include "isa/asm.h"
#include "sim/loader.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

std::unique_ptr<Device> Open(const std::string& target, const char* config = "configs/default.json") {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  auto dev = OpenDevice(target, cfg);
  EXPECT_TRUE(dev.ok()) << dev.status().ToString();
  return std::move(dev).value();
}

// Assembles `text` and places it in the device's DRAM; returns the program.
Program Place(Device* dev, const std::string& text) {
  auto prog = Assemble(dev->config(), text, "t.s");
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  EXPECT_TRUE(LoadProgram(dev->config(), *prog, &static_cast<SimulatedDevice*>(dev)->dram()).ok());
  return *prog;
}

TEST(Device, IdentityRegisters) {
  auto dev = Open("ref");
  EXPECT_EQ(dev->ReadReg(regs::kId), regs::kIdMagic);
  EXPECT_EQ(dev->ReadReg(regs::kVersion), regs::kProtocolVersion);
  EXPECT_EQ(dev->ReadFingerprint(), dev->config().isa_fingerprint);
  EXPECT_EQ(dev->target(), "ref");
  EXPECT_FALSE(dev->has_timing());
  EXPECT_EQ(dev->ReadReg(0xFFC), 0u);  // unmapped offsets read as zero
}

TEST(Device, RegisterMapMatchesTheProtocolDocument) {
  // docs/device-protocol.md, "Register map" and "Counters".
  EXPECT_EQ(regs::CounterOffset(regs::Counter::kCycles), 0x040u);
  EXPECT_EQ(regs::CounterOffset(regs::Counter::kDramWriteBytes), 0x070u);
  EXPECT_EQ(regs::CounterOffset(regs::ModuleCounter(0, 0)), 0x078u);
  EXPECT_EQ(regs::CounterOffset(regs::ModuleCounter(3, 3)), 0x078u + 32 * 3 + 8 * 3);
  EXPECT_EQ(regs::kRegisterWindowBytes, 0xF8u);
  EXPECT_STREQ(regs::ErrorCodeName(regs::ErrorCode::kWatchdog), "watchdog timeout");
}

TEST(Device, UnknownAndUnavailableTargets) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto bad = OpenDevice("gpu", cfg);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("unknown device target 'gpu' (available: ref"), std::string::npos);
  auto fpga = OpenDevice("fpga", cfg);
  EXPECT_EQ(fpga.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(fpga.status().message().find("device target 'fpga' is not available in this build"), std::string::npos);
}

TEST(Device, RunsAProgramAndLatchesCounters) {
  for (const std::string& target : DeviceTargets()) {
    SCOPED_TRACE(target);
    auto dev = Open(target);
    auto prog = AssembleFile(dev->config(), "examples/programs/gemm_small.s");
    ASSERT_TRUE(prog.ok());
    auto& dram = static_cast<SimulatedDevice*>(dev.get())->dram();
    ASSERT_TRUE(LoadProgram(dev->config(), *prog, &dram).ok());
    Status s = dev->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(CheckExpectations(*prog, dram).ok());
    DeviceStatus st = dev->ReadStatus();
    EXPECT_TRUE(st.done);
    EXPECT_FALSE(st.busy || st.error);
    DeviceCounters c = dev->ReadCounters();
    EXPECT_EQ(c.insns, 9);
    EXPECT_EQ(c.macs, 4 * 256);
    EXPECT_EQ(c.dram_write_bytes, 32);
    EXPECT_EQ(c.cycles > 0, dev->has_timing());
    // A second run starts from cleared counters (they are per run).
    ASSERT_TRUE(dev->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000).ok());
    EXPECT_EQ(dev->ReadCounters().macs, 4 * 256);
  }
}

TEST(Device, LaunchChecksInTheDriver) {
  auto dev = Open("ref");
  EXPECT_EQ(dev->Start(0x1000, 0, 0).message(), "device 'ref': cannot start a run of 0 instructions");
  EXPECT_EQ(dev->Start(0x1008, 1, 0).message(), "device 'ref': instruction address 0x1008 is not 16-byte aligned");
  EXPECT_EQ(dev->Start(dev->config().dram_size_bytes - 16, 2, 0).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(dev->Start(0x1000, 1, -5).message(), "device 'ref': negative timeout -5 ms");
  EXPECT_EQ(dev->Wait().message(), "device 'ref': wait without a started run");
}

TEST(Device, BadLaunchThroughRawRegisters) {
  auto dev = Open("ref");
  dev->WriteReg(regs::kInsnAddrLo, 0x1004);
  dev->WriteReg(regs::kInsnCount, 1);
  dev->WriteReg(regs::kCtrl, regs::kCtrlStart);
  DeviceStatus st = dev->ReadStatus();
  EXPECT_TRUE(st.error);
  EXPECT_EQ(st.error_code, regs::ErrorCode::kBadLaunch);
  dev->WriteReg(regs::kCtrl, regs::kCtrlClear);
  EXPECT_EQ(dev->ReadReg(regs::kStatus), 0u);
  EXPECT_EQ(dev->ReadReg(regs::kErrorCode), 0u);
}

TEST(Device, IllegalInstructionNamesTheIndex) {
  auto dev = Open("ref");
  uint8_t words[48] = {};
  words[32] = 6;  // instruction 2: opcode 6 does not exist
  ASSERT_TRUE(dev->Write(0x2000, words, sizeof(words)).ok());
  Status s = dev->Run(0x2000, 3, 0);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  DeviceStatus st = dev->ReadStatus();
  EXPECT_EQ(st.error_code, regs::ErrorCode::kIllegalInstruction);
  EXPECT_EQ(st.error_insn, 2u);
  EXPECT_EQ(s.message(),
            "device 'ref': run of 3 instructions at 0x2000 failed: illegal "
            "instruction at instruction 2: instruction "
            "2 at DRAM 0x2020: unknown opcode 6");
}

TEST(Device, DeadlockAndTokenErrors) {
  auto dev = Open("ref");
  Program p = Place(dev.get(),
                    ".text 0x3000\nLOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 "
                    "x_stride=1 pop_next\nFINISH pop_prev\n");
  Status s = dev->Run(p.text_addr, 2, 0);
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_EQ(dev->ReadStatus().error_code, regs::ErrorCode::kDeadlock);
  EXPECT_NE(s.message().find("failed: deadlock: deadlock: no module can make progress"), std::string::npos)
      << s.message();
  p = Place(dev.get(),
            ".text 0x3000\nLOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 "
            "push_next\nFINISH\n");
  s = dev->Run(p.text_addr, 2, 0);
  EXPECT_EQ(dev->ReadStatus().error_code, regs::ErrorCode::kTokenError) << s.ToString();
}

TEST(Device, WatchdogTimeout) {
  for (const std::string& target : DeviceTargets()) {
    SCOPED_TRACE(target);
    auto dev = Open(target);
    auto prog = AssembleFile(dev->config(), "examples/programs/gemm_heavy.s");
    ASSERT_TRUE(prog.ok());
    ASSERT_TRUE(LoadProgram(dev->config(), *prog, &static_cast<SimulatedDevice*>(dev.get())->dram()).ok());
    // 1 ms of device time: 100k cycles at 100 MHz; the program needs several ms on either engine.
    Status s = dev->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1);
    EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
    EXPECT_EQ(dev->ReadStatus().error_code, regs::ErrorCode::kWatchdog);
    EXPECT_EQ(dev->ReadReg64(regs::kWatchdogLo), 100000u);
    EXPECT_NE(s.message().find("failed: watchdog timeout"), std::string::npos) << s.message();
  }
}

TEST(Device, MemoryPoolsAndErrors) {
  auto dev = Open("ref", "configs/tiny.json");
  const RangeAllocator& code = dev->pool(MemPool::kCode);
  const RangeAllocator& data = dev->pool(MemPool::kData);
  EXPECT_EQ(code.base(), 4096u);     // the first page is a guard
  EXPECT_EQ(code.size(), 1u << 20);  // tiny: 16 MiB / 16
  EXPECT_GE(data.base(), code.base() + code.size());
  EXPECT_EQ(data.base() % dev->data_alignment(), 0u);
  auto a = dev->Alloc(100, MemPool::kData, "A");
  auto k = dev->Alloc(100, MemPool::kCode, "kernel");
  ASSERT_TRUE(a.ok() && k.ok());
  EXPECT_EQ(a->bytes, 4096u);
  EXPECT_EQ(k->bytes, 128u);
  const std::vector<uint8_t> src = {1, 2, 3, 4};
  ASSERT_TRUE(dev->Write(a->phys + 10, src.data(), src.size()).ok());
  std::vector<uint8_t> back(4);
  ASSERT_TRUE(dev->Read(a->phys + 10, back.data(), back.size()).ok());
  EXPECT_EQ(back, src);
  EXPECT_EQ(dev->Read(dev->config().dram_size_bytes - 2, back.data(), 4).code(), StatusCode::kOutOfRange);
  auto oom = dev->Alloc(64 << 20, MemPool::kData, "too big");
  EXPECT_EQ(oom.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(oom.status().message().find("device 'ref': out of device memory: 'too big' needs 67108864 bytes"),
            std::string::npos)
      << oom.status().message();
  ASSERT_TRUE(dev->Free(a->phys).ok());
  EXPECT_EQ(dev->Free(a->phys).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(dev->Free(16).message(),
            "free of unknown device address 0x10: outside the code and data regions of device 'ref'");
  EXPECT_TRUE(dev->Free(k->phys).ok());
}

}  // namespace
}  // namespace tessera
