#include "runtime/recording.h"

#include <cstring>

#include "isa/asm.h"
#include "isa/encoding.h"

namespace tessera {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'R', 'R', 'E', 'C', 0, 0};
constexpr uint32_t kVersion = 1;

uint64_t Fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

class Writer {
 public:
  void Bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void U(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U8(uint8_t v) { U(v, 1); }
  void U32(uint32_t v) { U(v, 4); }
  void U64(uint64_t v) { U(v, 8); }
  void I64(int64_t v) { U(static_cast<uint64_t>(v), 8); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s.data(), s.size());
  }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& b, const std::string& src) : b_(b), src_(src) {}
  Status Need(size_t n, const char* what) {
    if (n > b_.size() - pos_)
      return DataLossError("{}: truncated recording: {} needs {} bytes at offset {}, {} left", src_, what, n, pos_,
                           b_.size() - pos_);
    return OkStatus();
  }
  Status U(int n, uint64_t* v, const char* what) {
    TSR_RETURN_IF_ERROR(Need(static_cast<size_t>(n), what));
    *v = 0;
    for (int i = 0; i < n; ++i) *v |= static_cast<uint64_t>(b_[pos_++]) << (8 * i);
    return OkStatus();
  }
  Status U32(uint32_t* v, const char* what) {
    uint64_t x;
    TSR_RETURN_IF_ERROR(U(4, &x, what));
    *v = static_cast<uint32_t>(x);
    return OkStatus();
  }
  Status I64(int64_t* v, const char* what) {
    uint64_t x;
    TSR_RETURN_IF_ERROR(U(8, &x, what));
    *v = static_cast<int64_t>(x);
    return OkStatus();
  }
  // A count of records of at least `min_bytes` each, bounded by the bytes left.
  Status Count(uint32_t* n, size_t min_bytes, const char* what) {
    TSR_RETURN_IF_ERROR(U32(n, what));
    if (static_cast<uint64_t>(*n) * min_bytes > b_.size() - pos_)
      return DataLossError("{}: corrupt recording: {} count {} at offset {} exceeds the data", src_, what, *n,
                           pos_ - 4);
    return OkStatus();
  }
  Status Str(std::string* s, const char* what) {
    uint32_t n;
    TSR_RETURN_IF_ERROR(U32(&n, what));
    TSR_RETURN_IF_ERROR(Need(n, what));
    s->assign(reinterpret_cast<const char*>(b_.data() + pos_), n);
    pos_ += n;
    return OkStatus();
  }
  const uint8_t* Take(size_t n) {
    const uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }
  size_t pos() const { return pos_; }

 private:
  const std::vector<uint8_t>& b_;
  const std::string& src_;
  size_t pos_ = 0;
};

int64_t* StatFields(RecordingStats* s, int* n) {
  static_assert(sizeof(RecordingStats) == 7 * sizeof(int64_t), "update the stats serialization");
  *n = 7;
  return &s->user_insns;
}

}  // namespace

int64_t Recording::num_insns() const {
  int64_t n = 0;
  for (const auto& p : pieces) n += static_cast<int64_t>(p.size());
  return n;
}

int Recording::FindSlot(const std::string& slot_name) const {
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].name == slot_name) return static_cast<int>(i);
  return -1;
}

