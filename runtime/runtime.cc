#include "runtime/runtime.h"

#include <atomic>

#include "isa/asm.h"
#include "isa/encoding.h"

namespace tessera {
namespace {
std::atomic<uint64_t> g_runtime_serial{1};
}

Runtime::Runtime(std::unique_ptr<Device> device, const RuntimeOptions& opts)
    : device_(std::move(device)), opts_(opts), serial_(g_runtime_serial++), uops_(device_->config().uop_entries) {}

Runtime::~Runtime() {
  for (auto& [sig, list] : kernels_)
    for (const StoredKernel& k : list) (void)device_->Free(k.phys);
  if (preamble_.bytes) (void)device_->Free(preamble_.phys);
  for (auto& [id, b] : live_) (void)device_->Free(b.phys);
}

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(std::unique_ptr<Device> device, const RuntimeOptions& opts) {
  if (device == nullptr) return InvalidArgumentError("Runtime::Create: no device");
  if (opts.insn_buffer_capacity < 2)
    return InvalidArgumentError("instruction-buffer capacity {} is too small (at least 2: one instruction and FINISH)",
                                opts.insn_buffer_capacity);
  if (opts.timeout_ms < 0) return InvalidArgumentError("negative default timeout {} ms", opts.timeout_ms);
  return std::unique_ptr<Runtime>(new Runtime(std::move(device), opts));
}

// --- buffers ---------------------------------------------------------------

StatusOr<Buffer> Runtime::Alloc(uint64_t bytes, const std::string& name) {
  TSR_ASSIGN_OR_RETURN(DeviceAllocation a, device_->Alloc(bytes, MemPool::kData, name));
  const uint64_t id = next_id_++;
  live_[id] = Live{a.phys, bytes, name};
  return Buffer(serial_, id, a.phys, bytes, name);
}

bool Runtime::IsLive(const Buffer& b) const { return b.owner_ == serial_ && live_.count(b.id()) > 0; }

Status Runtime::Free(const Buffer& b) {
  if (!b.valid()) return InvalidArgumentError("free of an invalid (default-constructed) buffer");
  if (b.owner_ != serial_) return InvalidArgumentError("free of buffer '{}': it belongs to another runtime", b.name());
  auto it = live_.find(b.id());
  if (it == live_.end())
    return FailedPreconditionError("double free of buffer '{}' (device address 0x{:x}): it was already freed", b.name(),
                                   b.phys());
  TSR_RETURN_IF_ERROR(device_->Free(it->second.phys));
  live_.erase(it);
  return OkStatus();
}

Status Runtime::CopyIn(const Buffer& b, const void* src, uint64_t bytes, uint64_t offset) {
  if (!IsLive(b)) return FailedPreconditionError("copy into buffer '{}': not a live buffer of this runtime", b.name());
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    return OutOfRangeError("copy of {} bytes at offset {} leaves buffer '{}' ({} bytes)", bytes, offset, b.name(),
                           b.bytes());
  return device_->Write(b.phys() + offset, src, bytes);
}

Status Runtime::CopyOut(const Buffer& b, void* dst, uint64_t bytes, uint64_t offset) {
  if (!IsLive(b)) return FailedPreconditionError("copy from buffer '{}': not a live buffer of this runtime", b.name());
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    return OutOfRangeError("copy of {} bytes at offset {} leaves buffer '{}' ({} bytes)", bytes, offset, b.name(),
                           b.bytes());
  return device_->Read(b.phys() + offset, dst, bytes);
}

CodeFootprint CodeFootprintOf(const std::vector<const Recording*>& recs, const DeviceMemoryLayout& layout) {
  uint64_t pieces_all = 0, pieces_max = 0, kernels = 0, preamble = 0;
  std::unordered_map<uint64_t, std::vector<const UopImage*>> interned;  // shared by equal words, like InternKernel
  for (const Recording* rec : recs) {
    uint64_t pieces = 0;
    for (const auto& piece : rec->pieces) pieces += layout.Rounded(piece.size() * kInsnBytes, MemPool::kCode);
    pieces_all += pieces;
    pieces_max = std::max(pieces_max, pieces);
    for (const auto& k : rec->kernels) {
      auto& same_signature = interned[k->signature];
      bool seen = false;
      for (const UopImage* i : same_signature) seen = seen || i->SameWords(*k);
      if (seen) continue;
      same_signature.push_back(k.get());
      kernels += layout.Rounded(k->words.size() * kUopBytes, MemPool::kCode);
    }
    // RestoreUops: one LOAD per assumed-resident kernel and FINISH, at least 1 KiB.
    preamble = std::max(
        preamble,
        layout.Rounded(std::max<uint64_t>((rec->requires_resident.size() + 1) * kInsnBytes, 1024), MemPool::kCode));
  }
  return CodeFootprint{pieces_all + kernels + preamble, pieces_max + kernels + preamble};
}

Stream Runtime::NewStream(const std::string& name) { return Stream(this, name); }

// --- kernels ---------------------------------------------------------------

StatusOr<uint64_t> Runtime::InternKernel(const std::shared_ptr<const UopImage>& img) {
  auto& list = kernels_[img->signature];
  for (const StoredKernel& k : list)
    if (k.image == img || k.image->SameWords(*img)) return k.phys;
  const uint64_t bytes = img->words.size() * kUopBytes;
  TSR_ASSIGN_OR_RETURN(DeviceAllocation a, device_->Alloc(bytes, MemPool::kCode, "uop kernel '" + img->name + "'"));
  std::vector<uint8_t> buf(bytes);
  for (size_t i = 0; i < img->words.size(); ++i)
    for (int b = 0; b < 4; ++b) buf[4 * i + b] = static_cast<uint8_t>(img->words[i] >> (8 * b));
  Status w = device_->Write(a.phys, buf.data(), bytes);
  if (!w.ok()) {
    (void)device_->Free(a.phys);
    return w;
  }
  list.push_back(StoredKernel{img, a.phys});
  ++stats_.kernel_uploads;
  stats_.kernel_bytes += static_cast<int64_t>(bytes);
  return a.phys;
}

// --- recordings ------------------------------------------------------------

Status Runtime::CheckRecording(const Recording& rec) const {
  const HwConfig& cfg = config();
  Device& dev = *device_;
  const uint64_t fp = dev.ReadFingerprint();
  if (rec.isa_fingerprint != fp)
    return FailedPreconditionError(
        "recording '{}' was made for config '{}' (ISA fingerprint "
        "0x{:016x}) but device '{}' runs config '{}' (ISA "
        "fingerprint 0x{:016x}): record it again for this config",
        rec.name, rec.config_name, rec.isa_fingerprint, dev.target(), cfg.name, fp);
  for (size_t p = 0; p < rec.pieces.size(); ++p)
    if (static_cast<int64_t>(rec.pieces[p].size()) > opts_.insn_buffer_capacity)
      return ResourceExhaustedError(
          "recording '{}': piece {} has {} instructions, more than the instruction-buffer "
          "capacity of {}",
          rec.name, p, rec.pieces[p].size(), opts_.insn_buffer_capacity);
  if (rec.jit_validated) return OkStatus();
  std::vector<std::vector<Instruction>> insns(rec.pieces.size());
  for (size_t p = 0; p < rec.pieces.size(); ++p) {
    const auto& piece = rec.pieces[p];
    insns[p].reserve(piece.size());
    for (size_t i = 0; i < piece.size(); ++i) {
      auto in = Decode(cfg, piece[i]);
      if (!in.ok())
        return in.status().WithContext(fmt::format("recording '{}', piece {}, instruction {}", rec.name, p, i));
      const bool last = i + 1 == piece.size();
      if ((in->op() == Opcode::kFinish) != last)
        return InvalidArgumentError(
            "recording '{}', piece {}: FINISH must be the last instruction and only there "
            "(instruction {})",
            rec.name, p, i);
      insns[p].push_back(*in);
    }
  }
  for (const auto& k : rec.kernels)
    if (static_cast<int64_t>(k->words.size()) > cfg.uop_entries)
      return ResourceExhaustedError(
          "recording '{}': uop buffer overflow: kernel '{}' has {} uops but the uop "
          "scratchpad holds {}",
          rec.name, k->name, k->words.size(), cfg.uop_entries);
  for (const Relocation& r : rec.relocs) {
    const Instruction& in = insns[r.piece][r.index];
    const bool mem_insn = in.op() == Opcode::kLoad || in.op() == Opcode::kStore;
    const bool ok = r.kind == RelocKind::kKernel
                        ? in.op() == Opcode::kLoad && in.mem_type() == MemType::kUop &&
                              in.x_size == static_cast<int64_t>(rec.kernels[r.target]->words.size())
                        : mem_insn && in.mem_type() != MemType::kUop &&
                              r.elem_bytes == static_cast<uint32_t>(cfg.ElementBytes(in.mem_type()));
    if (!ok)
      return InvalidArgumentError("recording '{}': relocation of piece {} instruction {} ({}) does not match it",
                                  rec.name, r.piece, r.index, FormatInstruction(cfg, in));
  }
  for (const auto* list : {&rec.requires_resident, &rec.exit_resident})
    for (const UopPlacement& u : *list)
      if (u.offset + static_cast<int64_t>(rec.kernels[u.kernel]->words.size()) > cfg.uop_entries)
        return InvalidArgumentError("recording '{}': kernel '{}' placed at uop {} overruns the uop scratchpad",
                                    rec.name, rec.kernels[u.kernel]->name, u.offset);
  return OkStatus();
}

StatusOr<Executable> Runtime::Load(const Recording& rec) {
  TSR_RETURN_IF_ERROR(CheckRecording(rec));
  Executable x(this);
  x.rec_ = rec;
  x.bound_.resize(rec.slots.size());
  x.relocs_of_slot_.resize(rec.slots.size());
  for (const auto& k : rec.kernels) {
    TSR_ASSIGN_OR_RETURN(uint64_t phys, InternKernel(k));
    x.kernel_phys_.push_back(phys);
  }
  const FieldSlot& dram = config().layout.slot(Format::kMem, FieldId::dram);
  for (uint32_t i = 0; i < rec.relocs.size(); ++i) {
    const Relocation& r = rec.relocs[i];
    if (r.kind == RelocKind::kBuffer) {
      x.relocs_of_slot_[r.target].push_back(i);
    } else {
      x.rec_.pieces[r.piece][r.index].Set(dram.lsb, dram.width, x.kernel_phys_[r.target] / kUopBytes);
    }
  }
  x.dirty_.assign(rec.pieces.size(), true);
  for (size_t p = 0; p < rec.pieces.size(); ++p) {
    auto a = device_->Alloc(rec.pieces[p].size() * kInsnBytes, MemPool::kCode,
                            fmt::format("recording '{}' piece {}", rec.name, p));
    if (!a.ok()) return a.status();  // x's destructor frees the pieces placed so far
    x.code_.push_back(*a);
  }
  for (size_t s = 0; s < rec.recorded_buffers.size() && s < rec.slots.size(); ++s)
    if (IsLive(rec.recorded_buffers[s])) TSR_RETURN_IF_ERROR(x.Bind(static_cast<int>(s), rec.recorded_buffers[s]));
  return x;
}

Status Runtime::Run(const Recording& rec, const std::vector<Buffer>& bindings, int64_t timeout_ms) {
  TSR_ASSIGN_OR_RETURN(Executable x, Load(rec));
  TSR_RETURN_IF_ERROR(x.BindAll(bindings));
  return x.Run(timeout_ms);
}

Status Runtime::RestoreUops(Executable* x, int64_t timeout_ms) {
  const Recording& rec = x->rec_;
  std::vector<Word128> words;
  std::vector<const UopPlacement*> restored;
  for (const UopPlacement& u : rec.requires_resident) {
    const auto& img = rec.kernels[u.kernel];
    if (uops_.Holds(*img, u.offset)) continue;
    Instruction in;
    in.opcode = static_cast<int64_t>(Opcode::kLoad);
    in.mem = static_cast<int64_t>(MemType::kUop);
    in.sram = u.offset;
    in.dram = static_cast<int64_t>(x->kernel_phys_[u.kernel] / kUopBytes);
    in.y_size = 1;
    in.x_size = in.x_stride = static_cast<int64_t>(img->words.size());
    TSR_ASSIGN_OR_RETURN(Word128 w, Encode(config(), in));
    words.push_back(w);
    restored.push_back(&u);
  }
  if (words.empty()) return OkStatus();
  Instruction finish;
  finish.opcode = static_cast<int64_t>(Opcode::kFinish);
  words.push_back(*Encode(config(), finish));
  const uint64_t bytes = words.size() * kInsnBytes;
  if (preamble_.bytes < bytes) {
    if (preamble_.bytes) TSR_RETURN_IF_ERROR(device_->Free(preamble_.phys));
    preamble_ = {};
    TSR_ASSIGN_OR_RETURN(preamble_, device_->Alloc(std::max<uint64_t>(bytes, 1024), MemPool::kCode, "uop preamble"));
  }
  std::vector<uint8_t> buf(bytes);
  for (size_t i = 0; i < words.size(); ++i) StoreWord(words[i], &buf[i * kInsnBytes]);
  TSR_RETURN_IF_ERROR(device_->Write(preamble_.phys, buf.data(), bytes));
  ++stats_.device_runs;
  ++stats_.uop_preambles;
  Status s = device_->Run(preamble_.phys, static_cast<int64_t>(words.size()), timeout_ms);
  if (!s.ok()) {
    uops_.Clear();
    return s.WithContext(fmt::format("restoring the uops recording '{}' expects", rec.name));
  }
  x->counters_.Add(device_->ReadCounters());
  for (const UopPlacement* u : restored) uops_.Assume(rec.kernels[u->kernel], u->offset);
  return OkStatus();
}

}  // namespace tessera
