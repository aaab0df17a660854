// HwConfig: the one typed hardware configuration. Loaded from JSON
// (configs/*.json) and validated in one place (config.cc); every derived
// size — entries per scratchpad, index bits, element bytes, the instruction
// layout — is computed there. Modules take `const HwConfig&`.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera {

// Bit position and width of a field in one instruction format.
struct FieldSlot {
  int lsb = -1;  // -1: the field is not part of this format
  int width = 0;
  bool present() const { return lsb >= 0; }
};

struct IsaLayout {
  std::array<std::array<FieldSlot, kNumFields>, kNumFormats> slots;
  std::array<int, kNumFormats> bits_used{};
  std::array<FieldSlot, kNumUopFields> uop_slots;
  int uop_bits_used = 0;

  const FieldSlot& slot(Format f, FieldId id) const { return slots[static_cast<int>(f)][static_cast<int>(id)]; }
  const FieldSlot& uop_slot(UopFieldId id) const { return uop_slots[static_cast<int>(id)]; }
};

struct HwConfig {
  // --- as written in the JSON file ---
  std::string name;
  std::string description;
  int batch = 0, block_in = 0, block_out = 0;                          // gemm.*
  int inp_bits = 0, wgt_bits = 0, acc_bits = 0;                        // datatypes.*
  int64_t inp_bytes = 0, wgt_bytes = 0, acc_bytes = 0, uop_bytes = 0;  // scratchpads.*
  uint64_t dram_size_bytes = 0;                                        // dram.size_bytes
  int dram_latency_cycles = 0;                                         // dram.latency_cycles
  int dram_bytes_per_cycle = 0;                                        // dram.bytes_per_cycle
  int dram_max_outstanding = 0;                                        // dram.max_outstanding (bursts in flight)
  int command_queue_depth = 0;                                         // queues.command_depth
  int fetch_buffer = 0;                                                // queues.fetch_buffer (instructions)
  int token_queue_depth = 0;                                           // queues.token_depth
  int dma_setup_cycles = 0;                                            // timing.dma_setup_cycles
  int gemm_pipeline_depth = 0;                                         // timing.gemm_pipeline_depth
  int alu_pipeline_depth = 0;                                          // timing.alu_pipeline_depth
  double clock_mhz = 0;                                                // clock_mhz

  // --- derived (filled by Validate) ---
  int out_bits = 0;        // the output (narrowed accumulator) width = inp_bits
  int inp_tile_bytes = 0;  // BATCH x BLOCK_IN x inp
  int wgt_tile_bytes = 0;  // BLOCK_OUT x BLOCK_IN x wgt
  int acc_tile_bytes = 0;  // BATCH x BLOCK_OUT x acc
  int out_tile_bytes = 0;  // BATCH x BLOCK_OUT x out
  int64_t inp_entries = 0, wgt_entries = 0, acc_entries = 0, uop_entries = 0;
  int inp_idx_bits = 0, wgt_idx_bits = 0, acc_idx_bits = 0, uop_idx_bits = 0;
  int64_t macs_per_cycle = 0;  // BATCH x BLOCK_IN x BLOCK_OUT
  IsaLayout layout;
  // Hash of everything that changes instruction encoding or semantics (not
  // timing). Programs and compiled artifacts record it; devices check it.
  uint64_t isa_fingerprint = 0;

  // Bytes of one DRAM element / scratchpad entry of a memory type.
  int ElementBytes(MemType m) const;
  // Entries of the scratchpad a memory type addresses (OUT and ACC8 share acc's).
  int64_t Entries(MemType m) const;
  int FieldWidth(Width w) const;
};

// Parses and validates JSON text. `source` names the input in messages.
StatusOr<HwConfig> ParseHwConfig(const std::string& json_text, const std::string& source);
StatusOr<HwConfig> LoadHwConfig(const std::string& path);
// Canonical JSON of the written fields (round-trips through ParseHwConfig).
std::string HwConfigToJson(const HwConfig& cfg);
// Human-readable dump: parameters, derived sizes, ISA field widths/positions.
std::string DescribeHwConfig(const HwConfig& cfg);

}  // namespace tessera
