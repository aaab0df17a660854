// Recording: a finished, relocatable command stream — what Stream::Finish
// produces and Runtime::Load loads. Its instruction words are final (tokens
// folded, pieces split to the instruction-buffer capacity, each piece ending
// in FINISH), except for the DRAM fields listed in `relocs`, which refer to a
// buffer slot plus an element offset, or to a uop kernel. Binding buffers
// patches those fields in place, so replaying with new addresses never
// re-assembles. Serializable to bytes (format in docs/runtime.md); a
// recording only runs on a device whose ISA fingerprint matches its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "isa/base/status.h"
#include "isa/config.h"
#include "runtime/buffer.h"
#include "runtime/kernel.h"

namespace tessera {

struct RecordingSlot {
  std::string name;
  uint64_t bytes_needed = 0;  // end of the furthest DMA footprint, from the slot's start
  uint32_t alignment = 1;     // largest element size of a DMA on the slot: the address must be a multiple
};

enum class RelocKind : uint8_t { kBuffer = 0, kKernel = 1 };

struct Relocation {
  uint32_t piece = 0, index = 0;  // instruction index within the piece
  RelocKind kind = RelocKind::kBuffer;
  uint32_t target = 0;      // slot (kBuffer) or kernel (kKernel) index
  uint32_t elem_bytes = 0;  // element size of the instruction's memory type
  int64_t elem_offset = 0;  // kBuffer: elements from the slot's start
};

// A kernel's uops at a uop-scratchpad offset.
struct UopPlacement {
  uint32_t kernel = 0;
  int64_t offset = 0;
};

struct RecordingStats {
  int64_t user_insns = 0;     // LOAD/STORE/GEMM/ALU the caller asked for
  int64_t uop_loads = 0;      // uop LOADs the kernel cache emitted (kernel not resident)
  int64_t kernel_hits = 0;    // GEMM/ALU whose kernel was already resident
  int64_t uop_evictions = 0;  // images evicted from the uop scratchpad model
  int64_t folded_tokens = 0;  // push/pop flags set on a neighbouring instruction
  int64_t noops = 0;          // no-op instructions inserted to carry a token
  int64_t cut_tokens = 0;     // push/pop pairs dropped at piece boundaries
};

class Recording {
 public:
  std::string name;
  std::string config_name;
  uint64_t isa_fingerprint = 0;
  std::vector<RecordingSlot> slots;
  std::vector<std::shared_ptr<const UopImage>> kernels;
  std::vector<std::vector<Word128>> pieces;  // each one device run, ending with FINISH
  std::vector<Relocation> relocs;
  std::vector<UopPlacement> requires_resident;  // uops the stream assumed resident at its start
  std::vector<UopPlacement> exit_resident;      // uops resident after the last piece
  // The buffers the stream was recorded against, per slot (invalid for
  // declared slots). Not serialized: a deserialized recording must be bound.
  std::vector<Buffer> recorded_buffers;
  RecordingStats stats;
  // Set by Stream::Finish: every word was validated when it was emitted, so
  // Runtime::Load does not decode them again. Not serialized (a deserialized
  // recording is checked word by word).
  bool jit_validated = false;

  int64_t num_insns() const;
  // Index of the slot called `name`, or -1.
  int FindSlot(const std::string& name) const;

  std::vector<uint8_t> Serialize() const;
  static StatusOr<Recording> Deserialize(const std::vector<uint8_t>& bytes, const std::string& source);

  // Assembly text of every piece (relocated fields as currently patched).
  StatusOr<std::string> Disassemble(const HwConfig& cfg) const;
};

}  // namespace tessera
