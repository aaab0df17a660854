// The asynchronous half of the driver sequence (Device::Wait): polling STATUS
// while the backend advances in WhileWaiting, the device's watchdog, the
// host deadline and CTRL.ABORT. The in-process simulators finish inside
// CTRL.START, so this uses a backend whose runs take time: each poll advances
// the run by some device cycles (a stand-in for Verilator or SystemC stepping
// hardware in the host thread), or the run ends after some wall time.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "driver/device.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct Script {
  int64_t polls_to_finish = -1;                        // < 0: never by polls
  std::chrono::milliseconds wall_to_finish{-1};        // < 0: never by wall time
  uint64_t cycles_per_poll = 1000;                     // device time per WhileWaiting call
  bool honor_watchdog = true;                          // false: a hung device that ignores it
  regs::ErrorCode fail_with = regs::ErrorCode::kNone;  // raised when the run would finish
  uint32_t fail_insn = regs::kNoInsn;
};

// A register-level backend whose run progresses over WhileWaiting calls.
class SlowDevice : public Device {
 public:
  SlowDevice(const HwConfig& cfg, Script s)
      : Device(cfg, "slow", 0, cfg.dram_size_bytes, DeviceOptions{}), script_(s), dram_(cfg.dram_size_bytes) {}

  bool has_timing() const override { return true; }
  Status Write(uint64_t phys, const void* src, uint64_t n) override {
    if (phys > dram_.size() || n > dram_.size() - phys) return OutOfRangeError("write outside DRAM");
    std::memcpy(dram_.data() + phys, src, n);
    return OkStatus();
  }
  Status Read(uint64_t phys, void* dst, uint64_t n) const override {
    if (phys > dram_.size() || n > dram_.size() - phys) return OutOfRangeError("read outside DRAM");
    std::memcpy(dst, dram_.data() + phys, n);
    return OkStatus();
  }

  uint32_t ReadReg(uint32_t off) override {
    if (off == regs::CounterOffset(regs::CounterIndex(regs::Counter::cycles)))
      return static_cast<uint32_t>(latched_cycles_);
    if (off == regs::CounterOffset(regs::CounterIndex(regs::Counter::cycles)) + 4)
      return static_cast<uint32_t>(latched_cycles_ >> 32);
    switch (off) {
      case regs::kStatus: return status_;
      case regs::kErrorCode: return static_cast<uint32_t>(error_);
      case regs::kErrorInsn: return error_insn_;
      case regs::kWatchdogLo: return static_cast<uint32_t>(watchdog_);
      case regs::kWatchdogHi: return static_cast<uint32_t>(watchdog_ >> 32);
      default: return 0;
    }
  }
  void WriteReg(uint32_t off, uint32_t v) override {
    switch (off) {
      case regs::kWatchdogLo: watchdog_ = (watchdog_ & ~uint64_t{0xFFFFFFFF}) | v; break;
      case regs::kWatchdogHi: watchdog_ = (watchdog_ & 0xFFFFFFFF) | (uint64_t{v} << 32); break;
      case regs::kCtrl:
        if (v & regs::kCtrlClear) status_ = 0, error_ = regs::ErrorCode::kNone, error_insn_ = regs::kNoInsn;
        if (v & regs::kCtrlStart) {
          status_ = regs::kStatusBusy;
          cycles_ = latched_cycles_ = 0;
          polls_ = 0;
          started_ = std::chrono::steady_clock::now();
        }
        if (v & regs::kCtrlAbort) {
          ++aborts_;
          if (status_ & regs::kStatusBusy) Finish(regs::ErrorCode::kAbortedByHost, regs::kNoInsn);
        }
        break;
      default: break;
    }
  }

  int64_t polls() const { return polls_; }
  int aborts() const { return aborts_; }

 protected:
  void WhileWaiting() override {
    if (!(status_ & regs::kStatusBusy)) return;
    ++polls_;
    cycles_ += script_.cycles_per_poll;
    if (script_.honor_watchdog && watchdog_ > 0 && cycles_ >= watchdog_) return Finish(regs::ErrorCode::kWatchdog, 0);
    const bool by_polls = script_.polls_to_finish >= 0 && polls_ >= script_.polls_to_finish;
    const bool by_time =
        script_.wall_to_finish.count() >= 0 && std::chrono::steady_clock::now() - started_ >= script_.wall_to_finish;
    if (by_polls || by_time) Finish(script_.fail_with, script_.fail_insn);
  }
  std::string ErrorDetail() const override { return error_ == regs::ErrorCode::kNone ? "" : "slow device detail"; }

 private:
  void Finish(regs::ErrorCode e, uint32_t insn) {
    error_ = e;
    error_insn_ = insn;
    status_ = e == regs::ErrorCode::kNone ? regs::kStatusDone : regs::kStatusError;
    latched_cycles_ = cycles_;
  }

  Script script_;
  std::vector<uint8_t> dram_;
  uint32_t status_ = 0;
  regs::ErrorCode error_ = regs::ErrorCode::kNone;
  uint32_t error_insn_ = regs::kNoInsn;
  uint64_t watchdog_ = 0, cycles_ = 0, latched_cycles_ = 0;
  int64_t polls_ = 0;
  int aborts_ = 0;
  std::chrono::steady_clock::time_point started_;
};

