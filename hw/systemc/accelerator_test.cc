// The accelerator module on its own sockets: register-map conformance (every
// register's reset value and access rule from isa/regs.def, bad accesses
// answered with TLM errors), the interrupt, independence of the quantum, and
// timing that follows a slower memory target's annotated delays.
#include "hw/systemc/accelerator.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw/systemc/context.h"
#include "hw/systemc/memory.h"
#include "isa/asm.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "tests/support/random_isa.h"

namespace tessera::systemc {
namespace {

// Host socket -> accelerator registers; accelerator memory -> Memory.
struct Bench : sc_core::sc_module {
  Bench(sc_core::sc_module_name name, const HwConfig& cfg, int64_t latency, sc_core::sc_time quantum)
      : sc_module(name), accel("accel", cfg, quantum), memory("memory", cfg, latency), host("host"), irq("irq") {
    host.bind(accel.regs);
    accel.mem.bind(memory.socket);
    accel.irq.bind(irq);
  }
  tlm::tlm_response_status Access(tlm::tlm_command cmd, uint64_t addr, uint32_t* v, unsigned len = 4) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(v));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    sc_core::sc_time d;
    host->b_transport(gp, d);
    return gp.get_response_status();
  }
  uint32_t Read(uint32_t off) {
    uint32_t v = 0xDEADBEEF;
    EXPECT_EQ(Access(tlm::TLM_READ_COMMAND, off, &v), tlm::TLM_OK_RESPONSE) << off;
    return v;
  }
  void Write(uint32_t off, uint32_t v) { EXPECT_EQ(Access(tlm::TLM_WRITE_COMMAND, off, &v), tlm::TLM_OK_RESPONSE); }
  uint64_t Counter(regs::Counter c) {
    const uint32_t off = regs::CounterOffset(regs::CounterIndex(c));
    return Read(off) | uint64_t{Read(off + 4)} << 32;
  }

  Accelerator accel;
  Memory memory;
  tlm_utils::simple_initiator_socket<Bench> host;
  sc_core::sc_signal<bool> irq;
};

