#include "runtime/stream.h"

#include "isa/asm.h"
#include "isa/encoding.h"
#include "runtime/runtime.h"

namespace tessera {

Stream::Stream(const HwConfig& cfg, std::string name, StreamOptions opts)
    : cfg_(&cfg), encoder_(cfg), name_(std::move(name)), opts_(opts) {
  Init();
}

Stream::Stream(Runtime* rt, std::string name)
    : cfg_(&rt->config()), rt_(rt), encoder_(rt->config()), name_(std::move(name)) {
  opts_.insn_buffer_capacity = rt->options().insn_buffer_capacity;
  Init();
}

void Stream::Init() {
  for (int f = 0; f < kNumTokenFlags; ++f) {
    const FieldId id = FieldOf(static_cast<TokenFlag>(f));
    const FieldSlot& s = cfg_->layout.slot(Format::kMem, id);
    for (int fmt = 0; fmt < kNumFormats; ++fmt)
      TSR_CHECK(cfg_->layout.slot(static_cast<Format>(fmt), id).lsb == s.lsb && s.lsb < 64 && s.width == 1,
                "dependency flag {} is not at the same bit in every format", kFields[static_cast<int>(id)].name);
    flag_lsb_[f] = s.lsb;
  }
  Reset();
}

void Stream::Reset() {
  recs_.clear();
  slots_.clear();
  slot_of_buffer_.clear();
  kernels_.clear();
  kernels_by_sig_.clear();
  requires_resident_.clear();
  pushed_.fill(0);
  popped_.fill(0);
  pending_pop_.fill(false);
  last_.fill(-1);
  stats_ = RecordingStats{};
  uops_ = rt_ ? rt_->uop_residency() : UopResidency(cfg_->uop_entries);
  uops_.MarkSnapshot();
}

int64_t Stream::outstanding(Module from, Module to) const {
  const int q = TokenQueueOf(from, to);
  return q < 0 ? -1 : pushed_[q] - popped_[q];
}

Status Stream::NoQueueError(Module from, Module to) const {
  return InvalidArgumentError("stream '{}': no dependency-token queue from {} to {} (queues: {})", name_,
                              ModuleName(from), ModuleName(to), TokenQueueList());
}

StatusOr<Slot> Stream::DeclareSlot(const std::string& slot_name, uint64_t bytes) {
  if (bytes == 0) return InvalidArgumentError("stream '{}': slot '{}' of 0 bytes", name_, slot_name);
  for (const SlotInfo& s : slots_)
    if (s.rec.name == slot_name)
      return InvalidArgumentError("stream '{}': slot '{}' is declared twice", name_, slot_name);
  // Every slot is bound at once when the recording runs, so together they must fit the DRAM.
  uint64_t others = 0;
  for (const SlotInfo& s : slots_) others += s.bytes;
  if (bytes > cfg_->dram_size_bytes || others > cfg_->dram_size_bytes - bytes)
    return ResourceExhaustedError(
        "stream '{}': slot '{}' of {} bytes{} does not fit the device's DRAM of {} bytes (config '{}')", name_,
        slot_name, bytes, others ? fmt::format(" (with the stream's other slots, {} bytes)", others + bytes) : "",
        cfg_->dram_size_bytes, cfg_->name);
  SlotInfo s;
  s.rec.name = slot_name;
  s.bytes = bytes;
  slots_.push_back(std::move(s));
  return Slot{static_cast<int>(slots_.size()) - 1};
}

StatusOr<int> Stream::SlotOf(const DmaTarget& t) {
  if (t.buffer_ == nullptr) {
    if (t.slot_ < 0 || t.slot_ >= static_cast<int>(slots_.size()))
      return InvalidArgumentError("stream '{}': slot index {} was not declared on this stream", name_, t.slot_);
    return t.slot_;
  }
  const Buffer& b = *t.buffer_;
  if (!b.valid()) return InvalidArgumentError("stream '{}': DMA on an invalid (default-constructed) buffer", name_);
  if (rt_ == nullptr)
    return InvalidArgumentError("stream '{}' has no runtime: use DeclareSlot for buffer '{}' and bind it at run time",
                                name_, b.name());
  if (!rt_->IsLive(b)) return FailedPreconditionError("stream '{}': buffer '{}' was freed", name_, b.name());
  auto it = slot_of_buffer_.find(b.id());
  if (it != slot_of_buffer_.end()) return it->second;
  SlotInfo s;
  s.rec.name = b.name();
  s.bytes = b.bytes();
  s.buffer = b;
  slots_.push_back(std::move(s));
  const int idx = static_cast<int>(slots_.size()) - 1;
  slot_of_buffer_[b.id()] = idx;
  return idx;
}

Instruction Stream::NoOp(Module m) const {
  // A DMA with no rows: it occupies its module for its setup cycles and moves nothing.
  Instruction in;
  in.opcode = static_cast<int64_t>(m == Module::kStore ? Opcode::kStore : Opcode::kLoad);
  in.mem = static_cast<int64_t>(m == Module::kLoad      ? MemType::kInp
                                : m == Module::kCompute ? MemType::kUop
                                                        : MemType::kOut);
  return in;
}

Status Stream::Emit(Instruction in, Rec r, bool take_pops) {
  Status v = ValidateInstruction(*cfg_, in);
  if (!v.ok())
    return Status(v.code(), fmt::format("stream '{}', instruction {} ({}): {}", name_, recs_.size(),
                                        FormatInstruction(*cfg_, in), v.message()));
  r.module = ModuleOf(in);
  if (take_pops)
    for (int q = 0; q < kNumTokenQueuePairs; ++q)
      if (pending_pop_[q] && TokenQueueTo(q) == r.module) {
        FlagOf(in, TokenPopFlag(q)) = 1;
        pending_pop_[q] = false;
        ++stats_.folded_tokens;
      }
  r.word = encoder_.Encode(in);
  last_[static_cast<int>(r.module)] = static_cast<int64_t>(recs_.size());
  recs_.push_back(r);
  return OkStatus();
}

Status Stream::Push(Module from, Module to) {
  const int q = TokenQueueOf(from, to);
  if (q < 0) return NoQueueError(from, to);
  const TokenFlag f = TokenPushFlag(q);
  const int64_t j = last_[static_cast<int>(from)];
  if (j >= 0 && !GetFlag(recs_[j], f)) {
    // The last instruction of `from` completing is exactly "everything issued on `from` so far"
    // (an ovl instruction's: except the instruction beside it on compute's other pipe).
    SetFlag(recs_[j], f, true);
    ++stats_.folded_tokens;
  } else {
    Instruction in = NoOp(from);
    FlagOf(in, f) = 1;
    TSR_RETURN_IF_ERROR(Emit(in, Rec{}, /*take_pops=*/false));
    ++stats_.noops;
  }
  ++pushed_[q];
  return OkStatus();
}

Status Stream::Pop(Module from, Module to) {
  const int q = TokenQueueOf(from, to);
  if (q < 0) return NoQueueError(from, to);
  if (pushed_[q] - popped_[q] <= 0)
    return FailedPreconditionError(
        "stream '{}': pop without a matching push on {} ({} pushed, {} "
        "popped so far): Push({}, {}) must come first",
        name_, TokenQueueName(q), pushed_[q], popped_[q], ModuleName(from), ModuleName(to));
  if (pending_pop_[q]) {
    // Two pops before any instruction on `to`: the first gets an instruction of its own.
    Instruction in = NoOp(to);
    FlagOf(in, TokenPopFlag(q)) = 1;
    pending_pop_[q] = false;
    TSR_RETURN_IF_ERROR(Emit(in, Rec{}, /*take_pops=*/false));
    ++stats_.noops;
  }
  pending_pop_[q] = true;
  ++popped_[q];
  return OkStatus();
}

Status Stream::Dma(Opcode op, MemType mem, int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& d) {
  const bool load = op == Opcode::kLoad;
  const char* opn = load ? "LOAD" : "STORE";
  const MemInfo* mi = FindMemType(static_cast<int64_t>(mem));
  if (mi == nullptr)
    return InvalidArgumentError("stream '{}': {} of unknown memory type {}", name_, opn, static_cast<int>(mem));
  if (load && mem == MemType::kUop)
    return InvalidArgumentError("stream '{}': uop loads are emitted by the kernel cache: pass a Kernel to Gemm/Alu",
                                name_);
  if (load && !mi->loadable)
    return InvalidArgumentError("stream '{}': LOAD cannot target memory type '{}'", name_, mi->name);
  TSR_ASSIGN_OR_RETURN(int slot, SlotOf(target));
  SlotInfo& si = slots_[slot];
  const int64_t stride = d.x_stride == 0 ? d.x_size : d.x_stride;
  if (d.y_size < 0 || d.x_size < 0 || stride < 0 || d.y_pad0 < 0 || d.y_pad1 < 0 || d.x_pad0 < 0 || d.x_pad1 < 0 ||
      elem_offset < 0 || sram < 0)
    return InvalidArgumentError("stream '{}': {} {} on '{}': negative size, stride, padding, offset or sram", name_,
                                opn, mi->name, si.rec.name);
  const int64_t rows = d.y_pad0 + d.y_size + d.y_pad1, cols = d.x_pad0 + d.x_size + d.x_pad1;
  const int64_t entries = cfg_->Entries(mem);
  const int64_t n_sram = load ? rows * cols : d.y_size * d.x_size;
  if (sram + n_sram > entries)
    return OutOfRangeError("stream '{}': {} {}: scratchpad range [{}, {}) is outside the {} scratchpad ({} entries)",
                           name_, opn, mi->name, sram, sram + n_sram, load ? mi->name : "acc", entries);
  // DRAM footprint in elements: loads read the data rows only, stores write the padding too.
  const int64_t frows = load ? d.y_size : rows, fcols = load ? d.x_size : cols;
  const uint64_t eb = static_cast<uint64_t>(cfg_->ElementBytes(mem));
  uint64_t end_byte = 0;
  if (frows > 0 && fcols > 0) {
    const uint64_t last = static_cast<uint64_t>(elem_offset + (frows - 1) * stride + fcols - 1);
    end_byte = (last + 1) * eb;
    if (end_byte > si.bytes)
      return OutOfRangeError(
          "stream '{}': {} {} leaves buffer '{}' ({} bytes): DRAM footprint "
          "[{}, {}) bytes ({} row(s) x {} element(s) "
          "of {} bytes, row pitch {}, from element {})",
          name_, opn, mi->name, si.rec.name, si.bytes, static_cast<uint64_t>(elem_offset) * eb, end_byte, frows, fcols,
          eb, stride, elem_offset);
  }
  int64_t base = 0;
  if (si.buffer.valid()) {
    if (si.buffer.phys() % eb != 0)
      return InvalidArgumentError("stream '{}': buffer '{}' at 0x{:x} is not aligned to the {}-byte {} element", name_,
                                  si.rec.name, si.buffer.phys(), eb, mi->name);
    base = static_cast<int64_t>(si.buffer.phys() / eb);
  }
  Instruction in;
  in.opcode = static_cast<int64_t>(op);
  in.mem = static_cast<int64_t>(mem);
  in.sram = sram;
  in.dram = base + elem_offset;
  in.y_size = d.y_size;
  in.x_size = d.x_size;
  in.x_stride = stride;
  in.y_pad0 = d.y_pad0;
  in.y_pad1 = d.y_pad1;
  in.x_pad0 = d.x_pad0;
  in.x_pad1 = d.x_pad1;
  in.pad_value = d.pad_value;
  in.ovl = overlap_ && cfg_->compute_overlap != 0 && load && IsAccumulatorMem(mem);
  Rec r;
  r.slot = slot;
  r.elem_offset = elem_offset;
  r.elem_bytes = static_cast<uint32_t>(eb);
  TSR_RETURN_IF_ERROR(Emit(in, r, /*take_pops=*/true));
  si.rec.bytes_needed = std::max(si.rec.bytes_needed, end_byte);
  si.rec.alignment = std::max<uint32_t>(si.rec.alignment, static_cast<uint32_t>(eb));
  ++stats_.user_insns;
  return OkStatus();
}

Status Stream::Load(MemType mem, int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& dma) {
  return Dma(Opcode::kLoad, mem, sram, target, elem_offset, dma);
}

Status Stream::Store(int64_t sram, DmaTarget target, int64_t elem_offset, const Dma2D& dma) {
  return Dma(Opcode::kStore, MemType::kOut, sram, target, elem_offset, dma);
}

int Stream::KernelIndex(const std::shared_ptr<const UopImage>& img) {
  auto& candidates = kernels_by_sig_[img->signature];
  for (int i : candidates)
    if (kernels_[i].get() == img.get() || kernels_[i]->SameWords(*img)) return i;
  kernels_.push_back(img);
  candidates.push_back(static_cast<int>(kernels_.size()) - 1);
  return static_cast<int>(kernels_.size()) - 1;
}

Status Stream::Compute(const Kernel& k, Opcode op, bool reset, AluOp alu, bool use_imm, int64_t imm) {
  const KernelKind want = op == Opcode::kGemm ? KernelKind::kGemm : KernelKind::kAlu;
  if (!k.valid()) return InvalidArgumentError("stream '{}': {} with an empty kernel", name_, KernelKindName(want));
  if (k.kind() != want)
    return InvalidArgumentError("stream '{}': kernel '{}' is a {} kernel, not {}", name_, k.name(),
                                KernelKindName(k.kind()), KernelKindName(want));
  if (k.size() > cfg_->uop_entries)  // kernels are built for a config; this one may be another's
    return ResourceExhaustedError(
        "stream '{}': uop buffer overflow: kernel '{}' has {} uops but the uop scratchpad "
        "holds {}",
        name_, k.name(), k.size(), cfg_->uop_entries);
  const auto& img = k.image();
  int64_t offset;
  if (UopResidency::Entry* e = uops_.Lookup(*img)) {
    offset = e->offset;
    if (e->from_snapshot) {
      requires_resident_.push_back(UopPlacement{static_cast<uint32_t>(KernelIndex(e->image)), offset});
      e->from_snapshot = false;
    }
    ++stats_.kernel_hits;
  } else {
    offset = uops_.Place(img, &stats_.uop_evictions);
    Instruction ld;
    ld.opcode = static_cast<int64_t>(Opcode::kLoad);
    ld.mem = static_cast<int64_t>(MemType::kUop);
    ld.sram = offset;
    ld.y_size = 1;
    ld.x_size = k.size();
    ld.x_stride = k.size();
    Rec r;
    r.kernel = KernelIndex(img);
    r.elem_bytes = kUopBytes;
    // The uop scratchpad is only touched by compute, in order: the load needs no token.
    TSR_RETURN_IF_ERROR(Emit(ld, r, /*take_pops=*/false));
    ++stats_.uop_loads;
  }
  Instruction in;
  in.opcode = static_cast<int64_t>(op);
  in.reset = reset;
  in.uop_bgn = offset;
  in.uop_end = offset + k.size();
  in.iter_out = k.outer().extent;
  in.iter_in = k.inner().extent;
  in.dst_out = k.outer().dst;
  in.dst_in = k.inner().dst;
  in.src_out = k.outer().src;
  in.src_in = k.inner().src;
  in.ovl = overlap_ && cfg_->compute_overlap != 0;
  if (op == Opcode::kGemm) {
    in.wgt_out = k.outer().wgt;
    in.wgt_in = k.inner().wgt;
  } else {
    in.alu_op = static_cast<int64_t>(alu);
    in.use_imm = use_imm;
    in.imm = imm;
  }
  TSR_RETURN_IF_ERROR(Emit(in, Rec{}, /*take_pops=*/true));
  ++stats_.user_insns;
  return OkStatus();
}

Status Stream::Gemm(const Kernel& k) { return Compute(k, Opcode::kGemm, false, AluOp::kMin, false, 0); }
Status Stream::GemmReset(const Kernel& k) { return Compute(k, Opcode::kGemm, true, AluOp::kMin, false, 0); }

Status Stream::Alu(const Kernel& k, AluOp op, int64_t imm) {
  const AluOpInfo* a = FindAluOp(static_cast<int64_t>(op));
  if (a == nullptr) return InvalidArgumentError("stream '{}': unknown ALU operation {}", name_, static_cast<int>(op));
  if (a->operand == AluOperand::kVecAndImm)
    return InvalidArgumentError("stream '{}': ALU {} takes a vector operand and a shift: use AluVec", name_, a->name);
  return Compute(k, Opcode::kAlu, false, op, true, imm);
}

Status Stream::AluVec(const Kernel& k, AluOp op, int64_t imm) {
  const AluOpInfo* a = FindAluOp(static_cast<int64_t>(op));
  if (a == nullptr) return InvalidArgumentError("stream '{}': unknown ALU operation {}", name_, static_cast<int>(op));
  if (a->operand != AluOperand::kVecAndImm && imm != 0)
    return InvalidArgumentError("stream '{}': ALU {} with a vector operand takes no immediate (imm = {})", name_,
                                a->name, imm);
  return Compute(k, Opcode::kAlu, false, op, false, imm);
}

StatusOr<Recording> Stream::Finish() {
  for (int q = 0; q < kNumTokenQueuePairs; ++q) {
    if (pushed_[q] == popped_[q]) continue;
    // Name the instruction that pushed the oldest unmatched token.
    int64_t seen = 0, culprit = -1;
    const TokenFlag f = TokenPushFlag(q);
    for (size_t i = 0; i < recs_.size(); ++i)
      if (GetFlag(recs_[i], f) && recs_[i].module == TokenQueueFrom(q) && ++seen == popped_[q] + 1) {
        culprit = static_cast<int64_t>(i);
        break;
      }
    return FailedPreconditionError(
        "stream '{}' is unbalanced: {} token(s) pushed on {} were never popped (first unmatched "
        "push: instruction {} "
        "{}); add Pop({}, {}) or drop the Push",
        name_, pushed_[q] - popped_[q], TokenQueueName(q), culprit,
        culprit >= 0 ? FormatInstruction(*cfg_, *Decode(*cfg_, recs_[culprit].word)) : "?",
        ModuleName(TokenQueueFrom(q)), ModuleName(TokenQueueTo(q)));
  }
  for (int q = 0; q < kNumTokenQueuePairs; ++q)
    if (pending_pop_[q]) {
      Instruction in = NoOp(TokenQueueTo(q));
      FlagOf(in, TokenPopFlag(q)) = 1;
      pending_pop_[q] = false;
      TSR_RETURN_IF_ERROR(Emit(in, Rec{}, /*take_pops=*/false));
      ++stats_.noops;
    }
  auto rec = Split();
  Reset();
  return rec;
}

Status Stream::Synchronize(int64_t timeout_ms) {
  if (rt_ == nullptr)
    return FailedPreconditionError("stream '{}' has no runtime: Finish() it and run the recording with Runtime::Run",
                                   name_);
  TSR_ASSIGN_OR_RETURN(Recording rec, Finish());
  Status s = rt_->Run(rec, {}, timeout_ms);
  Reset();  // pick up the uop residency the run left
  return s;
}

}  // namespace tessera
