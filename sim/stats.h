// Counters every engine fills while executing a stream (functional part).
// The cycle simulator adds timing statistics on top (sim/cycle_stats.h).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "isa/isa.h"

namespace tessera {

struct ExecStats {
  std::array<int64_t, 5> insns{};            // by opcode
  std::array<int64_t, 6> dram_read_bytes{};  // by memory type (LOADs)
  int64_t insn_fetch_bytes = 0;              // instruction stream read by fetch
  int64_t dram_write_bytes = 0;              // STOREs (including padding)
  int64_t gemm_iterations = 0;               // GEMM uop iterations (reset ones included)
  int64_t macs = 0;                          // multiply-accumulates performed
  int64_t alu_iterations = 0;                // ALU uop iterations (one accumulator row each)
  int64_t uop_loads = 0;                     // uops loaded into the uop buffer

  int64_t total_insns() const;
  int64_t total_dram_read_bytes() const;
  void Add(const ExecStats& o);
  // Adds the functional counters to a JSON object (engines add their own keys):
  // instructions{load,store,gemm,alu,finish}, dram_read_bytes (total, with
  // instruction fetch), dram_read_bytes_by_kind{insn,uop,wgt,inp,acc,acc8},
  // dram_write_bytes, macs, gemm_iterations, alu_iterations, uop_loads.
  void AddToJson(nlohmann::json* j) const;
};

}  // namespace tessera
