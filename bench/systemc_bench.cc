// SystemC model speed: simulated cycles per host second of the Accelerator
// attached to the contract's Memory, run through its register socket, at
// several temporal-decoupling quanta, on the GEMM-heavy and DMA-heavy
// example streams (compare sim_bench's BM_Sim). Single thread.
// Run: build/bench/systemc_bench (figures and command in docs/performance.md).
#include <benchmark/benchmark.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "bench/bench_program.h"
#include "hw/systemc/accelerator.h"
#include "hw/systemc/context.h"
#include "hw/systemc/memory.h"

namespace tessera::systemc {
namespace {

struct Top : sc_core::sc_module {
  Top(sc_core::sc_module_name n, const HwConfig& cfg, sc_core::sc_time quantum)
      : sc_module(n), accel("accel", cfg, quantum), memory("memory", cfg), host("host"), irq("irq") {
    host.bind(accel.regs);
    accel.mem.bind(memory.socket);
    accel.irq.bind(irq);
  }
  void Write(uint32_t off, uint32_t v) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(off);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    sc_core::sc_time d;
    host->b_transport(gp, d);
  }
  Accelerator accel;
  Memory memory;
  tlm_utils::simple_initiator_socket<Top> host;
  sc_core::sc_signal<bool> irq;
};

void BM_SystemC(benchmark::State& state, const char* program, const char* config) {
  const bench::BenchProgram s = bench::LoadBenchProgram(program, config);
  const int64_t quantum = state.range(0);
  int64_t cycles = 0;
  for (auto _ : state) {
    state.PauseTiming();
    SimContext ctx;
    Top top("top", s.cfg, ClockPeriod(s.cfg) * static_cast<double>(quantum));
    TSR_CHECK(LoadProgram(s.cfg, s.prog, &top.memory.dram()).ok(), "load");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    state.ResumeTiming();
    top.Write(regs::kInsnAddrLo, static_cast<uint32_t>(s.prog.text_addr));
    top.Write(regs::kInsnCount, static_cast<uint32_t>(s.prog.insns.size()));
    top.Write(regs::kCtrl, regs::kCtrlStart);
    sc_core::sc_start(sc_core::sc_time(1000, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
    state.PauseTiming();
    if (!top.accel.error_detail().empty()) state.SkipWithError(top.accel.error_detail().c_str());
    cycles += top.accel.stats().cycles();
    state.ResumeTiming();
  }
  state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_SystemC, gemm_heavy_default, "gemm_heavy", "default")
    ->Arg(1000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SystemC, eltwise_add_default, "eltwise_add", "default")
    ->Arg(1000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_SystemC, gemm_heavy_large, "gemm_heavy", "large")->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera::systemc

BENCHMARK_MAIN();
