// Stream: the JIT instruction assembler. High-level calls append validated
// instructions: 2-D loads/stores with padding against a buffer (or a declared
// slot) and an element offset, GEMM/ALU uop kernels (the uop LOAD is emitted
// only when the kernel is not resident in the uop scratchpad), and
// dependency-token push/pop between neighbouring modules, folded into the
// neighbouring instruction where legal. Finish() turns the stream into a
// relocatable Recording (balanced pieces that fit the instruction buffer,
// each ending in FINISH); Synchronize() also runs it and waits.
//
// Token semantics (as VTA's DepPush/DepPop): Push(from, to) signals that
// everything issued on `from` so far has completed; Pop(from, to) makes the
// next instruction issued on `to` wait for that signal.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "isa/base/status.h"
#include "isa/config.h"
#include "isa/isa.h"
#include "runtime/buffer.h"
#include "runtime/kernel.h"
#include "runtime/recording.h"
#include "runtime/tokens.h"
#include "runtime/uop_residency.h"
#include "runtime/word_encoder.h"

namespace tessera {

class Runtime;

// A 2-D DMA in elements of the memory type (docs/isa.md, LOAD/STORE).
struct Dma2D {
  int64_t y_size = 1, x_size = 1;
  int64_t x_stride = 0;  // DRAM row pitch in elements; 0 means x_size (dense rows)
  int64_t y_pad0 = 0, y_pad1 = 0, x_pad0 = 0, x_pad1 = 0;
  int64_t pad_value = 0;
};

// A slot declared on a stream (a buffer bound later, at run time).
struct Slot {
  int index = -1;
};

// Where a DMA goes: a runtime Buffer, or a declared Slot.
class DmaTarget {
 public:
  DmaTarget(const Buffer& b) : buffer_(&b) {}  // NOLINT: implicit by design
  DmaTarget(Slot s) : slot_(s.index) {}        // NOLINT: implicit by design

 private:
  friend class Stream;
  const Buffer* buffer_ = nullptr;
  int slot_ = -1;
};

struct StreamOptions {
  // Instructions per device run (pieces are split to fit; at least 2).
  int64_t insn_buffer_capacity = 65536;
};

class Stream {
 public:
  // A stream for a config with no device: slots only, uop scratchpad assumed empty.
  Stream(const HwConfig& cfg, std::string name, StreamOptions opts = {});

  // Declares a buffer slot of `bytes` bytes that is bound when the recording runs.
  StatusOr<Slot> DeclareSlot(const std::string& name, uint64_t bytes);

  // LOAD `mem` (inp, wgt, acc, acc8) from the target at element `elem_offset`
  // (in elements of mem) into scratchpad entry `sram`.
  Status Load(MemType mem, int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& dma);
  // STORE out entries from `sram` to the target at element `elem_offset`.
  Status Store(int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& dma);
  // acc += inp . wgt^T over the kernel's loop nest / acc = 0 over its destinations.
  Status Gemm(const Kernel& k);
  Status GemmReset(const Kernel& k);
  // dst = op(dst, imm) (op takes an immediate), dst = op(dst, src) (vector;
  // mulshr takes its shift in imm).
  Status Alu(const Kernel& k, AluOp op, int64_t imm);
  Status AluVec(const Kernel& k, AluOp op, int64_t imm = 0);
  // While on (and the config has timing.compute_overlap), GEMM, ALU and LOAD
  // acc/acc8 instructions carry ovl: each may run beside the older instruction on the compute
  // module's other pipe, whose accumulator bank the caller guarantees it does
  // not touch (sim/timing.h AccBank; ref's race detector checks it). A token an ovl
  // instruction pushes does not cover the instruction beside it.
  void set_overlap(bool on) { overlap_ = on; }
  // Dependency tokens between neighbouring modules (load<->compute, compute<->store).
  Status Push(Module from, Module to);
  Status Pop(Module from, Module to);

  // Balances, splits and encodes the stream; the stream is empty afterwards.
  StatusOr<Recording> Finish();
  // Finish() and run the recording on the runtime with the buffers it was
  // recorded against (only for streams created by Runtime::NewStream).
  // timeout_ms < 0: the runtime's default.
  Status Synchronize(int64_t timeout_ms = -1);

  const HwConfig& config() const { return *cfg_; }
  const std::string& name() const { return name_; }
  int64_t size() const { return static_cast<int64_t>(recs_.size()); }
  // Tokens pushed and not yet popped on the from->to queue (-1: no such queue).
  int64_t outstanding(Module from, Module to) const;
  const RecordingStats& stats() const { return stats_; }

 private:
  friend class Runtime;
  Stream(Runtime* rt, std::string name);

  // One recorded instruction, encoded at emission (after validation); only
  // its dependency flags change afterwards (folding, splitting).
  struct Rec {
    Word128 word;
    int64_t elem_offset = 0;  // data DMA: elements from the slot's start
    int32_t slot = -1;        // data DMA: buffer slot (relocated)
    int32_t kernel = -1;      // uop LOAD: kernel index (relocated)
    uint32_t elem_bytes = 0;  // element size of the DMA's memory type
    Module module = Module::kLoad;
  };
  struct SlotInfo {
    RecordingSlot rec;
    uint64_t bytes = 0;  // size of the buffer or declared slot
    Buffer buffer;       // invalid for declared slots
  };

  void Init();
  void Reset();
  StatusOr<int> SlotOf(const DmaTarget& t);
  // The error for a token between modules with no queue, listing the queues there are.
  Status NoQueueError(Module from, Module to) const;
  // Validates `in`, attaches pending pops for its module (take_pops), encodes it.
  Status Emit(Instruction in, Rec meta, bool take_pops);
  bool GetFlag(const Rec& r, TokenFlag f) const { return (r.word.lo >> flag_lsb_[static_cast<int>(f)]) & 1; }
  void SetFlag(Rec& r, TokenFlag f, bool v) const {
    const uint64_t bit = uint64_t{1} << flag_lsb_[static_cast<int>(f)];
    r.word.lo = v ? (r.word.lo | bit) : (r.word.lo & ~bit);
  }
  Status Dma(Opcode op, MemType mem, int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& dma);
  Status Compute(const Kernel& k, Opcode op, bool reset, AluOp alu, bool use_imm, int64_t imm);
  int KernelIndex(const std::shared_ptr<const UopImage>& img);
  Instruction NoOp(Module m) const;
  StatusOr<Recording> Split();

  const HwConfig* cfg_;
  Runtime* rt_ = nullptr;
  WordEncoder encoder_;
  std::array<int, kNumTokenFlags> flag_lsb_{};
  std::string name_;
  StreamOptions opts_;

  std::vector<Rec> recs_;
  std::vector<SlotInfo> slots_;
  std::unordered_map<uint64_t, int> slot_of_buffer_;
  std::vector<std::shared_ptr<const UopImage>> kernels_;
  std::unordered_map<uint64_t, std::vector<int>> kernels_by_sig_;
  UopResidency uops_;
  std::vector<UopPlacement> requires_resident_;
  std::array<int64_t, 4> pushed_{}, popped_{};
  std::array<bool, 4> pending_pop_{};
  bool overlap_ = false;
  std::array<int64_t, kNumModules> last_{};  // index of the last instruction per module, -1 if none
  RecordingStats stats_;
};

}  // namespace tessera
