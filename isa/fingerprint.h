// The ISA fingerprint: a 64-bit FNV-1a hash of everything that decides what
// an instruction word means on a given config: every field's position and
// width in every format (the computed layout), the uop layout, every opcode,
// memory type and ALU operation value with its properties, the token-queue
// topology, a semantics version, and every config parameter marked
// kBehaviour in isa/config.def. A change to isa/isa.def, a width rule or such
// a parameter changes it, so old programs, compiled models and hardware
// refuse to load (docs/formats.md).
#pragma once

#include <cstdint>
#include <string>

#include "isa/isa.h"

namespace tessera {

struct HwConfig;

// Bumped when an instruction's semantics change without a table change.
inline constexpr int kIsaSemanticsVersion = 2;

// The canonical text that is hashed (for tests and `tessera config show`).
std::string IsaFingerprintText(const HwConfig& cfg, const IsaTables& tables);
// The fingerprint of `cfg` (its parameters; its derived sizes filled) laid out
// with `tables`. The layout must fit (it does for a validated config).
uint64_t IsaFingerprint(const HwConfig& cfg, const IsaTables& tables);

}  // namespace tessera