// The device and a 4-instruction stream in its code region.
struct Fixture {
  std::unique_ptr<SlowDevice> dev;
  uint64_t insns = 0;
};

Fixture Make(const Script& s) {
  Fixture f;
  f.dev = std::make_unique<SlowDevice>(testing::LoadConfigOrDie("configs/tiny.json"), s);
  auto a = f.dev->Alloc(4 * kInsnBytes, MemPool::kCode, "stream");
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (a.ok()) f.insns = a->phys;
  return f;
}

TEST(AsyncDevice, WaitPollsUntilTheRunCompletes) {
  Script s;
  s.polls_to_finish = 50;
  Fixture f = Make(s);
  ASSERT_TRUE(f.dev->Run(f.insns, 4, 1000).ok());
  EXPECT_EQ(f.dev->polls(), 50);
  EXPECT_TRUE(f.dev->ReadStatus().done);
  EXPECT_EQ(f.dev->ReadCounters().cycles, 50 * 1000);
  EXPECT_EQ(f.dev->aborts(), 0);
}

TEST(AsyncDevice, UnboundedWaitFollowsWallTime) {
  // Watchdog 0: no device watchdog and no host deadline; the run ends after 30 ms of wall time.
  Script s;
  s.wall_to_finish = std::chrono::milliseconds(30);
  s.cycles_per_poll = 0;
  Fixture f = Make(s);
  ASSERT_TRUE(f.dev->StartWithWatchdog(f.insns, 4, 0).ok());
  ASSERT_TRUE(f.dev->Wait().ok());
  EXPECT_GT(f.dev->polls(), 1);
  EXPECT_EQ(f.dev->aborts(), 0);
}

TEST(AsyncDevice, DeviceWatchdogEndsTheRunBeforeTheHostDeadline) {
  // 1 ms at tiny's clock; 1000 cycles per poll reach it in a bounded number of polls.
  Fixture f = Make(Script{});
  const Status s = f.dev->Run(f.insns, 4, 1);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("failed: watchdog timeout at instruction 0: slow device detail"), std::string::npos)
      << s.message();
  ASSERT_TRUE(s.fault()) << "the fault travels as data";
  EXPECT_EQ(*s.fault(), (Fault{static_cast<uint32_t>(regs::ErrorCode::kWatchdog), 0}));
  EXPECT_EQ(f.dev->ReadStatus().error_code, regs::ErrorCode::kWatchdog);
  EXPECT_EQ(f.dev->aborts(), 0) << "the device stopped itself: the host must not abort";
  const uint64_t watchdog = f.dev->ReadReg64(regs::kWatchdogLo);
  EXPECT_EQ(f.dev->polls(), static_cast<int64_t>((watchdog + 999) / 1000));
}

TEST(AsyncDevice, HostDeadlineAbortsAHungDevice) {
  // The device ignores its watchdog and never finishes: after twice the
  // timeout plus one second the host writes CTRL.ABORT and gives up.
  Script hung;
  hung.honor_watchdog = false;
  Fixture f = Make(hung);
  const Status s = f.dev->Run(f.insns, 4, 1);
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s.ToString();
  EXPECT_NE(s.message().find("host deadline passed; the run was aborted"), std::string::npos) << s.message();
  ASSERT_TRUE(s.fault());
  EXPECT_EQ(*s.fault(), (Fault{static_cast<uint32_t>(regs::ErrorCode::kAbortedByHost), regs::kNoInsn}));
  EXPECT_EQ(f.dev->aborts(), 1);
  const DeviceStatus st = f.dev->ReadStatus();
  EXPECT_TRUE(st.error);
  EXPECT_FALSE(st.busy);
  EXPECT_EQ(st.error_code, regs::ErrorCode::kAbortedByHost);
  EXPECT_GT(f.dev->polls(), 1);
  // The device is usable again: the next run starts after the abort.
  EXPECT_TRUE(f.dev->StartWithWatchdog(f.insns, 4, 0).ok());
  EXPECT_TRUE(f.dev->ReadStatus().busy);
}

TEST(AsyncDevice, FaultRaisedWhileWaitingNamesCodeAndInstruction) {
  Script faulty;
  faulty.polls_to_finish = 3;
  faulty.fail_with = regs::ErrorCode::kMemoryFault;
  faulty.fail_insn = 2;
  Fixture f = Make(faulty);
  const Status s = f.dev->Run(f.insns, 4, 1000);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  EXPECT_NE(s.message().find("failed: memory fault at instruction 2: slow device detail"), std::string::npos)
      << s.message();
  ASSERT_TRUE(s.fault());
  EXPECT_EQ(*s.fault(), (Fault{static_cast<uint32_t>(regs::ErrorCode::kMemoryFault), 2}));
  EXPECT_EQ(f.dev->polls(), 3);
  EXPECT_EQ(f.dev->aborts(), 0);
}

}  // namespace
}  // namespace tessera
