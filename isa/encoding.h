// Encoding and decoding of instructions and uops for one HwConfig, driven by
// the field table (isa/isa.def) and the config's IsaLayout. Every error names
// the field; callers add the location (instruction index, file:line).
#pragma once

#include <cstdint>
#include <vector>

#include "isa/base/status.h"
#include "isa/isa.h"

namespace tessera {

struct HwConfig;

// Legality of an instruction for a config, independent of memory contents:
// known opcode/enums, fields of other formats zero, values fit their widths,
// dependency flags legal for the executing module, memory type legal for the
// opcode, non-empty uop range inside the uop buffer, ALU operand form.
Status ValidateInstruction(const HwConfig& cfg, const Instruction& insn);

// Encode validates first. Decode rejects unknown opcodes, reserved bits that
// are set, and illegal instructions; decode(encode(x)) == x for legal x.
StatusOr<Word128> Encode(const HwConfig& cfg, const Instruction& insn);
StatusOr<Instruction> Decode(const HwConfig& cfg, const Word128& word);

StatusOr<uint32_t> EncodeUop(const HwConfig& cfg, const Uop& uop);
Uop DecodeUop(const HwConfig& cfg, uint32_t word);

// Little-endian serialization of instruction words.
void StoreWord(const Word128& w, uint8_t* out16);
Word128 LoadWord(const uint8_t* in16);

// Signed range check helpers shared with the assembler.
bool FitsUnsigned(int64_t v, int width);
bool FitsSigned(int64_t v, int width);

}  // namespace tessera
