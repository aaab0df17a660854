#include "isa/encoding.h"
#include "runtime/runtime.h"

namespace tessera {

Executable::Executable(Executable&& o) noexcept { *this = std::move(o); }

Executable& Executable::operator=(Executable&& o) noexcept {
  if (this != &o) {
    Release();
    rt_ = o.rt_;
    rec_ = std::move(o.rec_);
    kernel_phys_ = std::move(o.kernel_phys_);
    bound_ = std::move(o.bound_);
    relocs_of_slot_ = std::move(o.relocs_of_slot_);
    code_ = std::move(o.code_);
    dirty_ = std::move(o.dirty_);
    counters_ = o.counters_;
    patched_fields_ = o.patched_fields_;
    o.code_.clear();
    o.rt_ = nullptr;
  }
  return *this;
}

Executable::~Executable() { Release(); }

void Executable::Release() {
  if (rt_ != nullptr)
    for (const DeviceAllocation& a : code_) (void)rt_->device().Free(a.phys);
  code_.clear();
}

Status Executable::Bind(int slot, const Buffer& b) {
  if (slot < 0 || slot >= static_cast<int>(rec_.slots.size()))
    return InvalidArgumentError("recording '{}' has no slot {} ({} slot(s))", rec_.name, slot, rec_.slots.size());
  const RecordingSlot& s = rec_.slots[slot];
  if (!rt_->IsLive(b))
    return FailedPreconditionError(
        "binding slot '{}' of recording '{}': buffer '{}' is not a live buffer of this "
        "runtime",
        s.name, rec_.name, b.name());
  if (b.bytes() < s.bytes_needed)
    return OutOfRangeError(
        "binding buffer '{}' ({} bytes) to slot '{}' of recording '{}': the recording's DMAs reach "
        "byte {} of the slot",
        b.name(), b.bytes(), s.name, rec_.name, s.bytes_needed);
  if (b.phys() % s.alignment != 0)
    return InvalidArgumentError("binding buffer '{}' at 0x{:x} to slot '{}': the address must be a multiple of {}",
                                b.name(), b.phys(), s.name, s.alignment);
  if (bound_[slot].valid() && bound_[slot].id() == b.id() && bound_[slot].phys() == b.phys()) return OkStatus();
  const FieldSlot& dram = rt_->config().layout.slot(Format::kMem, FieldId::dram);
  for (uint32_t i : relocs_of_slot_[slot]) {
    const Relocation& r = rec_.relocs[i];
    const uint64_t v = b.phys() / r.elem_bytes + static_cast<uint64_t>(r.elem_offset);
    if (!FitsUnsigned(static_cast<int64_t>(v), dram.width))
      return OutOfRangeError(
          "binding buffer '{}' at 0x{:x} to slot '{}': DRAM element {} does not "
          "fit the {}-bit dram "
          "field",
          b.name(), b.phys(), s.name, v, dram.width);
  }
  for (uint32_t i : relocs_of_slot_[slot]) {
    const Relocation& r = rec_.relocs[i];
    rec_.pieces[r.piece][r.index].Set(dram.lsb, dram.width,
                                      b.phys() / r.elem_bytes + static_cast<uint64_t>(r.elem_offset));
    dirty_[r.piece] = true;
    ++patched_fields_;
  }
  bound_[slot] = b;
  return OkStatus();
}

Status Executable::Bind(const std::string& slot_name, const Buffer& b) {
  const int slot = rec_.FindSlot(slot_name);
  if (slot < 0) return NotFoundError("recording '{}' has no slot '{}'", rec_.name, slot_name);
  return Bind(slot, b);
}

Status Executable::BindAll(const std::vector<Buffer>& buffers) {
  if (buffers.size() > rec_.slots.size())
    return InvalidArgumentError("recording '{}' has {} slot(s), {} buffers given", rec_.name, rec_.slots.size(),
                                buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].valid()) TSR_RETURN_IF_ERROR(Bind(static_cast<int>(i), buffers[i]));
  return OkStatus();
}

Status Executable::Upload() {
  for (size_t p = 0; p < rec_.pieces.size(); ++p) {
    if (!dirty_[p]) continue;
    const auto& words = rec_.pieces[p];
    upload_buf_.resize(words.size() * kInsnBytes);
    for (size_t i = 0; i < words.size(); ++i) StoreWord(words[i], &upload_buf_[i * kInsnBytes]);
    TSR_RETURN_IF_ERROR(rt_->device().Write(code_[p].phys, upload_buf_.data(), upload_buf_.size()));
    dirty_[p] = false;
  }
  return OkStatus();
}

Status Executable::Run(int64_t timeout_ms) {
  if (timeout_ms < 0) timeout_ms = rt_->options().timeout_ms;
  for (size_t s = 0; s < rec_.slots.size(); ++s) {
    if (!bound_[s].valid())
      return FailedPreconditionError("recording '{}': slot '{}' is not bound to a buffer", rec_.name,
                                     rec_.slots[s].name);
    if (!rt_->IsLive(bound_[s]))
      return FailedPreconditionError("recording '{}': slot '{}' is bound to buffer '{}', which was freed", rec_.name,
                                     rec_.slots[s].name, bound_[s].name());
  }
  TSR_RETURN_IF_ERROR(Upload());
  counters_ = DeviceCounters{};
  TSR_RETURN_IF_ERROR(rt_->RestoreUops(this, timeout_ms));
  Device& dev = rt_->device();
  for (size_t p = 0; p < rec_.pieces.size(); ++p) {
    ++rt_->stats_.device_runs;
    Status s = dev.Run(code_[p].phys, static_cast<int64_t>(rec_.pieces[p].size()), timeout_ms);
    counters_.Add(dev.ReadCounters());
    if (!s.ok()) {
      rt_->uops_.Clear();  // the scratchpad state is unknown after a failed run
      rt_->last_counters_ = counters_;
      return s.WithContext(fmt::format("recording '{}', piece {} of {}", rec_.name, p + 1, rec_.pieces.size()));
    }
  }
  if (!rec_.pieces.empty()) {
    UopResidency after(rt_->config().uop_entries);
    for (const UopPlacement& u : rec_.exit_resident) after.Assume(rec_.kernels[u.kernel], u.offset);
    rt_->uops_ = std::move(after);
  }
  rt_->last_counters_ = counters_;
  return OkStatus();
}

}  // namespace tessera
