// The accelerator module on its own sockets: register-map conformance (every
// register's reset value and access rule from isa/regs.def, bad accesses
// answered with TLM errors), the interrupt, independence of the quantum, and
// timing that follows the memory target's annotated delays: a slower or
// faster contract memory gives `sim`'s figures at that latency, and an
// arbitrary target's delays (annotated or waited) set the completion cycles.
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
// A memory target that is not the contract's: every burst takes `delay_cycles`,
// whatever else is in flight; odd bursts annotate it, even ones wait it out.
struct FixedDelayMemory : sc_core::sc_module {
  FixedDelayMemory(sc_core::sc_module_name name, const HwConfig& cfg, int64_t delay_cycles)
      : sc_module(name),
        socket("socket"),
        delay(ClockPeriod(cfg) * static_cast<double>(delay_cycles)),
        dram(cfg.dram_size_bytes) {
    socket.register_b_transport(this, &FixedDelayMemory::BTransport);
  }
  void BTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    const uint64_t a = gp.get_address(), n = gp.get_data_length();
    ASSERT_TRUE(dram.InBounds(a, n));
    if (gp.is_read())
      dram.ReadUnchecked(a, gp.get_data_ptr(), n);
    else
      dram.WriteUnchecked(a, gp.get_data_ptr(), n);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (++bursts % 2) {
      d += delay;
    } else {
      sc_core::wait(d + delay);
      d = sc_core::SC_ZERO_TIME;
    }
  }
  tlm_utils::simple_target_socket<FixedDelayMemory> socket;
  sc_core::sc_time delay;
  Dram dram;
  int64_t bursts = 0;
};

struct Bench : sc_core::sc_module {
  Bench(sc_core::sc_module_name name, const HwConfig& cfg, int64_t latency, sc_core::sc_time quantum,
        int64_t fixed_delay = -1)
      : sc_module(name), accel("accel", cfg, quantum), memory("memory", cfg, latency), host("host"), irq("irq") {
    host.bind(accel.regs);
    if (fixed_delay >= 0) {
      fixed = std::make_unique<FixedDelayMemory>("fixed", cfg, fixed_delay);
      accel.mem.bind(fixed->socket);
      spare = std::make_unique<tlm_utils::simple_initiator_socket<Bench>>("spare");
      spare->bind(memory.socket);
    } else {
      accel.mem.bind(memory.socket);
    }
    accel.irq.bind(irq);
  }
  Dram& dram() { return fixed ? fixed->dram : memory.dram(); }
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
  Memory memory;  // bound to accel.mem, or unused beside `fixed`
  std::unique_ptr<FixedDelayMemory> fixed;
  tlm_utils::simple_initiator_socket<Bench> host;
  std::unique_ptr<tlm_utils::simple_initiator_socket<Bench>> spare;  // binds the unused Memory
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
};

Outcome RunSystemc(const HwConfig& cfg, const Program& p, int64_t latency, sc_core::sc_time quantum,
                   int64_t fixed_delay = -1) {
  SimContext ctx;
  Bench b("bench", cfg, latency, quantum, fixed_delay);
  EXPECT_TRUE(LoadProgram(cfg, p, &b.dram()).ok());
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
  o.counters = b.accel.stats().counters;
  EXPECT_EQ(b.Counter(regs::Counter::cycles), static_cast<uint64_t>(o.counters.cycles));
  o.dram = b.dram().Segments();
  b.Write(regs::kCtrl, regs::kCtrlClear);
  sc_core::sc_start(ClockPeriod(cfg));
  EXPECT_FALSE(b.irq.read()) << "CLEAR lowers the interrupt";
  return o;
}

