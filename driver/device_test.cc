// The Device interface on its in-process backends: identity registers, the
// driver sequence, counters, memory pools, and every error a run can raise.
#include "driver/device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "driver/registry.h"
#include "isa/asm.h"
#include "sim/trace.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

std::unique_ptr<Device> Open(const std::string& target, const char* config = "configs/default.json") {
  HwConfig cfg = testing::LoadConfigOrDie(config);
  auto dev = OpenDevice(target, cfg);
  EXPECT_TRUE(dev.ok()) << dev.status().ToString();
  return std::move(dev).value();
}

Status Load(Device* dev, const Program& prog) {
  return PlaceProgram(dev->config(), prog,
                      [dev](uint64_t addr, const void* src, uint64_t n) { return dev->Write(addr, src, n); });
}

Status Check(Device* dev, const Program& prog) {
  return CheckExpectations(prog, [dev](uint64_t addr, void* dst, uint64_t n) { return dev->Read(addr, dst, n); });
}

// Assembles `text` and places it in the device's DRAM; returns the program.
Program Place(Device* dev, const std::string& text) {
  auto prog = Assemble(dev->config(), text, "t.s");
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  EXPECT_TRUE(Load(dev, *prog).ok());
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
  EXPECT_EQ(regs::CounterOffset(regs::CounterIndex(regs::Counter::cycles)), 0x040u);
  EXPECT_EQ(regs::CounterOffset(regs::CounterIndex(regs::Counter::dram_busy_cycles)), 0x078u);
  EXPECT_EQ(regs::CounterOffset(regs::CounterIndex(regs::Counter::insns_by_opcode)), 0x088u);
  EXPECT_EQ(regs::CounterOffset(regs::CounterIndex(regs::Counter::load_bytes_by_mem)), 0x0B0u);
  EXPECT_EQ(regs::CounterOffset(regs::StallIndex(regs::Unit::kFetch, 0)), 0x0E0u);
  EXPECT_EQ(regs::CounterOffset(regs::StallIndex(regs::Unit::kStore, 3)), 0x0E0u + 32 * 3 + 8 * 3);
  EXPECT_EQ(regs::kRegisterWindowBytes, 0x160u);
  EXPECT_EQ(regs::CounterRegisterName(regs::StallIndex(regs::Unit::kCompute, 1)), "stalls[compute].wait_token");
  EXPECT_STREQ(regs::ErrorCodeName(regs::ErrorCode::kWatchdog), "watchdog timeout");
}

TEST(Registry, UnknownUnbuiltAndNonDeviceTargets) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto bad = OpenDevice("gpu", cfg);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("unknown target 'gpu' (this build has: cpu, ref, sim", 0), 0u)
      << bad.status().message();
  // Every known-but-unbuilt row gives the same message: what it is, how to enable it, what this build has.
  for (const BackendInfo& b : Backends()) {
    if (b.built()) continue;
    auto s = OpenDevice(b.name, cfg).status();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
    EXPECT_EQ(s.message(), "target '" + b.name + "' (" + b.description + ") is not built in: " + b.enable +
                               "; this build has: " + BuiltTargetList());
    EXPECT_EQ(FindBackend(b.name).status().message(), s.message());
  }
  auto cpu = OpenDevice("cpu", cfg);
  EXPECT_EQ(cpu.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(cpu.status().message().find("target 'cpu' (int8 CPU reference executor"), std::string::npos);
  EXPECT_NE(cpu.status().message().find("is not a device: it runs compiled models only; device targets: ref, sim"),
            std::string::npos)
      << cpu.status().message();
}

TEST(Registry, EveryBuiltDeviceAgreesWithItsRow) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  int devices = 0;
  for (const BackendInfo& b : Backends()) {
    SCOPED_TRACE(b.name);
    EXPECT_FALSE(b.name.empty() || b.description.empty());
    if (!b.built() || !b.is_device() || b.needs_hardware) continue;
    ++devices;
    auto dev = OpenDevice(b.name, cfg);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    EXPECT_EQ((*dev)->target(), b.name);
    EXPECT_EQ((*dev)->has_timing(), b.has_timing);
  }
  EXPECT_EQ(devices, static_cast<int>(SelfContainedDeviceTargets().size()));
  auto cpu = FindBackend("cpu");
  ASSERT_TRUE(cpu.ok());
  EXPECT_FALSE((*cpu)->is_device() || (*cpu)->has_timing);
}

