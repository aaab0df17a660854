#include "isa/program.h"

#include <algorithm>
#include <cstring>

#include "isa/config.h"
#include "isa/encoding.h"

namespace tessera {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'R', 'P', 'R', 'O', 'G', '\0'};
constexpr uint32_t kVersion = 1;
// Guard against absurd sizes in corrupted files.
constexpr uint64_t kMaxSegmentBytes = uint64_t{1} << 32;

class Writer {
 public:
  void U8(uint8_t v) { out.push_back(v); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void Bytes(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  std::vector<uint8_t> out;

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& b, const std::string& source) : b_(b), source_(source) {}
  Status Need(uint64_t n, const char* what) {
    if (n > b_.size() - pos_)
      return DataLossError("{}: truncated program object: {} needs {} bytes at offset {}, {} left", source_, what, n,
                           pos_, b_.size() - pos_);
    return OkStatus();
  }
  uint64_t Le(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(b_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  StatusOr<uint64_t> Get(int n, const char* what) {
    TSR_RETURN_IF_ERROR(Need(n, what));
    return Le(n);
  }
  StatusOr<std::vector<uint8_t>> Take(uint64_t n, const char* what) {
    TSR_RETURN_IF_ERROR(Need(n, what));
    std::vector<uint8_t> v(b_.begin() + pos_, b_.begin() + pos_ + n);
    pos_ += n;
    return v;
  }
  size_t pos() const { return pos_; }
  bool done() const { return pos_ == b_.size(); }

 private:
  const std::vector<uint8_t>& b_;
  const std::string& source_;
  size_t pos_ = 0;
};

const char* KindName(Segment::Kind k) {
  switch (k) {
    case Segment::Kind::kData: return "data";
    case Segment::Kind::kUops: return "uops";
    case Segment::Kind::kExpect: return "expect";
  }
  return "?";
}

}  // namespace

int ElemBytes(ElemType t) {
  switch (t) {
    case ElemType::kI8:
    case ElemType::kU8: return 1;
    case ElemType::kI16:
    case ElemType::kU16: return 2;
    case ElemType::kI32:
    case ElemType::kU32:
    case ElemType::kUop: return 4;
  }
  TSR_UNREACHABLE("bad element type {}", static_cast<int>(t));
}

const char* ElemTypeName(ElemType t) {
  switch (t) {
    case ElemType::kI8: return "i8";
    case ElemType::kU8: return "u8";
    case ElemType::kI16: return "i16";
    case ElemType::kU16: return "u16";
    case ElemType::kI32: return "i32";
    case ElemType::kU32: return "u32";
    case ElemType::kUop: return "uop";
  }
  return "?";
}

bool ParseElemType(const std::string& name, ElemType* out) {
  for (ElemType t : {ElemType::kI8, ElemType::kU8, ElemType::kI16, ElemType::kU16, ElemType::kI32, ElemType::kU32})
    if (name == ElemTypeName(t)) {
      *out = t;
      return true;
    }
  return false;
}

int64_t Segment::Element(size_t i) const {
  const int n = ElemBytes(type);
  uint64_t v = 0;
  for (int k = 0; k < n; ++k) v |= static_cast<uint64_t>(bytes[i * n + k]) << (8 * k);
  switch (type) {
    case ElemType::kI8: return static_cast<int8_t>(v);
    case ElemType::kI16: return static_cast<int16_t>(v);
    case ElemType::kI32: return static_cast<int32_t>(v);
    default: return static_cast<int64_t>(v);
  }
}

StatusOr<std::vector<uint8_t>> EncodeStream(const HwConfig& cfg, const std::vector<Instruction>& insns) {
  std::vector<uint8_t> out(insns.size() * kInsnBytes);
  for (size_t i = 0; i < insns.size(); ++i) {
    auto w = Encode(cfg, insns[i]);
    if (!w.ok()) return w.status().WithContext(fmt::format("instruction {}", i));
    StoreWord(*w, &out[i * kInsnBytes]);
  }
  return out;
}

Status CheckProgramLayout(const HwConfig& cfg, const Program& prog) {
  struct Range {
    uint64_t lo, hi;
    std::string what;
  };
  std::vector<Range> ranges;
  if (prog.text_addr % kInsnBytes != 0)
    return InvalidArgumentError("instruction stream address 0x{:x} is not 16-byte aligned", prog.text_addr);
  ranges.push_back({prog.text_addr, prog.text_addr + prog.insns.size() * kInsnBytes, "the instruction stream"});
  for (const Segment& s : prog.segments) {
    if (s.bytes.size() % ElemBytes(s.type) != 0)
      return InvalidArgumentError("segment '{}': {} bytes is not a whole number of {} elements", s.name, s.bytes.size(),
                                  ElemTypeName(s.type));
    if (s.addr > cfg.dram_size_bytes || s.bytes.size() > cfg.dram_size_bytes - s.addr)
      return OutOfRangeError("segment '{}' [0x{:x}, 0x{:x}) is outside DRAM ({} bytes)", s.name, s.addr,
                             s.addr + s.bytes.size(), cfg.dram_size_bytes);
    if (s.kind == Segment::Kind::kUops) {
      if (s.addr % kUopBytes != 0)
        return InvalidArgumentError("uop segment '{}' address 0x{:x} is not 4-byte aligned", s.name, s.addr);
      for (size_t i = 0; i < s.count(); ++i) {
        uint32_t word = static_cast<uint32_t>(s.Element(i));
        auto re = EncodeUop(cfg, DecodeUop(cfg, word));
        if (!re.ok() || *re != word)
          return InvalidArgumentError("uop segment '{}' entry {}: word 0x{:08x} has bits outside the uop fields",
                                      s.name, i, word);
      }
    }
    if (s.kind != Segment::Kind::kExpect)
      ranges.push_back({s.addr, s.addr + s.bytes.size(), fmt::format("{} segment '{}'", KindName(s.kind), s.name)});
  }
  if (prog.text_addr + prog.insns.size() * kInsnBytes > cfg.dram_size_bytes)
    return OutOfRangeError("the instruction stream ends past DRAM ({} bytes)", cfg.dram_size_bytes);
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      const Range &a = ranges[i], &b = ranges[j];
      if (a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi)
        return InvalidArgumentError("{} [0x{:x}, 0x{:x}) overlaps {} [0x{:x}, 0x{:x})", a.what, a.lo, a.hi, b.what,
                                    b.lo, b.hi);
    }
  return OkStatus();
}

Status PlaceProgram(const HwConfig& cfg, const Program& prog, const MemoryWriter& write) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, EncodeStream(cfg, prog.insns));
  TSR_RETURN_IF_ERROR(write(prog.text_addr, stream.data(), stream.size()).WithContext("instruction stream"));
  for (const Segment& s : prog.segments) {
    if (s.kind == Segment::Kind::kExpect) continue;
    TSR_RETURN_IF_ERROR(write(s.addr, s.bytes.data(), s.bytes.size()).WithContext("segment '" + s.name + "'"));
  }
  return OkStatus();
}