// Every counter; the per-unit categories one by one, to name a difference.
void ExpectSameCounters(const DeviceCounters& sc, const DeviceCounters& sim, const std::string& what) {
  EXPECT_EQ(sc.cycles, sim.cycles) << what;
  for (int u = 0; u < regs::kNumUnits; ++u)
    for (int k = 0; k < regs::kNumStalls; ++k)
      EXPECT_EQ(sc.stalls[u].at(k), sim.stalls[u].at(k))
          << what << " " << regs::kUnitNames[u] << "." << regs::kStallNames[k];
  EXPECT_TRUE(sc == sim) << what;
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
    ExpectSameCounters(sc.counters, sim.stats.counters, "quantum " + std::to_string(q));
    EXPECT_EQ(sc.dram, sim.dram) << "quantum " << q;
    EXPECT_TRUE(sc.irq) << "DONE with IRQ_ENABLE raises the interrupt";
    // The run ends at its last cycle in SystemC time (plus the register accesses before it).
    EXPECT_GE(sc.end, ClockPeriod(cfg) * static_cast<double>(sim.stats.cycles()));
    EXPECT_LT(sc.end, ClockPeriod(cfg) * static_cast<double>(sim.stats.cycles() + 100));
  }
}

// Memory with another latency is another memory: the run's cycles and every
// stall category are `sim`'s on a config with that latency (the accelerator
// itself keeps its config), slower and faster alike.
TEST(Accelerator, TimingFollowsTheTargetsLatency) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  for (const char* file : {"examples/programs/gemm_small.s", "examples/programs/matmul_double_buffered.s"}) {
    auto p = AssembleFile(cfg, file);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const SimOutcome contract = RunSim(cfg, *p);
    for (int64_t latency : {int64_t{cfg.dram_latency_cycles} + 37, int64_t{3}}) {
      HwConfig target = cfg;
      target.dram_latency_cycles = latency;
      const SimOutcome sim = RunSim(target, *p);
      const Outcome sc = RunSystemc(cfg, *p, latency, sc_core::sc_time(1, sc_core::SC_US));
      ExpectSameCounters(sc.counters, sim.stats.counters, std::string(file) + " latency " + std::to_string(latency));
      EXPECT_EQ(sc.dram, contract.dram) << "another memory changes time, not data";
      if (latency > cfg.dram_latency_cycles)
        EXPECT_GT(sc.counters.cycles, contract.stats.cycles());
      else
        EXPECT_LT(sc.counters.cycles, contract.stats.cycles());
      EXPECT_GE(sc.end, ClockPeriod(cfg) * static_cast<double>(sc.counters.cycles));
    }
  }
}

// A target with no data channel that takes D cycles for every burst, half
// of them annotated and half waited: docs/microarch.md's single-LOAD example
// with D for each burst. Fetch's block is accepted in 0 and arrives in D;
// LOAD is dispatched in D, starts in D+1, its burst is ready and accepted in
// D+3 (T_setup = 2) and completes in 2D+3; FINISH pops its token and ends in
// 2D+4. The LOAD is busy T_setup + 4 beats and waits on memory the rest.
TEST(Accelerator, AnArbitraryTargetsDelaysSetTheCompletionCycles) {
  const HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
  auto p = Assemble(cfg,
                    ".text 0x1000\nLOAD mem=inp sram=0 dram=0x200 y_size=1 x_size=4 x_stride=4 push_next\n"
                    "FINISH pop_prev\n",
                    "t.s");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(cfg.dma_setup_cycles, 2);
  for (int64_t d : {int64_t{5}, int64_t{34}, int64_t{100}}) {
    const Outcome sc = RunSystemc(cfg, *p, -1, sc_core::sc_time(1, sc_core::SC_US), d);
    const StallCycles& load = sc.counters.unit(regs::Unit::kLoad);
    EXPECT_EQ(sc.counters.cycles, 2 * d + 4) << "delay " << d;
    EXPECT_EQ(load.busy, 2 + 4) << "delay " << d;
    EXPECT_EQ(load.wait_memory, (d + 2) - 6) << "delay " << d;
    EXPECT_EQ(load.wait_queue, d + 1) << "delay " << d;
    EXPECT_EQ(sc.counters.port_bursts, 2);
    EXPECT_GE(sc.end, ClockPeriod(cfg) * static_cast<double>(2 * d + 4));
  }
}

}  // namespace
}  // namespace tessera::systemc
