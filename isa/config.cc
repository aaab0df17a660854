#include "isa/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "isa/base/file.h"
#include "isa/base/math.h"
#include "isa/fingerprint.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

bool IsPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string JoinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// Reads one parameter from the parsed JSON: walks its dotted key, checks type,
// range, power of two and multiple. Every message names "source: key 'a.b'".
Status ReadParam(const Json& root, const ParamInfo& p, const std::string& source, HwConfig& c) {
  const std::string key(p.key);
  const Json* v = &root;
  for (size_t pos = 0;;) {
    const size_t dot = key.find('.', pos);
    const std::string path = key.substr(0, dot);
    auto it = v->find(key.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
    if (it == v->end()) return InvalidArgumentError("{}: key '{}': missing", source, path);
    v = &*it;
    if (dot == std::string::npos) break;
    if (!v->is_object())
      return InvalidArgumentError("{}: key '{}': must be an object, got {}", source, path, v->dump());
    pos = dot + 1;
  }
  auto error = [&](const std::string& what) { return InvalidArgumentError("{}: key '{}': {}", source, key, what); };
  double x = 0;
  if (p.kind == ParamKind::kReal) {
    if (!v->is_number()) return error("must be a number, got " + v->dump());
    x = v->get<double>();
    if (!(x >= p.lo && x <= p.hi)) return error(fmt::format("must be in [{}, {}], got {}", p.lo, p.hi, x));
  } else {
    if (!v->is_number_integer()) return error("must be an integer, got " + v->dump());
    const auto lo = static_cast<int64_t>(p.lo), hi = static_cast<int64_t>(p.hi);
    if (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX})
      return error(fmt::format("must be in [{}, {}], got {}", lo, hi, v->get<uint64_t>()));
    const int64_t n = v->get<int64_t>();
    std::vector<int64_t> pow2s;
    if (p.kind == ParamKind::kPow2)
      for (int64_t q = 1; q <= hi; q *= 2)
        if (q >= lo) pow2s.push_back(q);
    if (p.kind == ParamKind::kPow2 && pow2s.size() <= 3) {
      if (std::find(pow2s.begin(), pow2s.end(), n) == pow2s.end())
        return error(fmt::format("must be one of {{{}}}, got {}", JoinInts(pow2s), n));
    } else if (n < lo || n > hi) {
      return error(fmt::format("must be in [{}, {}], got {}", lo, hi, n));
    }
    if (p.kind == ParamKind::kPow2 && !IsPow2(n)) return error(fmt::format("must be a power of two, got {}", n));
    if (n % p.multiple_of != 0) return error(fmt::format("must be a multiple of {}, got {}", p.multiple_of, n));
    x = static_cast<double>(n);
  }
  p.set(c, x);
  return OkStatus();
}

// The first key of `obj` (at `prefix`) that no parameter, "name" or "description" uses.
Status CheckUnknownKeys(const Json& obj, const std::string& prefix, const std::string& source) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && (path == "name" || path == "description")) continue;
    bool known = false, group = false;
    for (const ParamInfo& p : kParams) {
      known |= p.key == path;
      group |= p.key.size() > path.size() && p.key.substr(0, path.size()) == path && p.key[path.size()] == '.';
    }
    if (group && it->is_object()) TSR_RETURN_IF_ERROR(CheckUnknownKeys(*it, path, source));
    if (!known && !group) return InvalidArgumentError("{}: key '{}': unknown key", source, path);
  }
  return OkStatus();
}

int WidthOfRule(const HwConfig& c, WidthRule r, int fixed) {
  switch (r) {
    case WidthRule::kFixed: return fixed;
    case WidthRule::kSramIdx: return std::max({c.inp_idx_bits, c.wgt_idx_bits, c.acc_idx_bits, c.uop_idx_bits});
    case WidthRule::kSramEnd: return std::max({c.inp_idx_bits, c.wgt_idx_bits, c.acc_idx_bits, c.uop_idx_bits}) + 1;
    case WidthRule::kUopIdx: return c.uop_idx_bits;
    case WidthRule::kUopEnd: return c.uop_idx_bits + 1;
    case WidthRule::kAccIdx: return c.acc_idx_bits;
    case WidthRule::kSrcIdx: return std::max(c.inp_idx_bits, c.acc_idx_bits);
    case WidthRule::kWgtIdx: return c.wgt_idx_bits;
    case WidthRule::kIterCount: return std::max({c.inp_idx_bits, c.wgt_idx_bits, c.acc_idx_bits});
    case WidthRule::kDramIdx: return CeilLog2(c.dram_size_bytes / c.SmallestElementBytes());
  }
  TSR_UNREACHABLE("bad width rule {}", static_cast<int>(r));
}

// The config key a derived width comes from, for messages: for rules over
// several scratchpads, the one with the most entries.
std::string RuleKeys(const HwConfig& c, WidthRule r) {
  struct Pad {
    const char* key;
    int bits;
    bool in_sram, in_src, in_iter;
  };
  const Pad pads[] = {{"scratchpads.uop_bytes", c.uop_idx_bits, true, false, false},
                      {"scratchpads.acc_bytes", c.acc_idx_bits, true, true, true},
                      {"scratchpads.inp_bytes", c.inp_idx_bits, true, true, true},
                      {"scratchpads.wgt_bytes", c.wgt_idx_bits, true, false, true}};
  const Pad* best = nullptr;
  for (const Pad& p : pads) {
    const bool used = r == WidthRule::kSramIdx || r == WidthRule::kSramEnd ? p.in_sram
                      : r == WidthRule::kSrcIdx                            ? p.in_src
                      : r == WidthRule::kIterCount                         ? p.in_iter
                                                                           : false;
    if (used && (best == nullptr || p.bits > best->bits)) best = &p;
  }
  return best ? best->key : std::string(kWidthRules[static_cast<int>(r)].config_keys);
}

Status Validate(HwConfig& c, const std::string& source) {
  auto key_error = [&](const char* key, const std::string& what) {
    return InvalidArgumentError("{}: key '{}': {}", source, key, what);
  };
  for (const ParamInfo& p : kParams) {
    const double v = p.get(c);
    if (!(v >= p.lo && v <= p.hi) || (p.kind == ParamKind::kPow2 && !IsPow2(static_cast<int64_t>(v))) ||
        (p.kind != ParamKind::kReal && static_cast<int64_t>(v) % p.multiple_of != 0))
      return InvalidArgumentError("{}: key '{}': {} is not a valid value (see docs/config.md)", source, p.key,
                                  ParamValueText(p, c));
  }
  if (c.acc_bits < c.inp_bits)
    return key_error("datatypes.acc_bits",
                     fmt::format("must be at least datatypes.inp_bits ({}), got {}", c.inp_bits, c.acc_bits));
  c.out_bits = c.inp_bits;
  c.inp_tile_bytes = c.batch * c.block_in * c.inp_bits / 8;
  c.wgt_tile_bytes = c.block_out * c.block_in * c.wgt_bits / 8;
  c.acc_tile_bytes = c.batch * c.block_out * c.acc_bits / 8;
  c.out_tile_bytes = c.batch * c.block_out * c.out_bits / 8;
  struct Buf {
    const char* key;
    int64_t bytes;
    int tile;
    int64_t* entries;
    int* bits;
  } bufs[] = {
      {"scratchpads.inp_bytes", c.inp_bytes, c.inp_tile_bytes, &c.inp_entries, &c.inp_idx_bits},
      {"scratchpads.wgt_bytes", c.wgt_bytes, c.wgt_tile_bytes, &c.wgt_entries, &c.wgt_idx_bits},
      {"scratchpads.acc_bytes", c.acc_bytes, c.acc_tile_bytes, &c.acc_entries, &c.acc_idx_bits},
      {"scratchpads.uop_bytes", c.uop_bytes, kUopBytes, &c.uop_entries, &c.uop_idx_bits},
  };
  for (Buf& b : bufs) {
    if (b.bytes < b.tile)
      return key_error(b.key, fmt::format("{} bytes is too small for one tile of {} bytes "
                                          "(set by gemm.* and datatypes.*)",
                                          b.bytes, b.tile));
    *b.entries = b.bytes / b.tile;
    *b.bits = CeilLog2(static_cast<uint64_t>(*b.entries));
  }
  c.macs_per_cycle = int64_t{c.batch} * c.block_in * c.block_out;
  const int vec = c.batch * c.block_out;
  if (c.alu_lanes != 0 && vec % c.alu_lanes != 0)
    return key_error("alu.lanes", fmt::format("must divide the ALU's {} elements (gemm.batch x gemm.block_out), got {}",
                                              vec, c.alu_lanes));
  if (c.alu_mul_cycles > c.acc_bits)
    return key_error("alu.mul_cycles", fmt::format("must be at most datatypes.acc_bits ({}): the multiplier takes "
                                                   "acc_bits / k bits a cycle, got {}",
                                                   c.acc_bits, c.alu_mul_cycles));
  c.alu_lane_count = c.alu_lanes == 0 ? vec : c.alu_lanes;
  c.alu_passes = vec / c.alu_lane_count;
  if (c.fetch_buffer < kFetchBlockInsns && !IsPow2(c.fetch_buffer))
    return key_error("queues.fetch_buffer",
                     fmt::format("below {} must be a power of two (fetch blocks of min(8, F) must divide the 4 KiB "
                                 "page), got {}",
                                 kFetchBlockInsns, c.fetch_buffer));
  c.fetch_block = static_cast<int>(std::min<int64_t>(kFetchBlockInsns, c.fetch_buffer));
  TSR_ASSIGN_OR_RETURN(c.layout, ComputeIsaLayout(c, DefaultIsaTables(), source));
  c.isa_fingerprint = IsaFingerprint(c, DefaultIsaTables());
  return OkStatus();
}

}  // namespace

StatusOr<IsaLayout> ComputeIsaLayout(const HwConfig& c, const IsaTables& tables, const std::string& source) {
  IsaLayout layout;
  for (auto& f : layout.slots) f.fill(FieldSlot());
  for (int f = 0; f < kNumFormats; ++f) {
    Format fmt_id = static_cast<Format>(f);
    int pos = 0;
    std::string derived;
    for (const FieldInfo& fi : tables.fields) {
      if (!fi.InFormat(fmt_id)) continue;
      int w = c.FieldWidth(fi.width);
      layout.slots[f][static_cast<int>(fi.id)] = FieldSlot{pos, w};
      pos += w;
      if (fi.width.rule != WidthRule::kFixed)
        derived += fmt::format(" {} {} bits ({});", fi.name, w, RuleKeys(c, fi.width.rule));
    }
    layout.bits_used[f] = pos;
    if (pos > kInsnBits)
      return InvalidArgumentError(
          "{}: the {} instruction format needs {} bits, more than {}; the config-derived "
          "fields are:{} reduce those sizes",
          source, FormatName(fmt_id), pos, kInsnBits, derived);
  }
  int pos = 0;
  std::string derived;
  for (const UopFieldInfo& fi : tables.uop_fields) {
    int w = c.FieldWidth(fi.width);
    layout.uop_slots[static_cast<int>(fi.id)] = FieldSlot{pos, w};
    pos += w;
    derived += fmt::format(" {} {} bits ({});", fi.name, w, RuleKeys(c, fi.width.rule));
  }
  layout.uop_bits_used = pos;
  if (pos > kUopBits)
    return InvalidArgumentError("{}: the uop format needs {} bits, more than {}:{} reduce those scratchpad sizes",
                                source, pos, kUopBits, derived);
  return layout;
}

const ParamInfo* FindParam(std::string_view key) {
  for (const ParamInfo& p : kParams)
    if (p.key == key) return &p;
  return nullptr;
}

std::string ParamValueText(const ParamInfo& p, const HwConfig& cfg) {
  const double v = p.get(cfg);
  if (p.kind == ParamKind::kReal) return fmt::format("{}", v);
  return std::to_string(static_cast<int64_t>(v));
}

Status ValidateHwConfig(HwConfig& cfg, const std::string& source) { return Validate(cfg, source); }

int HwConfig::ElementBytes(MemType m) const {
  switch (m) {
    case MemType::kUop: return kUopBytes;
    case MemType::kWgt: return wgt_tile_bytes;
    case MemType::kInp: return inp_tile_bytes;
    case MemType::kAcc: return acc_tile_bytes;
    case MemType::kOut:
    case MemType::kAcc8: return out_tile_bytes;
  }
  TSR_UNREACHABLE("bad memory type {}", static_cast<int>(m));
}