TEST(Accelerator, RegisterMapConformance) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  SimContext ctx;
  Bench b("bench", cfg, -1, sc_core::sc_time(1, sc_core::SC_US));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  for (const regs::RegInfo& r : regs::kRegs) {
    const uint32_t reset = r.access == regs::Access::kW ? 0 : regs::ResetValue(r, cfg.isa_fingerprint);
    EXPECT_EQ(b.Read(r.offset), reset) << r.name;
  }
  for (uint32_t i = 0; i < regs::kNumCounters; ++i) EXPECT_EQ(b.Read(regs::CounterOffset(i)), 0u) << i;
  for (const regs::RegInfo& r : regs::kRegs) {
    if (r.offset == regs::kCtrl) continue;
    const uint32_t before = b.Read(r.offset);
    b.Write(r.offset, 0x12345670);
    if (r.access == regs::Access::kRW)
      EXPECT_EQ(b.Read(r.offset), 0x12345670u) << r.name;
    else
      EXPECT_EQ(b.Read(r.offset), before) << r.name << " is read-only";
    b.Write(r.offset, before);
  }
  uint32_t v = 0;
  EXPECT_EQ(b.Access(tlm::TLM_READ_COMMAND, regs::kRegisterWindowBytes, &v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(b.Access(tlm::TLM_READ_COMMAND, 2, &v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(b.Access(tlm::TLM_READ_COMMAND, 0, &v, 2), tlm::TLM_BURST_ERROR_RESPONSE);
}

struct Outcome {
  DeviceCounters counters;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> dram;
  bool irq = false;
  sc_core::sc_time end;
  int64_t stall = 0;
};

Outcome RunSystemc(const HwConfig& cfg, const Program& p, int64_t latency, sc_core::sc_time quantum) {
  SimContext ctx;
  Bench b("bench", cfg, latency, quantum);
  EXPECT_TRUE(LoadProgram(cfg, p, &b.memory.dram()).ok());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  b.Write(regs::kIrqEnable, 1);
  b.Write(regs::kInsnAddrLo, static_cast<uint32_t>(p.text_addr));
  b.Write(regs::kInsnCount, static_cast<uint32_t>(p.insns.size()));
  b.Write(regs::kCtrl, regs::kCtrlStart);
  EXPECT_EQ(b.Read(regs::kStatus), regs::kStatusBusy);
  EXPECT_FALSE(b.irq.read());
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  Outcome o;
  EXPECT_EQ(b.Read(regs::kStatus), regs::kStatusDone) << b.accel.error_detail();
  o.irq = b.irq.read();
  o.end = sc_core::sc_time_stamp();
  o.stall = b.accel.memory_stall_cycles();
  o.counters = b.accel.stats().counters;
  EXPECT_EQ(b.Counter(regs::Counter::cycles), static_cast<uint64_t>(o.counters.cycles));
  o.dram = b.memory.dram().Segments();
  b.Write(regs::kCtrl, regs::kCtrlClear);
  sc_core::sc_start(ClockPeriod(cfg));
  EXPECT_FALSE(b.irq.read()) << "CLEAR lowers the interrupt";
  return o;
}

struct SimOutcome {
  CycleStats stats;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> dram;
};

SimOutcome RunSim(const HwConfig& cfg, const Program& p) {
  Dram dram(cfg.dram_size_bytes);
  EXPECT_TRUE(LoadProgram(cfg, p, &dram).ok());
  CycleSim sim(cfg, &dram);
  EXPECT_TRUE(sim.Run(p.text_addr, static_cast<int64_t>(p.insns.size())).ok());
  SimOutcome o{sim.stats(), dram.Segments()};
  return o;
}

TEST(Accelerator, ContractMemoryGivesSimCyclesAtAnyQuantumAndInterrupts) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto p = AssembleFile(cfg, "examples/programs/matmul_double_buffered.s");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const SimOutcome sim = RunSim(cfg, *p);
  for (int64_t q : {1, 1000, 1000000}) {
    const Outcome sc = RunSystemc(cfg, *p, -1, ClockPeriod(cfg) * static_cast<double>(q));
    EXPECT_TRUE(sc.counters == sim.stats.counters) << "quantum " << q;
    EXPECT_EQ(sc.dram, sim.dram) << "quantum " << q;
    EXPECT_EQ(sc.stall, 0);
    EXPECT_TRUE(sc.irq) << "DONE with IRQ_ENABLE raises the interrupt";
    // The run ends at its last cycle in SystemC time (plus the register accesses before it).
    EXPECT_GE(sc.end, ClockPeriod(cfg) * static_cast<double>(sim.stats.cycles()));
    EXPECT_LT(sc.end, ClockPeriod(cfg) * static_cast<double>(sim.stats.cycles() + 100));
  }
}

TEST(Accelerator, SlowMemoryStallsByTheAnnotatedExcess) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto p = AssembleFile(cfg, "examples/programs/gemm_small.s");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const SimOutcome sim = RunSim(cfg, *p);
  constexpr int64_t kExtra = 37;  // cycles of latency beyond the contract's, per burst
  const Outcome slow = RunSystemc(cfg, *p, cfg.dram_latency_cycles + kExtra, sc_core::sc_time(1, sc_core::SC_US));
  const int64_t bursts = sim.stats.counters.port_bursts;
  ASSERT_GT(bursts, 0);
  EXPECT_EQ(slow.stall, kExtra * bursts);
  EXPECT_EQ(slow.counters.cycles, sim.stats.cycles() + kExtra * bursts);
  EXPECT_EQ(slow.dram, sim.dram) << "a slower memory changes time, not data";
  int64_t extra_wait = 0;
  for (int u = 0; u < regs::kNumUnits; ++u)
    extra_wait += slow.counters.stalls[u].wait_memory - sim.stats.counters.stalls[u].wait_memory;
  EXPECT_EQ(extra_wait, kExtra * bursts) << "the stall is memory wait of the issuing units";
  EXPECT_GE(slow.end, ClockPeriod(cfg) * static_cast<double>(slow.counters.cycles));
}

}  // namespace
}  // namespace tessera::systemc