std::vector<uint8_t> Recording::Serialize() const {
  Writer w;
  w.Bytes(kMagic, sizeof(kMagic));
  w.U32(kVersion);
  w.U64(isa_fingerprint);
  w.Str(config_name);
  w.Str(name);
  w.U32(static_cast<uint32_t>(slots.size()));
  for (const RecordingSlot& s : slots) {
    w.Str(s.name);
    w.U64(s.bytes_needed);
    w.U32(s.alignment);
  }
  w.U32(static_cast<uint32_t>(kernels.size()));
  for (const auto& k : kernels) {
    w.Str(k->name);
    w.U32(static_cast<uint32_t>(k->words.size()));
    for (uint32_t word : k->words) w.U32(word);
  }
  w.U32(static_cast<uint32_t>(pieces.size()));
  for (const auto& p : pieces) {
    w.U32(static_cast<uint32_t>(p.size()));
    uint8_t buf[kInsnBytes];
    for (const Word128& word : p) {
      StoreWord(word, buf);
      w.Bytes(buf, kInsnBytes);
    }
  }
  w.U32(static_cast<uint32_t>(relocs.size()));
  for (const Relocation& r : relocs) {
    w.U32(r.piece);
    w.U32(r.index);
    w.U8(static_cast<uint8_t>(r.kind));
    w.U32(r.target);
    w.U32(r.elem_bytes);
    w.I64(r.elem_offset);
  }
  for (const auto* list : {&requires_resident, &exit_resident}) {
    w.U32(static_cast<uint32_t>(list->size()));
    for (const UopPlacement& u : *list) {
      w.U32(u.kernel);
      w.I64(u.offset);
    }
  }
  RecordingStats st = stats;
  int n;
  const int64_t* f = StatFields(&st, &n);
  for (int i = 0; i < n; ++i) w.I64(f[i]);
  w.U64(Fnv1a(w.out.data(), w.out.size()));
  return std::move(w.out);
}

