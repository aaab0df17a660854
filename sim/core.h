// The functional semantics of every instruction (docs/isa.md), shared by the
// reference simulator and the cycle-accurate simulator: scratchpad state plus
// Load/Store/Gemm/Alu on a DRAM. Each access is bounds-checked; errors name
// the instruction index and its disassembly. Internal scratchpad layouts are
// private to this file pair (see Scratchpads).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "isa/base/status.h"
#include "isa/counters.h"
#include "isa/isa.h"

namespace tessera {

struct HwConfig;
class Dram;

// Scratchpad contents. inp: [entries][batch][k_even] int16; wgt:
// [entries][k_even/2][block_out][2] int16 (pair-interleaved for GemmStep);
// acc: [entries][batch][block_out] int32; uop: raw 32-bit words. OUT is not
// stored: it is by definition the accumulator narrowed to out_bits.
struct Scratchpads {
  explicit Scratchpads(const HwConfig& cfg);
  int k_even;
  int inp_stride, wgt_stride, acc_stride;  // elements per entry
  std::vector<int16_t> inp, wgt;
  std::vector<int32_t> acc;
  std::vector<uint32_t> uop;
};

// The stream rule every engine enforces at decode: the last instruction of a
// `count`-instruction stream is its only FINISH.
Status CheckFinishPlacement(const HwConfig& cfg, const Instruction& in, int64_t index, int64_t count);

// Adds one instruction's functional counts (docs/device-protocol.md,
// counters): they follow from its fields alone, so every engine, with or
// without data, counts the same.
void CountInstruction(const HwConfig& cfg, const Instruction& in, DeviceCounters* counters);

// Index triple of one GEMM/ALU loop iteration (after adding loop factors).
struct LoopIndex {
  int64_t dst, src, wgt;
};

class Core {
 public:
  Core(const HwConfig& cfg, Dram* dram);
  // A core without a DRAM of its own, for engines that move the bytes
  // themselves (SystemC over TLM): DRAM ranges are checked against
  // [0, dram_bytes); LOAD/STORE go through the Begin*/…Row steps below.
  Core(const HwConfig& cfg, uint64_t dram_bytes);

  // Executes the data semantics of `in` (LOAD, STORE, GEMM, ALU; FINISH is a
  // no-op) and, when it succeeds, counts it into stats(). `index` is the
  // instruction's position in its stream, used in messages.
  Status Execute(const Instruction& in, int64_t index);
  // Counts an instruction without executing it (timing-only runs; engines
  // that apply LOAD/STORE in the steps below count when the instruction ends).
  void Count(const Instruction& in);

  // LOAD/STORE in steps, for engines whose DRAM bytes arrive or leave as
  // transactions. BeginLoad checks the ranges and writes every padding
  // entry; LoadRow unpacks data row r (0 .. y_size-1) from its
  // x_size * E DRAM bytes. BeginStore checks; StoreRow produces
  // DRAM row r (0 .. rows-1, padding included: cols * E bytes).
  // Execute(LOAD) = BeginLoad + LoadRow of each row read from the DRAM.
  Status BeginLoad(const Instruction& in, int64_t index);
  void LoadRow(const Instruction& in, int64_t r, const uint8_t* bytes);
  Status BeginStore(const Instruction& in, int64_t index);
  void StoreRow(const Instruction& in, int64_t r, uint8_t* bytes) const;

  // Calls fn(LoopIndex) for every iteration of a GEMM/ALU in execution order,
  // after checking every index against its scratchpad. Used by Execute and by
  // analyses (race checks, timing) that need the footprint without the data.
  template <typename Fn>
  Status ForEachIteration(const Instruction& in, int64_t index, Fn&& fn) const;

  // A host-time limit for the GEMM/ALU loop nests (ref's timeout): past it a
  // loop stops with kDeadlineExceeded instead of finishing its instruction,
  // so one instruction of 2^40 iterations cannot outlast the limit.
  void SetDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline, has_deadline_ = true; }
  void ClearDeadline() { has_deadline_ = false; }

  // DRAM element range touched by a LOAD/STORE: [first, last] element indices
  // (empty when the transfer has no data rows/columns).
  struct DramSpan {
    uint64_t first_byte = 0, end_byte = 0;
  };
  DramSpan MemSpan(const Instruction& in) const;
  int64_t SramRows(const Instruction& in) const;  // entries written/read on the SRAM side

  const Scratchpads& sp() const { return sp_; }
  Scratchpads& sp() { return sp_; }
  const DeviceCounters& stats() const { return stats_; }
  DeviceCounters& stats() { return stats_; }
  const HwConfig& cfg() const { return cfg_; }

  // Test/debug accessors in architectural (DRAM) layout.
  int64_t AccLane(int64_t entry, int b, int o) const;
  int64_t InpLane(int64_t entry, int b, int k) const;
  int64_t WgtLane(int64_t entry, int o, int k) const;

 private:
  Status Load(const Instruction& in, int64_t index);
  Status Store(const Instruction& in, int64_t index);
  Status Gemm(const Instruction& in, int64_t index);
  Status Alu(const Instruction& in, int64_t index);
  Status CheckMem(const Instruction& in, int64_t index) const;
  Status Error(int64_t index, const Instruction& in, const std::string& msg) const;
  void UnpackRow(MemType m, const uint8_t* src, int64_t entry, int64_t count);
  void FillPad(MemType m, int64_t entry, int64_t count, int64_t value);

  const HwConfig& cfg_;
  Dram* dram_;
  uint64_t dram_bytes_;
  Scratchpads sp_;
  DeviceCounters stats_;
  std::vector<uint8_t> row_buf_;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace tessera

#include "sim/core_inl.h"
