// Fault paths agree across engines: for each kind of fault a program can
// cause, `ref` and `sim` stop with the same structured fault (ERROR_CODE
// value and faulting instruction index, docs/registers.md), carried on the
// Status as data. The programs order FINISH after the faulting instruction
// with tokens, so the fault is the first thing either engine meets. Every
// other built device (systemc, rtl) is held to the same cases.
#include <gtest/gtest.h>

#include <functional>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/config.h"
#include "isa/program.h"
#include "isa/regs.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

struct Case {
  const char* name;
  const char* text;
  regs::ErrorCode code;
  uint32_t insn;
  int64_t count = -1;                                  // instructions launched; -1 = the program's
  std::function<void(const HwConfig&, Dram*)> damage;  // applied after loading
};

constexpr uint64_t kTextAddr = 0x1000;

Fault RunOn(const HwConfig& cfg, const Case& c, bool cycle) {
  auto prog = Assemble(cfg, c.text, c.name);
  EXPECT_TRUE(prog.ok()) << prog.status().ToString();
  if (!prog.ok()) return {};
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  if (c.damage) c.damage(cfg, &dram);
  const int64_t count = c.count >= 0 ? c.count : static_cast<int64_t>(prog->insns.size());
  Status s;
  if (cycle) {
    CycleSim sim(cfg, &dram);
    CycleOptions o;
    o.max_cycles = 100000;
    s = sim.Run(prog->text_addr, count, o);
  } else {
    RefSim ref(cfg, &dram);
    s = ref.Run(prog->text_addr, count);
  }
  EXPECT_FALSE(s.ok()) << c.name << " on " << (cycle ? "sim" : "ref");
  EXPECT_TRUE(s.fault().has_value()) << c.name << ": " << s.ToString();
  return s.fault().value_or(Fault{});
}

// The same case on a hardware model's device (systemc, rtl), through the
// register protocol: the damaged DRAM is copied in, the run launched by
// register writes (INSN_COUNT 0 included) and the fault read back from
// ERROR_CODE / ERROR_INSN.
Fault RunOnDevice(const std::string& target, const HwConfig& cfg, const Case& c) {
  auto prog = Assemble(cfg, c.text, c.name);
  if (!prog.ok()) return {};
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, *prog, &dram).ok());
  if (c.damage) c.damage(cfg, &dram);
  auto dev = OpenDevice(target, cfg);
  EXPECT_TRUE(dev.ok()) << dev.status().ToString();
  if (!dev.ok()) return {};
  for (const auto& [addr, bytes] : dram.Segments()) EXPECT_TRUE((*dev)->Write(addr, bytes.data(), bytes.size()).ok());
  const int64_t count = c.count >= 0 ? c.count : static_cast<int64_t>(prog->insns.size());
  (*dev)->WriteReg(regs::kInsnAddrLo, static_cast<uint32_t>(prog->text_addr));
  (*dev)->WriteReg(regs::kInsnCount, static_cast<uint32_t>(count));
  (*dev)->WriteReg(regs::kWatchdogLo, 100000);
  (*dev)->WriteReg(regs::kCtrl, regs::kCtrlStart);
  Status s = (*dev)->Wait();
  EXPECT_FALSE(s.ok()) << c.name << " on " << target;
  const DeviceStatus st = (*dev)->ReadStatus();
  return Fault{static_cast<uint32_t>(st.error_code), st.error_insn};
}

