// The assembler's segments (isa/assembler.h): .data / .expect / .uops
// headers and lines in pass 1, .random generated at once, and the values and
// uops evaluated and encoded in pass 2.
#include <cctype>

#include "isa/assembler.h"

namespace tessera::asm_internal {
namespace {

bool ValidName(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Range of element type t, for .data / .expect / .random values.
void TypeRange(ElemType t, int64_t* lo, int64_t* hi) {
  switch (t) {
    case ElemType::kI8: *lo = INT8_MIN, *hi = INT8_MAX; return;
    case ElemType::kU8: *lo = 0, *hi = UINT8_MAX; return;
    case ElemType::kI16: *lo = INT16_MIN, *hi = INT16_MAX; return;
    case ElemType::kU16: *lo = 0, *hi = UINT16_MAX; return;
    case ElemType::kI32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case ElemType::kU32:
    case ElemType::kUop: *lo = 0, *hi = UINT32_MAX; return;
  }
}

void AppendLe(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

Status Assembler::DefineSegmentSymbols(const TokenStream& ts, int col, const Segment& s, size_t count) {
  const int eb = ElemBytes(s.type);
  TSR_RETURN_IF_ERROR(Define(ts, col, s.name + ".count", static_cast<int64_t>(count)));
  return Define(ts, col, s.name + ".end", static_cast<int64_t>(s.addr + count * eb));
}

Status Assembler::SegmentHeader(TokenStream& ts, const Token& d, int lineno) {
  auto st = std::make_unique<SegStmt>();
  Segment& s = st->seg;
  s.kind = d.text == "uops" ? Segment::Kind::kUops : d.text == "expect" ? Segment::Kind::kExpect : Segment::Kind::kData;
  int name_col = ts.Peek().col;
  TSR_ASSIGN_OR_RETURN(s.name, ts.Ident("a segment name"));
  if (!ValidName(s.name)) return ts.Error(name_col, fmt::format("segment name '{}' may not contain '.'", s.name));
  for (const auto& other : segs_)
    if (other->seg.name == s.name) return ts.Error(name_col, fmt::format("segment '{}' is already defined", s.name));
  int addr_col = ts.Peek().col;
  TSR_ASSIGN_OR_RETURN(int64_t addr, EvalNow(ts));
  if (addr < 0) return ts.Error(addr_col, fmt::format("negative address {}", addr));
  s.addr = static_cast<uint64_t>(addr);
  if (s.kind == Segment::Kind::kUops) {
    s.type = ElemType::kUop;
  } else {
    int type_col = ts.Peek().col;
    TSR_ASSIGN_OR_RETURN(std::string type, ts.Ident("an element type (i8 u8 i16 u16 i32 u32)"));
    if (!ParseElemType(type, &s.type))
      return ts.Error(type_col, fmt::format("unknown element type '{}'; expected i8 u8 i16 u16 i32 u32", type));
  }
  if (s.kind != Segment::Kind::kUops && s.addr % ElemBytes(s.type) != 0)
    return ts.Error(addr_col,
                    fmt::format("address 0x{:x} is not aligned to {} elements", s.addr, ElemTypeName(s.type)));
  if (d.text == "random") {
    // Named arguments: count=E seed=E [min=E] [max=E]
    int64_t count = -1, seed = 0, lo = 0, hi = 0;
    TypeRange(s.type, &lo, &hi);
    int64_t tlo = lo, thi = hi;
    bool have_seed = false;
    int range_col = 0;
    while (!ts.AtEnd()) {
      int col = ts.Peek().col;
      TSR_ASSIGN_OR_RETURN(std::string key, ts.Ident("count=, seed=, min= or max="));
      TSR_RETURN_IF_ERROR(ts.Expect("="));
      TSR_ASSIGN_OR_RETURN(int64_t v, EvalNow(ts));
      if (key == "count")
        count = v;
      else if (key == "seed")
        seed = v, have_seed = true;
      else if (key == "min")
        lo = v, range_col = range_col ? range_col : col;
      else if (key == "max")
        hi = v, range_col = range_col ? range_col : col;
      else
        return ts.Error(col, fmt::format("unknown .random argument '{}'; expected count seed min max", key));
    }
    if (count < 0 || count > (int64_t{1} << 28))
      return ts.Error(d.col, fmt::format(".random needs count= in [0, 2^28], got {}", count));
    // Generated now, so bounded now: segments cannot overlap, so all of them fit in DRAM.
    const uint64_t bytes = static_cast<uint64_t>(count) * ElemBytes(s.type);
    random_bytes_ += bytes;
    if (s.addr > cfg_.dram_size_bytes || bytes > cfg_.dram_size_bytes - s.addr || random_bytes_ > cfg_.dram_size_bytes)
      return ts.Error(d.col,
                      fmt::format(".random segment '{}' does not fit in DRAM ({} bytes)", s.name, cfg_.dram_size_bytes),
                      StatusCode::kResourceExhausted);
    if (!have_seed) return ts.Error(d.col, ".random needs seed=");
    if (lo > hi || lo < tlo || hi > thi)
      return ts.Error(range_col,
                      fmt::format("random range [{}, {}] is empty or outside {}", lo, hi, ElemTypeName(s.type)));
    uint64_t state = static_cast<uint64_t>(seed);
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    for (int64_t i = 0; i < count; ++i)
      AppendLe(s.bytes, static_cast<uint64_t>(lo + static_cast<int64_t>(SplitMix64(state) % span)), ElemBytes(s.type));
    st->random = true;
    TSR_RETURN_IF_ERROR(Define(ts, name_col, s.name, static_cast<int64_t>(s.addr)));
    TSR_RETURN_IF_ERROR(DefineSegmentSymbols(ts, name_col, s, static_cast<size_t>(count)));
    segs_.push_back(std::move(st));
    return OkStatus();
  }
  if (!ts.AtEnd())
    return ts.Error(ts.Peek().col, fmt::format("unexpected '{}' after .{} header", ts.Peek().text, d.text));
  TSR_RETURN_IF_ERROR(Define(ts, name_col, s.name, static_cast<int64_t>(s.addr)));
  open_ = st.get();
  open_line_ = lineno;
  segs_.push_back(std::move(st));
  return OkStatus();
}

Status Assembler::ValueLine(TokenStream& ts) {
  for (;;) {
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Expr> e, ts.ParseExpr());
    open_->values.push_back({std::move(e), ts.where(), locals_});
    if (ts.AtEnd()) return OkStatus();
    TSR_RETURN_IF_ERROR(ts.Expect(","));
    if (ts.AtEnd()) return OkStatus();  // trailing comma
  }
}

Status Assembler::UopLine(TokenStream& ts) {
  UopStmt u;
  u.where = ts.where();
  u.locals = locals_;
  while (!ts.AtEnd()) {
    int col = ts.Peek().col;
    TSR_ASSIGN_OR_RETURN(std::string name, ts.Ident("a uop field (dst src wgt)"));
    const UopFieldInfo* fi = FindUopField(name);
    if (fi == nullptr) return ts.Error(col, fmt::format("unknown uop field '{}'; expected dst src wgt", name));
    auto& slot = u.fields[static_cast<int>(fi->id)];
    if (slot) return ts.Error(col, fmt::format("uop field '{}' given twice", name));
    TSR_RETURN_IF_ERROR(ts.Expect("="));
    TSR_ASSIGN_OR_RETURN(slot, ts.ParseExpr());
    if (ts.IsPunct(",")) ts.Next();
  }
  open_->uops.push_back(std::move(u));
  return OkStatus();
}

Status Assembler::FillSegment(SegStmt& st) {
  Segment& s = st.seg;
  if (st.random) return OkStatus();
  if (s.kind == Segment::Kind::kUops) {
    for (const UopStmt& u : st.uops) {
      Uop uop;
      for (int f = 0; f < kNumUopFields; ++f) {
        if (!u.fields[f]) continue;
        TSR_ASSIGN_OR_RETURN(uop.Field(static_cast<UopFieldId>(f)), Eval(*u.fields[f], syms_, u.locals, u.where));
      }
      auto word = EncodeUop(cfg_, uop);
      if (!word.ok()) return word.status().WithContext(u.where);
      AppendLe(s.bytes, *word, kUopBytes);
    }
    return OkStatus();
  }
  int64_t lo = 0, hi = 0;
  TypeRange(s.type, &lo, &hi);
  for (const ValueExpr& ve : st.values) {
    TSR_ASSIGN_OR_RETURN(int64_t v, Eval(*ve.expr, syms_, ve.locals, ve.where));
    if (v < lo || v > hi)
      return InvalidArgumentError("{}:{}: value {} does not fit {} [{}, {}]", ve.where, ve.expr->col, v,
                                  ElemTypeName(s.type), lo, hi);
    AppendLe(s.bytes, static_cast<uint64_t>(v), ElemBytes(s.type));
  }
  return OkStatus();
}

}  // namespace tessera::asm_internal