TEST(Registry, BackendOptionsBelongToTheirTarget) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  DeviceOptions o;
  o.backend.Set("timing-only", "true");
  auto ref = OpenDevice("ref", cfg, o);
  EXPECT_EQ(ref.status().message(), "option --timing-only is not an option of target 'ref' (it is an option of: sim)");
  auto sim = OpenDevice("sim", cfg, o);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  EXPECT_FALSE((*sim)->computes_data());
  DeviceOptions unknown;
  unknown.backend.Set("frobnicate", "3");
  EXPECT_EQ(OpenDevice("sim", cfg, unknown).status().message(), "option --frobnicate is not an option of target 'sim'");
  // A typed option: an integer row of a test backend's declaration.
  BackendInfo b;
  b.name = "test";
  b.options = {{"threads", BackendOptionType::kInt, "worker threads"}};
  BackendOptionValues v;
  v.Set("threads", "4");
  EXPECT_TRUE(CheckBackendOptions(b, v).ok());
  EXPECT_EQ(v.Int("threads", 1), 4);
  v.Set("threads", "four");
  EXPECT_EQ(CheckBackendOptions(b, v).message(), "option --threads of target 'test' takes an integer, got 'four'");
}

TEST(Registry, TraceNeedsTimingAndCodeRegionMustFit) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  struct NullSink : TraceSink {
    void Span(int, const std::string&, int64_t, int64_t, int64_t) override {}
    void Counter(const std::string&, int64_t, int64_t) override {}
  } sink;
  DeviceOptions o;
  o.trace = &sink;
  EXPECT_EQ(OpenDevice("ref", cfg, o).status().message(),
            "target 'ref' has no timing: it cannot write an instruction trace");
  EXPECT_TRUE(OpenDevice("sim", cfg, o).ok());
  DeviceOptions big;
  big.code_region_bytes = cfg.dram_size_bytes;
  EXPECT_EQ(OpenDevice("sim", cfg, big).status().code(), StatusCode::kResourceExhausted);
}

TEST(Device, MemoryLayoutPredictsTheAllocator) {
  HwConfig cfg = testing::LoadConfigOrDie("configs/tiny.json");
  const DeviceMemoryLayout layout = MemoryLayoutOf(cfg);
  EXPECT_EQ(layout.Rounded(100, MemPool::kCode), 128u);
  EXPECT_EQ(layout.Rounded(100, MemPool::kData), layout.data_alignment);
  // The largest code region that leaves 5 MiB of data: the data then fits exactly, a page more does not.
  const uint64_t data = 5 << 20;
  DeviceOptions o;
  o.code_region_bytes = layout.MaxCodeRegion(data);
  auto dev = OpenDevice("ref", cfg, o);
  ASSERT_TRUE(dev.ok());
  EXPECT_GE((*dev)->pool(MemPool::kData).size(), data);
  EXPECT_TRUE((*dev)->Alloc(data, MemPool::kData, "all").ok());
  o.code_region_bytes += 2 * layout.data_alignment;
  auto tighter = OpenDevice("ref", cfg, o);
  ASSERT_TRUE(tighter.ok());
  EXPECT_LT((*tighter)->pool(MemPool::kData).size(), data);
}

TEST(Device, RunsAProgramAndLatchesCounters) {
  for (const std::string& target : SelfContainedDeviceTargets()) {
    SCOPED_TRACE(target);
    auto dev = Open(target);
    auto prog = AssembleFile(dev->config(), "examples/programs/gemm_small.s");
    ASSERT_TRUE(prog.ok());
    ASSERT_TRUE(Load(dev.get(), *prog).ok());
    Status s = dev->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(Check(dev.get(), *prog).ok());
    DeviceStatus st = dev->ReadStatus();
    EXPECT_TRUE(st.done);
    EXPECT_FALSE(st.busy || st.error);
    DeviceCounters c = dev->ReadCounters();
    EXPECT_EQ(c.insns(), 9);
    EXPECT_EQ(c.macs, 4 * 256);
    EXPECT_EQ(c.dram_write_bytes, 32);
    EXPECT_EQ(c.cycles > 0, dev->has_timing());
    // A second run starts from cleared counters (they are per run).
    ASSERT_TRUE(dev->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000).ok());
    EXPECT_EQ(dev->ReadCounters().macs, 4 * 256);
  }
}

// The counter registers hold each count modulo 2^counters.bits. The models'
// register windows wrap at any width, so a width below the config range (7
// bits) makes a short program wrap; the rtl target is left out: its
// Verilated models are built with their bundled config's width.
TEST(Device, CounterRegistersWrapAtTheConfiguredWidth) {
  DeviceCounters c;
  c.macs = 1000;
  c.stalls[1].busy = 127;
  EXPECT_EQ(c.Wrapped(7).macs, 1000 % 128);
  EXPECT_EQ(c.Wrapped(7).stalls[1].busy, 127);
  EXPECT_TRUE(c.Wrapped(64) == c);
  for (const std::string& target : SelfContainedDeviceTargets()) {
    if (target == "rtl") continue;
    SCOPED_TRACE(target);
    DeviceCounters full;
    for (int bits : {64, 7}) {
      HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
      cfg.counter_bits = bits;
      auto dev = OpenDevice(target, cfg);
      ASSERT_TRUE(dev.ok()) << dev.status().ToString();
      auto prog = AssembleFile(cfg, "examples/programs/gemm_small.s");
      ASSERT_TRUE(prog.ok());
      ASSERT_TRUE(Load(dev->get(), *prog).ok());
      ASSERT_TRUE((*dev)->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000).ok());
      const DeviceCounters got = (*dev)->ReadCounters();
      if (bits == 64) {
        full = got;
        EXPECT_EQ(full.macs, 4 * 256);
      } else {
        EXPECT_TRUE(got == full.Wrapped(bits));
        EXPECT_EQ(got.macs, 4 * 256 % 128);
        EXPECT_EQ(got.dram_write_bytes, 32);
      }
    }
  }
}