int HwConfig::SmallestElementBytes() const {
  int smallest = ElementBytes(kMemTypes[0].mem);
  for (const MemInfo& m : kMemTypes) smallest = std::min(smallest, ElementBytes(m.mem));
  return smallest;
}

int64_t HwConfig::Entries(MemType m) const {
  switch (m) {
    case MemType::kUop: return uop_entries;
    case MemType::kWgt: return wgt_entries;
    case MemType::kInp: return inp_entries;
    case MemType::kAcc:
    case MemType::kOut:
    case MemType::kAcc8: return acc_entries;
  }
  TSR_UNREACHABLE("bad memory type {}", static_cast<int>(m));
}

int HwConfig::FieldWidth(Width w) const {
  const int bits = WidthOfRule(*this, w.rule, w.fixed);
  return w.cap > 0 ? std::min(bits, w.cap) : bits;
}

StatusOr<HwConfig> ParseHwConfig(const std::string& json_text, const std::string& source) {
  // nlohmann reports syntax errors by exception; it is caught here and never
  // crosses the library boundary.
  Json root;
  try {
    root = Json::parse(json_text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    return InvalidArgumentError("{}: not valid JSON at byte {}: {}", source, e.byte, e.what());
  } catch (const Json::exception& e) {  // e.g. out_of_range: a number that overflows a double (1e999)
    return InvalidArgumentError("{}: not valid JSON: {}", source, e.what());
  }
  if (!root.is_object()) return InvalidArgumentError("{}: the config must be a JSON object", source);
  HwConfig c;
  for (const char* key : {"name", "description"}) {
    auto it = root.find(key);
    if (it == root.end()) {
      if (std::string_view(key) == "name") return InvalidArgumentError("{}: key 'name': missing", source);
      continue;
    }
    if (!it->is_string())
      return InvalidArgumentError("{}: key '{}': must be a string, got {}", source, key, it->dump());
    (std::string_view(key) == "name" ? c.name : c.description) = it->get<std::string>();
  }
  for (const ParamInfo& p : kParams) TSR_RETURN_IF_ERROR(ReadParam(root, p, source, c));
  TSR_RETURN_IF_ERROR(CheckUnknownKeys(root, "", source));
  TSR_RETURN_IF_ERROR(Validate(c, source));
  return c;
}

StatusOr<HwConfig> LoadHwConfig(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseHwConfig(text, path);
}

std::string HwConfigToJson(const HwConfig& c) {
  Json j = Json::object();
  j["name"] = c.name;
  if (!c.description.empty()) j["description"] = c.description;
  for (const ParamInfo& p : kParams) {
    std::string path = "/" + std::string(p.key);
    std::replace(path.begin(), path.end(), '.', '/');
    const double v = p.get(c);
    if (p.kind == ParamKind::kReal)
      j[Json::json_pointer(path)] = v;
    else
      j[Json::json_pointer(path)] = static_cast<int64_t>(v);
  }
  return j.dump(2) + "\n";
}

std::string DescribeHwConfig(const HwConfig& c) {
  std::string s;
  auto line = [&](auto&&... args) { s += fmt::format(std::forward<decltype(args)>(args)...) + "\n"; };
  line("config {}{}{}", c.name, c.description.empty() ? "" : " — ", c.description);
  line("  isa fingerprint     0x{:016x}", c.isa_fingerprint);
  line("  parameters (docs/config.md; * = enters the fingerprint)");
  for (const ParamInfo& p : kParams)
    line("    {:<28} {:>12} {:<13}{}", p.key, ParamValueText(p, c), p.unit,
         p.effect == ParamEffect::kBehaviour ? "*" : "");
  line("  gemm core           {} x {} x {}  ({} MACs/cycle, {:.1f} GOPS peak)", c.batch, c.block_in, c.block_out,
       c.macs_per_cycle, 2.0 * c.macs_per_cycle * c.clock_mhz / 1000.0);
  line("  alu                 {} lanes over {} elements ({} passes per iteration)", c.alu_lane_count,
       c.batch * c.block_out, c.alu_passes);
  line("  datatypes           inp int{}, wgt int{}, acc int{}, out int{}", c.inp_bits, c.wgt_bits, c.acc_bits,
       c.out_bits);
  line("  scratchpad   bytes      tile bytes  entries  index bits");
  line("    inp        {:>9}  {:>10}  {:>7}  {:>10}", c.inp_bytes, c.inp_tile_bytes, c.inp_entries, c.inp_idx_bits);
  line("    wgt        {:>9}  {:>10}  {:>7}  {:>10}", c.wgt_bytes, c.wgt_tile_bytes, c.wgt_entries, c.wgt_idx_bits);
  line("    acc        {:>9}  {:>10}  {:>7}  {:>10}", c.acc_bytes, c.acc_tile_bytes, c.acc_entries, c.acc_idx_bits);
  line("    out        {:>9}  {:>10}  {:>7}  {:>10}", c.acc_entries * c.out_tile_bytes, c.out_tile_bytes, c.acc_entries,
       c.acc_idx_bits);
  line("    uop        {:>9}  {:>10}  {:>7}  {:>10}", c.uop_bytes, kUopBytes, c.uop_entries, c.uop_idx_bits);
  for (int f = 0; f < kNumFormats; ++f) {
    Format fid = static_cast<Format>(f);
    line("  {} format ({} of {} bits, {} spare):", FormatName(fid), c.layout.bits_used[f], kInsnBits,
         kInsnBits - c.layout.bits_used[f]);
    for (const FieldInfo& fi : kFields) {
      const FieldSlot& sl = c.layout.slot(fid, fi.id);
      if (sl.present()) line("    [{:>3}:{:>3}] {:<10} {:>2} bits", sl.lsb + sl.width - 1, sl.lsb, fi.name, sl.width);
    }
  }
  line("  uop format ({} of {} bits, {} spare):", c.layout.uop_bits_used, kUopBits, kUopBits - c.layout.uop_bits_used);
  for (const UopFieldInfo& fi : kUopFields) {
    const FieldSlot& sl = c.layout.uop_slot(fi.id);
    line("    [{:>3}:{:>3}] {:<10} {:>2} bits", sl.lsb + sl.width - 1, sl.lsb, fi.name, sl.width);
  }
  return s;
}

std::string GenerateConfigDoc(const HwConfig& c) {
  std::string s = fmt::format(R"(# Hardware config parameters

<!-- Generated by `tessera config doc -c configs/{0}.json -o docs/config.md` from
isa/config.def. Do not edit by hand: a test fails when this file differs from
the generator's output. -->

A config is one JSON file (`configs/*.json`): a `name`, an optional
`description`, and the parameters below, grouped by the part of their key
before the dot (`{{"gemm": {{"batch": 1, ...}}, ...}}`). Every parameter is
required; an unknown key is an error. `tessera config validate` checks a
file and `tessera config show` prints its derived sizes and the instruction
layout. The table comes from `isa/config.def`, as do the parsing, the JSON
writer, `config show`, the ISA fingerprint, the Verilog header
(`TSR_CFG_*`) and the SystemC model's parameters.

**Fingerprint**: a parameter marked *behaviour* changes what programs do or
whether they can run (encoding, semantics, queue capacities), so it enters
the ISA fingerprint and programs, compiled models and hardware built for one
value refuse another. *Timing* parameters change only how long things take.

| key | value range | unit | fingerprint | `{0}` | meaning |
|---|---|---|---|---|---|
)",
                              c.name);
  for (const ParamInfo& p : kParams) {
    std::string range = p.kind == ParamKind::kReal
                            ? fmt::format("{} .. {}", p.lo, p.hi)
                            : fmt::format("{} .. {}", static_cast<int64_t>(p.lo), static_cast<int64_t>(p.hi));
    if (p.kind == ParamKind::kPow2) range += ", power of two";
    if (p.multiple_of > 1) range += fmt::format(", multiple of {}", p.multiple_of);
    s += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", p.key, range, p.unit,
                     p.effect == ParamEffect::kBehaviour ? "behaviour" : "timing", ParamValueText(p, c), p.summary);
  }
  s += R"(
Cross-parameter rules: `datatypes.acc_bits >= datatypes.inp_bits`;
`alu.lanes` divides `gemm.batch` x `gemm.block_out`;
`alu.mul_cycles <= datatypes.acc_bits`; `queues.fetch_buffer` below 8 is a
power of two; every scratchpad holds
at least one tile; every instruction format must fit in
128 bits and the uop in 32 (the error names the config-derived fields).
)";
  return s;
}

}  // namespace tessera