Status CheckExpectations(const Program& prog, const MemoryReader& read, int* checked_segments) {
  int checked = 0;
  std::string report;
  int64_t mismatches = 0;
  for (const Segment& s : prog.segments) {
    if (s.kind != Segment::Kind::kExpect) continue;
    ++checked;
    Segment actual = s;
    TSR_RETURN_IF_ERROR(read(s.addr, actual.bytes.data(), actual.bytes.size()).WithContext("expect '" + s.name + "'"));
    for (size_t i = 0; i < s.count(); ++i) {
      if (s.Element(i) == actual.Element(i)) continue;
      if (++mismatches <= 8)
        report += fmt::format("\n  {}[{}] at 0x{:x}: expected {}, got {}", s.name, i, s.addr + i * ElemBytes(s.type),
                              s.Element(i), actual.Element(i));
    }
  }
  if (checked_segments) *checked_segments = checked;
  if (mismatches)
    return FailedPreconditionError("{} element(s) differ from the expected DRAM contents:{}{}", mismatches, report,
                                   mismatches > 8 ? "\n  ..." : "");
  return OkStatus();
}

StatusOr<std::vector<uint8_t>> SerializeProgram(const HwConfig& cfg, const Program& prog) {
  TSR_RETURN_IF_ERROR(CheckProgramLayout(cfg, prog));
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> stream, EncodeStream(cfg, prog.insns));
  Writer w;
  w.Bytes(kMagic, sizeof(kMagic));
  w.U32(kVersion);
  w.U32(0);  // flags
  w.U64(cfg.isa_fingerprint);
  w.U64(prog.text_addr);
  w.U32(static_cast<uint32_t>(prog.insns.size()));
  w.U32(static_cast<uint32_t>(prog.segments.size()));
  w.Bytes(stream.data(), stream.size());
  for (const Segment& s : prog.segments) {
    w.U8(static_cast<uint8_t>(s.kind));
    w.U8(static_cast<uint8_t>(s.type));
    w.U16(static_cast<uint16_t>(s.name.size()));
    w.U32(0);
    w.U64(s.addr);
    w.U64(s.bytes.size());
    w.Bytes(s.name.data(), s.name.size());
    w.Bytes(s.bytes.data(), s.bytes.size());
  }
  return std::move(w.out);
}