// The optional counter groups (isa/regs.def built_with: counters.volumes,
// counters.categories; both 0 on ice40-up5k): with a group's key 0 every
// device reads the group's registers as 0 and the other counters as with it;
// with 1 every counter of the group counts (timed ones on devices with a
// clock). The rtl target runs its ice40-up5k model (built without either
// group) and must agree with sim's registers.
TEST(Device, OptionalCounterGroupsReadZeroWhenNotBuilt) {
  const HwConfig board = testing::LoadConfigOrDie("configs/ice40-up5k.json");
  ASSERT_EQ(board.counter_volumes, 0);
  ASSERT_EQ(board.counter_categories, 0);
  std::vector<std::string> targets = SelfContainedDeviceTargets();
  std::stable_partition(targets.begin(), targets.end(), [](const std::string& t) { return t != "rtl"; });
  // The groups (regs.def's built_with keys), then the board as bundled ("").
  std::vector<std::string_view> keys;
  for (const regs::CounterInfo& c : regs::kCounters)
    if (!c.built_with.empty() && std::find(keys.begin(), keys.end(), c.built_with) == keys.end())
      keys.push_back(c.built_with);
  for (std::string_view key : keys) ASSERT_EQ(FindParam(key)->get(board), 0) << key;  // the board builds neither
  keys.push_back("");
  DeviceCounters sim_board;
  for (const std::string& target : targets) {
    for (std::string_view key : keys) {
      SCOPED_TRACE(target + " " + std::string(key));
      if (target == "rtl" && !key.empty()) continue;  // one model: the board's
      DeviceCounters with;
      for (int on : {1, 0}) {
        HwConfig cfg = board;
        if (!key.empty()) FindParam(key)->set(cfg, on);
        auto dev = OpenDevice(target, cfg);
        ASSERT_TRUE(dev.ok()) << dev.status().ToString();
        auto prog = AssembleFile(cfg, "examples/programs/gemm_small.s");
        ASSERT_TRUE(prog.ok()) << prog.status().ToString();
        ASSERT_TRUE(Load(dev->get(), *prog).ok());
        ASSERT_TRUE((*dev)->Run(prog->text_addr, static_cast<int64_t>(prog->insns.size()), 1000).ok());
        const DeviceCounters got = (*dev)->ReadCounters();
        EXPECT_GT(got.insns(), 0);
        if (key.empty()) {  // the board as bundled
          if (target == "sim") sim_board = got;
          if (target == "rtl") {
            EXPECT_TRUE(got == sim_board);
          }
          EXPECT_TRUE(got == got.InRegisters(board));
          break;
        }
        // Register sums per counter of the group.
        std::vector<int64_t> sums(regs::kNumCounters, 0);
        got.ForEachRegister([&](uint32_t i, const int64_t& v) { sums[i] = v; });
        for (const regs::CounterInfo& c : regs::kCounters) {
          if (c.built_with != key || (c.timed && !(*dev)->has_timing())) continue;
          int64_t sum = 0;
          for (uint32_t r = 0; r < c.size(); ++r) sum += sums[regs::CounterIndex(c.counter) + r];
          EXPECT_EQ(CounterBuilt(cfg, c.counter), on == 1) << c.name;
          EXPECT_EQ(sum > 0, on == 1) << c.name;
        }
        if (on) {
          with = got;
        } else {
          EXPECT_TRUE(got == with.InRegisters(cfg));
        }
      }
    }
  }
}

TEST(Device, LaunchChecksInTheDriver) {
  auto dev = Open("ref");
  EXPECT_EQ(dev->Start(0x1000, 0, 0).message(), "device 'ref': cannot start a run of 0 instructions");
  EXPECT_EQ(dev->Start(0x1008, 1, 0).message(), "device 'ref': instruction address 0x1008 is not 16-byte aligned");
  EXPECT_EQ(dev->Start(dev->config().dram_size_bytes - 16, 2, 0).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(dev->Start(0x1000, 1, -5).message(), "device 'ref': negative timeout -5 ms");
  EXPECT_EQ(dev->StartWithWatchdog(0x1000, 0, 10).message(), "device 'ref': cannot start a run of 0 instructions");
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
  for (const std::string& target : SelfContainedDeviceTargets()) {
    SCOPED_TRACE(target);
    auto dev = Open(target);
    auto prog = AssembleFile(dev->config(), "examples/programs/gemm_heavy.s");
    ASSERT_TRUE(prog.ok());
    ASSERT_TRUE(Load(dev.get(), *prog).ok());
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
