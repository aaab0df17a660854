// HwConfig: the one typed hardware configuration. Loaded from JSON
// (configs/*.json) and validated in one place (config.cc); every derived
// size — entries per scratchpad, index bits, element bytes, the instruction
// layout — is computed there. Modules take `const HwConfig&`.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

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
  std::string name;         // "name"
  std::string description;  // "description" (optional)
  // --- the parameters, one member per row of isa/config.def ---
#define TSR_PARAM(member, key, type, ...) type member = 0;
#include "isa/config.def"

  // --- derived (filled by Validate) ---
  int out_bits = 0;        // the output (narrowed accumulator) width = inp_bits
  int inp_tile_bytes = 0;  // BATCH x BLOCK_IN x inp
  int wgt_tile_bytes = 0;  // BLOCK_OUT x BLOCK_IN x wgt
  int acc_tile_bytes = 0;  // BATCH x BLOCK_OUT x acc
  int out_tile_bytes = 0;  // BATCH x BLOCK_OUT x out
  int64_t inp_entries = 0, wgt_entries = 0, acc_entries = 0, uop_entries = 0;
  int inp_idx_bits = 0, wgt_idx_bits = 0, acc_idx_bits = 0, uop_idx_bits = 0;
  int64_t macs_per_cycle = 0;  // BATCH x BLOCK_IN x BLOCK_OUT
  int alu_lane_count = 0;      // alu.lanes resolved (0: BATCH x BLOCK_OUT, one lane per element)
  int alu_passes = 0;          // passes of the lanes over a row: BATCH x BLOCK_OUT / alu_lane_count
  int fetch_block = 0;         // instructions per fetch request at most: min(kFetchBlockInsns, F)
  IsaLayout layout;
  // Hash of the ISA layout and tables and of every kBehaviour parameter
  // (isa/fingerprint.h). Programs and compiled artifacts record it; devices
  // report it and the driver refuses a mismatch.
  uint64_t isa_fingerprint = 0;

  // Bytes of one DRAM element / scratchpad entry of a memory type.
  int ElementBytes(MemType m) const;
  // The smallest of them: the unit of the `dram` field (isa.def DramIdx).
  int SmallestElementBytes() const;
  // Entries of the scratchpad a memory type addresses (OUT and ACC8 share acc's).
  int64_t Entries(MemType m) const;
  int FieldWidth(Width w) const;
};

// One row of isa/config.def: a parameter's key, range, unit, docs, whether it
// enters the fingerprint, and access to its HwConfig member (values are
// exact in a double: every range is below 2^53).
enum class ParamKind : uint8_t { kInt, kPow2, kReal };
enum class ParamEffect : uint8_t { kBehaviour, kTiming };
struct ParamInfo {
  std::string_view key;  // "gemm.block_in"
  ParamKind kind;
  double lo, hi;
  int64_t multiple_of;
  std::string_view unit;
  ParamEffect effect;
  std::string_view summary;
  double (*get)(const HwConfig&);
  void (*set)(HwConfig&, double);
};
inline constexpr ParamInfo kParams[] = {
#define TSR_PARAM(member, key, type, kind, lo, hi, multiple, unit, effect, summary) \
  {key,                                                                             \
   ParamKind::kind,                                                                 \
   static_cast<double>(lo),                                                         \
   static_cast<double>(hi),                                                         \
   multiple,                                                                        \
   unit,                                                                            \
   ParamEffect::effect,                                                             \
   summary,                                                                         \
   [](const HwConfig& c) { return static_cast<double>(c.member); },                 \
   [](HwConfig& c, double v) { c.member = static_cast<type>(v); }},
#include "isa/config.def"
};
const ParamInfo* FindParam(std::string_view key);
// "16", "0.5": a parameter's value as written in JSON and docs.
std::string ParamValueText(const ParamInfo& p, const HwConfig& cfg);

// Parses and validates JSON text. `source` names the input in messages.
StatusOr<HwConfig> ParseHwConfig(const std::string& json_text, const std::string& source);
StatusOr<HwConfig> LoadHwConfig(const std::string& path);
// Canonical JSON of the written fields (round-trips through ParseHwConfig).
std::string HwConfigToJson(const HwConfig& cfg);
// Human-readable dump: parameters, derived sizes, ISA field widths/positions
// and the spare bits of every format.
std::string DescribeHwConfig(const HwConfig& cfg);
// The field positions of every format for a config, from ISA tables (the
// bundled ones: DefaultIsaTables()). An error names the format that does not fit.
StatusOr<IsaLayout> ComputeIsaLayout(const HwConfig& cfg, const IsaTables& tables, const std::string& source);
// Validates a config built in memory (e.g. a parsed one with changed
// parameters) and fills its derived sizes, layout and fingerprint.
Status ValidateHwConfig(HwConfig& cfg, const std::string& source);
// docs/config.md: the parameter table with the values of `cfg`.
std::string GenerateConfigDoc(const HwConfig& cfg);

}  // namespace tessera
