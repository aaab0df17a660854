// Stream::Split: cuts the recorded stream into pieces that fit the
// instruction buffer, each a balanced stream of its own ending in FINISH.
//
// Tokens pair up first-in first-out per queue. A pair whose push and pop land
// in different pieces is dropped (both flags cleared): consecutive device
// runs are serialized, which orders the two instructions anyway. Each piece
// then drains: FINISH must not retire before the load and store modules are
// done, so the last load (store) instruction of the piece pushes to compute
// unless its token is already consumed inside the piece, and FINISH pops it.
// Both are flag folds; splitting never adds instructions besides FINISH.
#include "isa/encoding.h"
#include "runtime/stream.h"
#include "runtime/tokens.h"

namespace tessera {

StatusOr<Recording> Stream::Split() {
  Recording rec;
  rec.name = name_;
  rec.config_name = cfg_->name;
  rec.isa_fingerprint = cfg_->isa_fingerprint;
  const int64_t n = static_cast<int64_t>(recs_.size());
  const int64_t cap = opts_.insn_buffer_capacity;
  if (cap < 2)
    return InvalidArgumentError(
        "stream '{}': instruction-buffer capacity {} is too small (at least 2: one "
        "instruction and FINISH)",
        name_, cap);
  const int64_t body = cap - 1;  // FINISH takes the last slot of each piece
  auto piece_of = [&](int64_t i) { return i / body; };

  // FIFO pairing per queue; drop pairs that straddle a cut.
  for (int q = 0; q < kNumTokenQueuePairs && n > body; ++q) {
    const TokenFlag push = TokenPushFlag(q), pop = TokenPopFlag(q);
    const Module from = TokenQueueFrom(q), to = TokenQueueTo(q);
    std::vector<int64_t> pushes, pops;
    for (int64_t i = 0; i < n; ++i) {
      const Rec& r = recs_[i];
      if (r.module == from && GetFlag(r, push)) pushes.push_back(i);
      if (r.module == to && GetFlag(r, pop)) pops.push_back(i);
    }
    TSR_CHECK(pushes.size() == pops.size(), "queue {} unbalanced after the balance check", TokenQueueName(q));
    for (size_t k = 0; k < pushes.size(); ++k) {
      TSR_CHECK(pushes[k] < pops[k], "pop before its push on {}", TokenQueueName(q));
      if (piece_of(pushes[k]) != piece_of(pops[k])) {
        SetFlag(recs_[pushes[k]], push, false);
        SetFlag(recs_[pops[k]], pop, false);
        ++stats_.cut_tokens;
      }
    }
  }

  for (int64_t s = 0; s < n; s += body) {
    const int64_t e = std::min(n, s + body);
    const uint32_t piece = static_cast<uint32_t>(rec.pieces.size());
    int64_t last_load = -1, last_store = -1;
    for (int64_t i = s; i < e; ++i) {
      if (recs_[i].module == Module::kLoad) last_load = i;
      if (recs_[i].module == Module::kStore) last_store = i;
    }
    Instruction finish;
    finish.opcode = static_cast<int64_t>(Opcode::kFinish);
    if (last_load >= 0 && !GetFlag(recs_[last_load], TokenFlag::kPushNext)) {
      SetFlag(recs_[last_load], TokenFlag::kPushNext, true);
      finish.pop_prev = 1;
      ++stats_.folded_tokens;
    }
    if (last_store >= 0 && !GetFlag(recs_[last_store], TokenFlag::kPushPrev)) {
      SetFlag(recs_[last_store], TokenFlag::kPushPrev, true);
      finish.pop_next = 1;
      ++stats_.folded_tokens;
    }
    std::vector<Word128> words;
    words.reserve(static_cast<size_t>(e - s + 1));
    for (int64_t i = s; i < e; ++i) {
      const Rec& r = recs_[i];
      words.push_back(r.word);
      const uint32_t idx = static_cast<uint32_t>(i - s);
      if (r.slot >= 0)
        rec.relocs.push_back(
            Relocation{piece, idx, RelocKind::kBuffer, static_cast<uint32_t>(r.slot), r.elem_bytes, r.elem_offset});
      else if (r.kernel >= 0)
        rec.relocs.push_back(Relocation{piece, idx, RelocKind::kKernel, static_cast<uint32_t>(r.kernel), kUopBytes, 0});
    }
    words.push_back(encoder_.Encode(finish));
    rec.pieces.push_back(std::move(words));
  }

  for (const SlotInfo& si : slots_) {
    rec.slots.push_back(si.rec);
    rec.recorded_buffers.push_back(si.buffer);
  }
  rec.requires_resident = requires_resident_;
  for (const UopResidency::Entry& e : uops_.entries())
    if (!e.from_snapshot)
      rec.exit_resident.push_back(UopPlacement{static_cast<uint32_t>(KernelIndex(e.image)), e.offset});
  rec.kernels = kernels_;
  rec.stats = stats_;
  rec.jit_validated = true;
  return rec;
}

}  // namespace tessera