TEST(FaultEquality, RefAndSimReportTheSameCodeAndInstruction) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  const Case cases[] = {
      {"scratchpad index out of range",
       ".text 0x1000\nLOAD mem=wgt sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
       "LOAD mem=inp sram=4000 dram=0x2000 y_size=1 x_size=1 x_stride=1 push_next=1\nFINISH pop_prev=1\n",
       regs::ErrorCode::kMemoryFault, 1, -1, nullptr},
      {"DMA outside DRAM",
       ".text 0x1000\nLOAD mem=inp sram=0 dram=0x3ffffff0 y_size=2 x_size=1 x_stride=4096 push_next=1\n"
       "FINISH pop_prev=1\n",
       regs::ErrorCode::kMemoryFault, 0, -1, nullptr},
      {"FINISH not last", ".text 0x1000\nFINISH\nFINISH\n", regs::ErrorCode::kIllegalInstruction, 0, -1, nullptr},
      {"token left at FINISH",
       ".text 0x1000\nLOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1 push_next=1\nFINISH\n",
       regs::ErrorCode::kTokenError, 1, -1, nullptr},
      // The end-of-stream rule (docs/isa.md): the LOAD and the STORE end long
      // before FINISH, but no token orders them before it (issue 15, finding 10).
      {"LOAD not ordered before FINISH",
       ".text 0x1000\nLOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
       "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=64 iter_in=64\nFINISH\n",
       regs::ErrorCode::kTokenError, 2, -1, nullptr},
      {"STORE not ordered before FINISH",
       ".text 0x1000\nSTORE mem=out sram=16 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
       "ALU op=add use_imm imm=1 uop_bgn=0 uop_end=1 iter_out=64 iter_in=64\nFINISH\n",
       regs::ErrorCode::kTokenError, 2, -1, nullptr},
      {"deadlock", ".text 0x1000\nGEMM pop_prev=1 uop_bgn=0 uop_end=1 iter_out=1 iter_in=1\nFINISH\n",
       regs::ErrorCode::kDeadlock, Fault::kNoInsn, -1, nullptr},
      {"no instructions", ".text 0x1000\nFINISH\n", regs::ErrorCode::kBadLaunch, Fault::kNoInsn, 0, nullptr},
      {"opcode outside the table",
       ".text 0x1000\nLOAD mem=inp sram=0 dram=0x2000 y_size=1 x_size=1 x_stride=1\n"
       "LOAD mem=inp sram=1 dram=0x2000 y_size=1 x_size=1 x_stride=1\nFINISH\n",
       regs::ErrorCode::kIllegalInstruction, 1, -1,
       [](const HwConfig&, Dram* d) {
         const uint8_t bad = 0x07;  // opcode field (bits 2..0) = 7: no such opcode
         ASSERT_TRUE(d->Write(kTextAddr + 16, &bad, 1).ok());
       }},
  };
  for (const Case& c : cases) {
    const Fault ref = RunOn(cfg, c, false), sim = RunOn(cfg, c, true);
    EXPECT_EQ(ref.code, static_cast<uint32_t>(c.code)) << c.name << ": ref";
    EXPECT_EQ(ref.insn, c.insn) << c.name << ": ref";
    EXPECT_TRUE(ref == sim) << c.name << ": ref code " << ref.code << " insn " << ref.insn << ", sim code " << sim.code
                            << " insn " << sim.insn;
    for (const std::string& target : SelfContainedDeviceTargets()) {
      if (target == "ref" || target == "sim") continue;
      const Fault hw = RunOnDevice(target, cfg, c);
      EXPECT_TRUE(sim == hw) << c.name << ": sim code " << sim.code << " insn " << sim.insn << ", " << target
                             << " code " << hw.code << " insn " << hw.insn;
    }
  }
}

// The launch check (ERROR_CODE bad launch: the stream must lie in
// [0, dram.size_bytes)) at its edges, through the raw registers, on every
// built device: a stream ending exactly at the top of DRAM launches; one
// instruction more, an address past the top or in the high word, or a count
// whose byte length alone exceeds DRAM does not. Launched streams end in a
// FINISH, so every engine stops on its own.
TEST(FaultEquality, LaunchBoundsAgreeOnEveryTarget) {
  for (const char* path : {"configs/default.json", "configs/ice40-up5k.json"}) {
    const HwConfig cfg = testing::LoadConfigOrDie(path);
    const uint64_t size = cfg.dram_size_bytes;
    struct Launch {
      uint64_t addr;
      uint32_t count;
      bool bad;
    };
    std::vector<Launch> cases = {{size - 16, 1, false},
                                 {size - 16, 2, true},
                                 {size, 1, true},
                                 {size + 0x1000, 1, true},
                                 {(1ULL << 32) | 0x1000, 1, true},
                                 {0x1000, 0x80000000U, true},
                                 {0x1000, static_cast<uint32_t>(size / 16), true}};
    if (size / 16 <= 8192) cases.push_back({0, static_cast<uint32_t>(size / 16), false});
    Instruction finish;
    finish.opcode = static_cast<int64_t>(Opcode::kFinish);
    auto finish_word = EncodeStream(cfg, {finish});
    ASSERT_TRUE(finish_word.ok()) << finish_word.status().ToString();
    std::vector<std::string> targets = {"ref", "sim"};
    for (const std::string& t : SelfContainedDeviceTargets())
      if (t != "ref" && t != "sim") targets.push_back(t);
    for (const std::string& target : targets) {
      for (const Launch& l : cases) {
        auto dev = OpenDevice(target, cfg);
        ASSERT_TRUE(dev.ok()) << dev.status().ToString();
        if (!l.bad) {
          const uint64_t last = l.addr + kInsnBytes * (static_cast<uint64_t>(l.count) - 1);
          ASSERT_TRUE((*dev)->Write(last, finish_word->data(), kInsnBytes).ok());
        }
        (*dev)->WriteReg(regs::kInsnAddrLo, static_cast<uint32_t>(l.addr));
        (*dev)->WriteReg(regs::kInsnAddrHi, static_cast<uint32_t>(l.addr >> 32));
        (*dev)->WriteReg(regs::kInsnCount, l.count);
        (*dev)->WriteReg(regs::kWatchdogLo, 1000000);
        (*dev)->WriteReg(regs::kCtrl, regs::kCtrlStart);
        (void)(*dev)->Wait();
        const DeviceStatus st = (*dev)->ReadStatus();
        EXPECT_EQ(st.error && st.error_code == regs::ErrorCode::kBadLaunch, l.bad)
            << path << " on " << target << ": address 0x" << std::hex << l.addr << " count 0x" << l.count;
        if (!l.bad) {
          EXPECT_TRUE(st.done && !st.error)
              << path << " on " << target << ": code " << static_cast<uint32_t>(st.error_code);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera
