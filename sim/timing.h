// The timing contract of docs/microarch.md, stated once. Every rule that says
// when something can start or how long it takes — burst splitting (4 KiB,
// 256 beats), beats of a burst, the data channel, fetch blocks, LOAD/STORE
// readiness, GEMM/ALU/FINISH durations, the busy part of a DMA — is a function
// here. `sim` (cycle_sim.cc, mem_port.cc) executes them cycle by cycle; cost
// models (the compiler's tiler, the matmul example) combine them, and the
// closed forms at the end (DmaAlone, FirstStartCycle) are built only from
// them. Nothing else restates a rule.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "isa/config.h"
#include "isa/isa.h"

namespace tessera::timing {

// ---- The memory port -------------------------------------------------------

inline constexpr uint64_t kBurstBoundaryBytes = 4096;  // no burst crosses a 4 KiB boundary
inline constexpr int64_t kMaxBurstBeats = 256;         // nor exceeds 256 beats (AXI4)

struct Port {
  int64_t latency = 0;          // L
  int64_t bytes_per_cycle = 0;  // B
  int64_t max_outstanding = 0;  // N_out
  static Port Of(const HwConfig& cfg) {
    return Port{cfg.dram_latency_cycles, cfg.dram_bytes_per_cycle, cfg.dram_max_outstanding};
  }
  uint64_t max_burst_bytes() const { return static_cast<uint64_t>(kMaxBurstBeats * bytes_per_cycle); }
};

// Bytes of the burst that starts at `addr` when `remaining` bytes of the transfer are left.
inline uint64_t BurstBytes(const Port& p, uint64_t addr, uint64_t remaining) {
  const uint64_t to_boundary = kBurstBoundaryBytes - addr % kBurstBoundaryBytes;
  return std::min({remaining, to_boundary, p.max_burst_bytes()});
}

// Data-channel cycles of a burst of `bytes` at `addr`.
inline int64_t Beats(const Port& p, uint64_t addr, uint64_t bytes) {
  const uint64_t b = static_cast<uint64_t>(p.bytes_per_cycle);
  return static_cast<int64_t>((addr % b + bytes + b - 1) / b);
}

// A burst accepted in cycle `t` while the data channel is free from `data_free`:
// its data occupies [data, data + beats), and it completes (its outstanding slot
// frees) in `completion`.
struct BurstTiming {
  int64_t data, completion;
};
inline BurstTiming TimeBurst(const Port& p, bool write, int64_t t, int64_t data_free, int64_t beats) {
  if (write) {
    const int64_t d = std::max(t, data_free);
    return {d, d + beats + p.latency};
  }
  const int64_t d = std::max(t + p.latency, data_free);
  return {d, d + beats};
}

// The port grants at most one burst request per cycle, fetch first, then the
// DMA modules in this order.
inline constexpr std::array<Module, 3> kDmaPriority = {Module::kCompute, Module::kStore, Module::kLoad};

// ---- Fetch -----------------------------------------------------------------

// Instructions in the fetch request for instruction `next` of a `count`-instruction
// stream at byte address `stream_addr`: at most min(8, F) (cfg.fetch_block),
// never past the stream's end nor across a 4 KiB boundary.
inline int64_t FetchBlockInsns(const HwConfig& cfg, uint64_t stream_addr, int64_t next, int64_t count) {
  const uint64_t addr = stream_addr + static_cast<uint64_t>(next) * kInsnBytes;
  const int64_t to_boundary = static_cast<int64_t>((kBurstBoundaryBytes - addr % kBurstBoundaryBytes) / kInsnBytes);
  return std::min({int64_t{cfg.fetch_block}, count - next, to_boundary});
}

// ---- Instructions ------------------------------------------------------------

// Padding entries a LOAD writes (one per cycle, before its bursts).
inline int64_t LoadPaddingEntries(int64_t y_pad0, int64_t y_size, int64_t y_pad1, int64_t x_pad0, int64_t x_size,
                                  int64_t x_pad1) {
  return (y_pad0 + y_size + y_pad1) * (x_pad0 + x_size + x_pad1) - y_size * x_size;
}

// LOAD: every burst is ready from R0 = S + T_setup + P.
inline int64_t LoadBurstsReady(const HwConfig& cfg, int64_t start, int64_t padding) {
  return start + cfg.dma_setup_cycles + padding;
}

// STORE: the out scratchpad is read one data entry per cycle from S + T_setup;
// the bursts of DRAM row `row` (padding rows included) are ready once the data
// entries of rows 0..row have been read.
inline int64_t StoreReadStart(const HwConfig& cfg, int64_t start) { return start + cfg.dma_setup_cycles; }
inline int64_t StoreRowReady(int64_t read_start, int64_t y_pad0, int64_t y_size, int64_t x_size, int64_t row) {
  return read_start + std::clamp<int64_t>(row - y_pad0 + 1, 0, y_size) * x_size;
}

// A DMA ends when its last burst completes, and not before S + 1 nor its
// `ready_floor` (LOAD: R0; STORE: S + T_setup, which matters without bursts).
inline int64_t DmaEnd(int64_t start, int64_t ready_floor, int64_t last_completion) {
  return std::max({start + 1, ready_floor, last_completion});
}

// Busy part of a DMA instruction's cycles (the rest is waiting on memory).
inline int64_t DmaBusyCycles(const HwConfig& cfg, int64_t padding, int64_t beats) {
  return cfg.dma_setup_cycles + padding + beats;
}
// How a DMA's `len` cycles count: busy (its busy part) and wait_memory. For a
// compute LOAD beside a GEMM (`beside` of its cycles, busy for the GEMM), those
// cycles are counted once, taken from its wait on memory first.
struct DmaSplit {
  int64_t busy, wait_memory;
};
inline DmaSplit SplitDmaCycles(int64_t len, int64_t busy_part, int64_t beside) {
  const int64_t busy = std::min(len, busy_part), wait = len - busy, from_wait = std::min(beside, wait);
  return {busy - (beside - from_wait), wait - from_wait};
}

// GEMM: one uop iteration per cycle, then the pipeline drains.
inline int64_t GemmIterations(const Instruction& in) { return in.iter_out * in.iter_in * (in.uop_end - in.uop_bgn); }
inline int64_t GemmCycles(const HwConfig& cfg, int64_t iterations) { return iterations + cfg.gemm_pipeline_depth; }

// ALU: an iteration that reads a source row takes a second accumulator read
// (2 cycles) unless its source entry equals the previous iteration's, which
// the operand register holds; other iterations take 1 cycle. With L =
// alu.lanes lanes over the V = batch x block_out elements of a row, the lanes
// take V / L passes over it, each 1 cycle, or k = alu.mul_cycles for an op
// whose isa.def cycles column is kSlow (mul, mulshr, mulshrc); the next
// iteration's first read waits for the last pass: every iteration takes
// (V / L) x (1 or k) - 1 cycles more.
inline bool AluReadsSource(const Instruction& in) { return !in.reset && !in.use_imm; }
inline int64_t AluPasses(const HwConfig& cfg) { return cfg.alu_passes; }
inline int64_t AluPassCycles(const HwConfig& cfg, AluOp op) {
  return AluPasses(cfg) * (AluOpCycles(op) == AluCycles::kSlow ? cfg.alu_mul_cycles : 1);
}
inline int64_t AluIterationCycles(const HwConfig& cfg, AluOp op, bool reads_source, int64_t src, int64_t prev_src) {
  return (reads_source && src != prev_src ? 2 : 1) + AluPassCycles(cfg, op) - 1;
}
inline constexpr int64_t kNoSource = -1;  // prev_src of the first iteration
inline int64_t AluCycles(const HwConfig& cfg, int64_t iteration_cycles) {
  return iteration_cycles + cfg.alu_pipeline_depth;
}
// Sum of the iteration cycles of an ALU loop nest (outer, inner, uop; the
// source of uop u in iteration (i, j) is uop_src[u] + i*src_out + j*src_in):
// the rule above in closed form.
int64_t AluLoopCycles(const HwConfig& cfg, AluOp op, bool reads_source, int64_t outer, int64_t inner,
                      const int64_t* uop_src, int64_t uops, int64_t src_out, int64_t src_in);

inline constexpr int64_t kFinishCycles = 1;

// ---- The compute module's two pipes ----------------------------------------
// GEMM runs on the GEMM pipe; ALU and LOAD acc/acc8 (which write accumulator
// rows like an ALU) on the ALU pipe; LOAD uop (both pipes' uop copies) and
// FINISH take both. The command queue issues in order, at most one
// instruction per cycle, one per pipe at a time. One with `ovl` (GEMM, ALU,
// LOAD acc/acc8), on a config with timing.compute_overlap, starts once its own
// pipe is free and the other pipe is free or runs a one-pipe instruction (the
// compiler promises they touch different accumulator banks, AccBank; ref
// checks it); every other compute instruction starts once both pipes are free
// (without compute_overlap: always, so the module runs one instruction at a time).
enum class Pipe { kAlu = 0, kGemm = 1 };
inline constexpr int kNumPipes = 2;
inline Pipe PipeOf(const Instruction& in) { return in.op() == Opcode::kGemm ? Pipe::kGemm : Pipe::kAlu; }
inline bool TakesBothPipes(const Instruction& in) {
  return in.op() == Opcode::kFinish || (in.op() == Opcode::kLoad && in.mem_type() == MemType::kUop);
}
inline bool MayOverlap(const HwConfig& cfg, const Instruction& in) {
  return cfg.compute_overlap != 0 && !TakesBothPipes(in) && in.ovl != 0;
}
// What a pipe holds (an instruction running or waiting to push): nothing, a
// one-pipe instruction (GEMM, ALU, LOAD acc/acc8), or one that takes both
// pipes (held on the ALU pipe).
enum class PipeHolds { kNothing, kOnePipe, kBothPipes };
// Whether the command queue's head `in` can start.
inline bool PipesAllow(const HwConfig& cfg, const Instruction& in, PipeHolds alu, PipeHolds gemm) {
  if (TakesBothPipes(in)) return alu == PipeHolds::kNothing && gemm == PipeHolds::kNothing;
  const bool gemm_pipe = PipeOf(in) == Pipe::kGemm;
  const PipeHolds own = gemm_pipe ? gemm : alu, other = gemm_pipe ? alu : gemm;
  return own == PipeHolds::kNothing &&
         (other == PipeHolds::kNothing || (MayOverlap(cfg, in) && other == PipeHolds::kOnePipe));
}
// What a pipe running `in` holds (nullptr: the pipe is free).
inline PipeHolds HoldsOf(const Instruction* in) {
  return !in ? PipeHolds::kNothing : TakesBothPipes(*in) ? PipeHolds::kBothPipes : PipeHolds::kOnePipe;
}
// A compute instruction's push into a token queue waits until the older
// instruction on the other pipe, if it pushes into the same queue, has pushed:
// each queue receives the compute module's tokens in stream order.
bool PushWaitsForOlder(const Instruction& younger, const Instruction& older);
// The accumulator (and its out shadow) is two banks, the halves [0, E/2) and
// [E/2, E) (E = acc entries), each with one read and one write port: an
// instruction with ovl and the older one on the other pipe it may overlap
// touch different banks (not only different rows; ref's race detector checks it).
inline int AccBank(const HwConfig& cfg, int64_t row) { return row >= cfg.acc_entries / 2 ? 1 : 0; }

// ---- Closed forms built from the rules (for cost models) --------------------

// The first instruction of a `count`-instruction stream at a 4 KiB-aligned
// address starts in this cycle: its fetch block's latency and beats, one dispatch.
int64_t FirstStartCycle(const HwConfig& cfg, int64_t count);

// One DMA alone on an otherwise idle port, its bursts issued as the port
// allows (one request per cycle, N_out outstanding, data in acceptance order).
// `rows` DRAM rows of `row_bytes`, `pitch` bytes apart from byte `addr`.
// LOAD: `padding` entries first. STORE: rows y_pad0 .. y_pad0 + data_rows - 1
// carry `data_cols` data entries each (the others are padding rows).
struct DmaShape {
  bool write = false;
  uint64_t addr = 0, pitch = 0, row_bytes = 0;
  int64_t rows = 0;
  int64_t padding = 0;                               // LOAD
  int64_t y_pad0 = 0, data_rows = 0, data_cols = 0;  // STORE
};
struct DmaCost {
  int64_t cycles = 0;  // End - S
  int64_t bursts = 0, beats = 0;
  int64_t slot_cycles = 0;  // sum over bursts of (completion - acceptance)
};
DmaCost DmaAlone(const HwConfig& cfg, const DmaShape& d);

// Bursts and beats of a DMA (independent of timing).
struct Traffic {
  int64_t bursts = 0, beats = 0;
};
Traffic DmaTraffic(const HwConfig& cfg, const DmaShape& d);

}  // namespace tessera::timing
