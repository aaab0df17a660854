// A Tessera program: the instruction stream plus the DRAM contents it needs
// (uop tables, data) and optional expected DRAM contents after the run. This is
// what the assembler produces and what `.bin` program objects hold; the binary
// format is documented in docs/formats.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera {

struct HwConfig;

enum class ElemType : uint8_t { kI8 = 0, kU8, kI16, kU16, kI32, kU32, kUop };
int ElemBytes(ElemType t);
const char* ElemTypeName(ElemType t);
bool ParseElemType(const std::string& name, ElemType* out);  // data types only, not "uop"

struct Segment {
  enum class Kind : uint8_t { kData = 0, kUops = 1, kExpect = 2 };
  Kind kind = Kind::kData;
  std::string name;
  uint64_t addr = 0;  // DRAM byte address
  ElemType type = ElemType::kU8;
  std::vector<uint8_t> bytes;
  // Element i as a signed/unsigned integer according to `type`.
  int64_t Element(size_t i) const;
  size_t count() const { return bytes.size() / ElemBytes(type); }
};

struct Program {
  uint64_t text_addr = 0;  // DRAM byte address of the instruction stream
  std::vector<Instruction> insns;
  std::vector<Segment> segments;
  // Source line of each instruction when assembled from text (for messages).
  std::vector<int> insn_lines;
};

// Program object (.bin) serialization; see docs/formats.md.
StatusOr<std::vector<uint8_t>> SerializeProgram(const HwConfig& cfg, const Program& prog);
StatusOr<Program> ParseProgramObject(const HwConfig& cfg, const std::vector<uint8_t>& bytes, const std::string& source);
bool IsProgramObject(const std::vector<uint8_t>& bytes);

// The instruction stream as it sits in DRAM: 16 bytes per instruction.
StatusOr<std::vector<uint8_t>> EncodeStream(const HwConfig& cfg, const std::vector<Instruction>& insns);

// Checks segments against each other and the instruction stream: no overlap
// between data/uop segments or with the stream, addresses inside DRAM, uop
// words that decode exactly.
Status CheckProgramLayout(const HwConfig& cfg, const Program& prog);

// Byte-addressed memory access for placing and checking programs (a DRAM model, a device).
using MemoryWriter = std::function<Status(uint64_t addr, const void* src, uint64_t n)>;
using MemoryReader = std::function<Status(uint64_t addr, void* dst, uint64_t n)>;

// Writes what a program places in memory before it runs: the encoded stream
// at text_addr and every data/uop segment (expectations are not written).
Status PlaceProgram(const HwConfig& cfg, const Program& prog, const MemoryWriter& write);

// Compares every .expect segment with memory. The error lists the first
// mismatches (segment, element index, address, expected, actual).
Status CheckExpectations(const Program& prog, const MemoryReader& read, int* checked_segments = nullptr);

}  // namespace tessera