StatusOr<Recording> Recording::Deserialize(const std::vector<uint8_t>& bytes, const std::string& source) {
  if (bytes.size() < sizeof(kMagic) + 12 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return InvalidArgumentError("{}: not a Tessera recording (bad magic)", source);
  const uint64_t stored = [&] {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(bytes[bytes.size() - 8 + i]) << (8 * i);
    return v;
  }();
  if (Fnv1a(bytes.data(), bytes.size() - 8) != stored)
    return DataLossError("{}: corrupt recording: checksum mismatch", source);
  Reader r(bytes, source);
  r.Take(sizeof(kMagic));
  Recording rec;
  uint32_t version, n;
  TSR_RETURN_IF_ERROR(r.U32(&version, "version"));
  if (version != kVersion)
    return InvalidArgumentError("{}: recording format version {} is not supported (this build reads {})", source,
                                version, kVersion);
  TSR_RETURN_IF_ERROR(r.U(8, &rec.isa_fingerprint, "ISA fingerprint"));
  TSR_RETURN_IF_ERROR(r.Str(&rec.config_name, "config name"));
  TSR_RETURN_IF_ERROR(r.Str(&rec.name, "name"));
  TSR_RETURN_IF_ERROR(r.Count(&n, 16, "slot"));
  rec.slots.resize(n);
  for (RecordingSlot& s : rec.slots) {
    TSR_RETURN_IF_ERROR(r.Str(&s.name, "slot name"));
    TSR_RETURN_IF_ERROR(r.U(8, &s.bytes_needed, "slot size"));
    TSR_RETURN_IF_ERROR(r.U32(&s.alignment, "slot alignment"));
    if (s.alignment == 0 || (s.alignment & (s.alignment - 1)) != 0 || s.alignment > 4096)
      return DataLossError("{}: corrupt recording: slot '{}' has alignment {}", source, s.name, s.alignment);
  }
  TSR_RETURN_IF_ERROR(r.Count(&n, 8, "kernel"));
  for (uint32_t i = 0; i < n; ++i) {
    std::string kname;
    uint32_t words;
    TSR_RETURN_IF_ERROR(r.Str(&kname, "kernel name"));
    TSR_RETURN_IF_ERROR(r.Count(&words, 4, "uop"));
    if (words == 0) return DataLossError("{}: corrupt recording: kernel {} ('{}') has no uops", source, i, kname);
    std::vector<uint32_t> w(words);
    for (uint32_t& x : w) TSR_RETURN_IF_ERROR(r.U32(&x, "uop word"));
    rec.kernels.push_back(MakeUopImage(std::move(kname), std::move(w)));
  }
  TSR_RETURN_IF_ERROR(r.Count(&n, 4, "piece"));
  rec.pieces.resize(n);
  for (auto& p : rec.pieces) {
    uint32_t insns;
    TSR_RETURN_IF_ERROR(r.Count(&insns, kInsnBytes, "instruction"));
    if (insns == 0) return DataLossError("{}: corrupt recording: empty piece", source);
    p.resize(insns);
    for (Word128& word : p) word = LoadWord(r.Take(kInsnBytes));
  }
  TSR_RETURN_IF_ERROR(r.Count(&n, 25, "relocation"));
  rec.relocs.resize(n);
  for (Relocation& x : rec.relocs) {
    uint64_t kind;
    TSR_RETURN_IF_ERROR(r.U32(&x.piece, "relocation"));
    TSR_RETURN_IF_ERROR(r.U32(&x.index, "relocation"));
    TSR_RETURN_IF_ERROR(r.U(1, &kind, "relocation"));
    TSR_RETURN_IF_ERROR(r.U32(&x.target, "relocation"));
    TSR_RETURN_IF_ERROR(r.U32(&x.elem_bytes, "relocation"));
    TSR_RETURN_IF_ERROR(r.I64(&x.elem_offset, "relocation"));
    if (kind > 1) return DataLossError("{}: corrupt recording: relocation kind {}", source, kind);
    x.kind = static_cast<RelocKind>(kind);
    const size_t targets = x.kind == RelocKind::kBuffer ? rec.slots.size() : rec.kernels.size();
    if (x.piece >= rec.pieces.size() || x.index >= rec.pieces[x.piece].size() || x.target >= targets ||
        x.elem_bytes == 0 || x.elem_offset < 0)
      return DataLossError("{}: corrupt recording: relocation of piece {} instruction {} is out of range", source,
                           x.piece, x.index);
  }
  for (auto* list : {&rec.requires_resident, &rec.exit_resident}) {
    TSR_RETURN_IF_ERROR(r.Count(&n, 12, "uop placement"));
    list->resize(n);
    for (UopPlacement& u : *list) {
      TSR_RETURN_IF_ERROR(r.U32(&u.kernel, "uop placement"));
      TSR_RETURN_IF_ERROR(r.I64(&u.offset, "uop placement"));
      if (u.kernel >= rec.kernels.size() || u.offset < 0)
        return DataLossError("{}: corrupt recording: uop placement of kernel {} is out of range", source, u.kernel);
    }
  }
  int nf;
  int64_t* f = StatFields(&rec.stats, &nf);
  for (int i = 0; i < nf; ++i) TSR_RETURN_IF_ERROR(r.I64(&f[i], "statistics"));
  if (r.pos() + 8 != bytes.size())
    return DataLossError("{}: corrupt recording: {} unexpected bytes before the checksum", source,
                         bytes.size() - 8 - r.pos());
  rec.recorded_buffers.resize(rec.slots.size());
  return rec;
}

StatusOr<std::string> Recording::Disassemble(const HwConfig& cfg) const {
  std::string out = fmt::format("# recording '{}' for config '{}': {} instruction(s) in {} piece(s)\n", name,
                                config_name, num_insns(), pieces.size());
  std::vector<std::vector<std::string>> notes(pieces.size());
  for (size_t p = 0; p < pieces.size(); ++p) notes[p].resize(pieces[p].size());
  for (const Relocation& r : relocs) {
    std::string& n = notes[r.piece][r.index];
    if (r.kind == RelocKind::kBuffer)
      n = fmt::format("  ; slot '{}' + {} elements", slots[r.target].name, r.elem_offset);
    else
      n = fmt::format("  ; kernel '{}'", kernels[r.target]->name);
  }
  for (size_t p = 0; p < pieces.size(); ++p) {
    out += fmt::format("# piece {}\n", p);
    for (size_t i = 0; i < pieces[p].size(); ++i) {
      auto in = Decode(cfg, pieces[p][i]);
      if (!in.ok()) return in.status().WithContext(fmt::format("piece {} instruction {}", p, i));
      out += FormatInstruction(cfg, *in) + notes[p][i] + "\n";
    }
  }
  return out;
}

}  // namespace tessera