bool IsProgramObject(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= sizeof(kMagic) && std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) == 0;
}

StatusOr<Program> ParseProgramObject(const HwConfig& cfg, const std::vector<uint8_t>& bytes,
                                     const std::string& source) {
  if (!IsProgramObject(bytes)) return InvalidArgumentError("{}: not a Tessera program object (bad magic)", source);
  Reader r(bytes, source);
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> magic, r.Take(sizeof(kMagic), "magic"));
  TSR_ASSIGN_OR_RETURN(uint64_t version, r.Get(4, "version"));
  if (version != kVersion)
    return InvalidArgumentError("{}: program object version {} is not supported (expected {})", source, version,
                                kVersion);
  TSR_ASSIGN_OR_RETURN(uint64_t flags, r.Get(4, "flags"));
  if (flags != 0) return InvalidArgumentError("{}: unknown flags 0x{:x}", source, flags);
  TSR_ASSIGN_OR_RETURN(uint64_t fp, r.Get(8, "fingerprint"));
  if (fp != cfg.isa_fingerprint)
    return FailedPreconditionError(
        "{}: assembled for a config with isa fingerprint 0x{:016x}, but config '{}' has 0x{:016x}", source, fp,
        cfg.name, cfg.isa_fingerprint);
  Program prog;
  TSR_ASSIGN_OR_RETURN(prog.text_addr, r.Get(8, "text address"));
  TSR_ASSIGN_OR_RETURN(uint64_t n_insn, r.Get(4, "instruction count"));
  TSR_ASSIGN_OR_RETURN(uint64_t n_seg, r.Get(4, "segment count"));
  TSR_RETURN_IF_ERROR(r.Need(n_insn * kInsnBytes, "instructions"));
  prog.insns.reserve(n_insn);
  for (uint64_t i = 0; i < n_insn; ++i) {
    TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> word, r.Take(kInsnBytes, "instruction"));
    auto insn = Decode(cfg, LoadWord(word.data()));
    if (!insn.ok()) return insn.status().WithContext(fmt::format("{}: instruction {}", source, i));
    prog.insns.push_back(*insn);
  }
  for (uint64_t i = 0; i < n_seg; ++i) {
    Segment s;
    TSR_ASSIGN_OR_RETURN(uint64_t kind, r.Get(1, "segment kind"));
    TSR_ASSIGN_OR_RETURN(uint64_t type, r.Get(1, "segment type"));
    TSR_ASSIGN_OR_RETURN(uint64_t name_len, r.Get(2, "segment name length"));
    TSR_ASSIGN_OR_RETURN(uint64_t reserved, r.Get(4, "segment reserved"));
    TSR_ASSIGN_OR_RETURN(s.addr, r.Get(8, "segment address"));
    TSR_ASSIGN_OR_RETURN(uint64_t len, r.Get(8, "segment length"));
    if (kind > 2 || type > static_cast<uint64_t>(ElemType::kUop) || reserved != 0)
      return DataLossError("{}: segment {} has an invalid header", source, i);
    if ((kind == 1) != (type == static_cast<uint64_t>(ElemType::kUop)))
      return DataLossError("{}: segment {}: uop segments and only they have element type uop", source, i);
    if (len > kMaxSegmentBytes) return DataLossError("{}: segment {} claims {} bytes", source, i, len);
    s.kind = static_cast<Segment::Kind>(kind);
    s.type = static_cast<ElemType>(type);
    TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> name, r.Take(name_len, "segment name"));
    s.name.assign(name.begin(), name.end());
    TSR_ASSIGN_OR_RETURN(s.bytes, r.Take(len, "segment data"));
    prog.segments.push_back(std::move(s));
  }
  if (!r.done()) return DataLossError("{}: {} trailing bytes after the last segment", source, bytes.size() - r.pos());
  Status layout = CheckProgramLayout(cfg, prog);
  if (!layout.ok()) return layout.WithContext(source);
  return prog;
}

}  // namespace tessera
