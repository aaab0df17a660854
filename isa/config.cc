#include "isa/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "isa/base/file.h"

namespace tessera {
namespace {

using Json = nlohmann::json;

bool IsPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int Log2(int64_t v) {
  int b = 0;
  while ((int64_t{1} << b) < v) ++b;
  return b;
}

// Reads one JSON object, remembering which keys were consumed so that any
// key left over is reported as unknown. All messages name "source: key 'a.b'".
class ObjectReader {
 public:
  ObjectReader(const Json& obj, std::string prefix, const std::string& source)
      : obj_(obj), prefix_(std::move(prefix)), source_(source) {}

  std::string Path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  Status Error(const std::string& key, const std::string& what) const {
    return InvalidArgumentError("{}: key '{}': {}", source_, Path(key), what);
  }

  StatusOr<const Json*> Get(const std::string& key, bool required) {
    seen_.insert(key);
    auto it = obj_.find(key);
    if (it == obj_.end()) {
      if (required) return Error(key, "missing");
      return static_cast<const Json*>(nullptr);
    }
    return &*it;
  }

  Status Int(const std::string& key, int64_t lo, int64_t hi, int64_t* out) {
    TSR_ASSIGN_OR_RETURN(const Json* v, Get(key, true));
    if (!v->is_number_integer()) return Error(key, "must be an integer, got " + v->dump());
    if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      return Error(key, fmt::format("must be in [{}, {}], got {}", lo, hi, v->get<uint64_t>()));
    int64_t x = v->get<int64_t>();
    if (x < lo || x > hi) return Error(key, fmt::format("must be in [{}, {}], got {}", lo, hi, x));
    *out = x;
    return OkStatus();
  }
  template <typename T>
  Status IntAs(const std::string& key, int64_t lo, int64_t hi, T* out) {
    int64_t x = 0;
    TSR_RETURN_IF_ERROR(Int(key, lo, hi, &x));
    *out = static_cast<T>(x);
    return OkStatus();
  }
  Status Pow2(const std::string& key, int64_t lo, int64_t hi, int64_t* out) {
    TSR_RETURN_IF_ERROR(Int(key, lo, hi, out));
    if (!IsPow2(*out)) return Error(key, fmt::format("must be a power of two, got {}", *out));
    return OkStatus();
  }
  Status OneOf(const std::string& key, std::initializer_list<int> allowed, int* out) {
    int64_t x = 0;
    TSR_RETURN_IF_ERROR(Int(key, 0, 1 << 20, &x));
    for (int a : allowed)
      if (a == x) {
        *out = a;
        return OkStatus();
      }
    std::string list;
    for (int a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
    return Error(key, fmt::format("must be one of {{{}}}, got {}", list, x));
  }
  Status Number(const std::string& key, double lo, double hi, double* out) {
    TSR_ASSIGN_OR_RETURN(const Json* v, Get(key, true));
    if (!v->is_number()) return Error(key, "must be a number, got " + v->dump());
    double x = v->get<double>();
    if (!(x >= lo && x <= hi)) return Error(key, fmt::format("must be in [{}, {}], got {}", lo, hi, x));
    *out = x;
    return OkStatus();
  }
  Status String(const std::string& key, bool required, std::string* out) {
    TSR_ASSIGN_OR_RETURN(const Json* v, Get(key, required));
    if (v == nullptr) return OkStatus();
    if (!v->is_string()) return Error(key, "must be a string, got " + v->dump());
    *out = v->get<std::string>();
    return OkStatus();
  }
  StatusOr<ObjectReader> Object(const std::string& key) {
    TSR_ASSIGN_OR_RETURN(const Json* v, Get(key, true));
    if (!v->is_object()) return Error(key, "must be an object, got " + v->dump());
    return ObjectReader(*v, Path(key), source_);
  }
  Status Finish() const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!seen_.count(it.key())) return Error(it.key(), "unknown key");
    return OkStatus();
  }

 private:
  const Json& obj_;
  std::string prefix_;
  const std::string& source_;
  std::set<std::string> seen_;
};

// The config key a derived width comes from, for error messages.
const char* RuleSource(const HwConfig& c, WidthRule r) {
  switch (r) {
    case WidthRule::kFixed: return "fixed";
    case WidthRule::kSramIdx: {
      int m = c.FieldWidth(Width{WidthRule::kSramIdx, 0});
      if (m == c.uop_idx_bits) return "scratchpads.uop_bytes";
      if (m == c.acc_idx_bits) return "scratchpads.acc_bytes";
      if (m == c.inp_idx_bits) return "scratchpads.inp_bytes";
      return "scratchpads.wgt_bytes";
    }
    case WidthRule::kUopIdx:
    case WidthRule::kUopEnd: return "scratchpads.uop_bytes";
    case WidthRule::kAccIdx: return "scratchpads.acc_bytes";
    case WidthRule::kSrcIdx:
      return c.acc_idx_bits >= c.inp_idx_bits ? "scratchpads.acc_bytes" : "scratchpads.inp_bytes";
    case WidthRule::kWgtIdx: return "scratchpads.wgt_bytes";
  }
  return "?";
}

Status ComputeLayout(HwConfig& c, const std::string& source) {
  for (int f = 0; f < kNumFormats; ++f) {
    Format fmt_id = static_cast<Format>(f);
    int pos = 0;
    std::string derived;
    for (const FieldInfo& fi : kFields) {
      if (!fi.InFormat(fmt_id)) continue;
      int w = c.FieldWidth(fi.width);
      c.layout.slots[f][static_cast<int>(fi.id)] = FieldSlot{pos, w};
      pos += w;
      if (fi.width.rule != WidthRule::kFixed)
        derived += fmt::format(" {} {} bits ({});", fi.name, w, RuleSource(c, fi.width.rule));
    }
    c.layout.bits_used[f] = pos;
    if (pos > kInsnBits)
      return InvalidArgumentError(
          "{}: the {} instruction format needs {} bits, more than {}; the config-derived "
          "fields are:{} reduce those scratchpad sizes",
          source, FormatName(fmt_id), pos, kInsnBits, derived);
  }
  int pos = 0;
  std::string derived;
  for (const UopFieldInfo& fi : kUopFields) {
    int w = c.FieldWidth(fi.width);
    c.layout.uop_slots[static_cast<int>(fi.id)] = FieldSlot{pos, w};
    pos += w;
    derived += fmt::format(" {} {} bits ({});", fi.name, w, RuleSource(c, fi.width.rule));
  }
  c.layout.uop_bits_used = pos;
  if (pos > kUopBits)
    return InvalidArgumentError("{}: the uop format needs {} bits, more than {}:{} reduce those scratchpad sizes",
                                source, pos, kUopBits, derived);
  return OkStatus();
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

Status Validate(HwConfig& c, const std::string& source) {
  auto key_error = [&](const char* key, const std::string& what) {
    return InvalidArgumentError("{}: key '{}': {}", source, key, what);
  };
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
    *b.bits = Log2(*b.entries);
  }
  c.macs_per_cycle = int64_t{c.batch} * c.block_in * c.block_out;
  if (c.dram_size_bytes % 4096 != 0)
    return key_error("dram.size_bytes", fmt::format("must be a multiple of 4096, got {}", c.dram_size_bytes));
  TSR_RETURN_IF_ERROR(ComputeLayout(c, source));
  c.isa_fingerprint =
      Fnv1a(fmt::format("tessera-isa-v1;batch={};block_in={};block_out={};inp={};wgt={};acc={};inp_bytes={};"
                        "wgt_bytes={};acc_bytes={};uop_bytes={}",
                        c.batch, c.block_in, c.block_out, c.inp_bits, c.wgt_bits, c.acc_bits, c.inp_bytes, c.wgt_bytes,
                        c.acc_bytes, c.uop_bytes));
  return OkStatus();
}

Status ParseInto(const Json& root, const std::string& source, HwConfig& c) {
  if (!root.is_object()) return InvalidArgumentError("{}: the config must be a JSON object", source);
  ObjectReader top(root, "", source);
  TSR_RETURN_IF_ERROR(top.String("name", true, &c.name));
  TSR_RETURN_IF_ERROR(top.String("description", false, &c.description));
  TSR_RETURN_IF_ERROR(top.Number("clock_mhz", 0.001, 100000, &c.clock_mhz));

  TSR_ASSIGN_OR_RETURN(ObjectReader gemm, top.Object("gemm"));
  int64_t v = 0;
  TSR_RETURN_IF_ERROR(gemm.Pow2("batch", 1, 64, &v));
  c.batch = static_cast<int>(v);
  TSR_RETURN_IF_ERROR(gemm.Pow2("block_in", 1, 256, &v));
  c.block_in = static_cast<int>(v);
  TSR_RETURN_IF_ERROR(gemm.Pow2("block_out", 1, 256, &v));
  c.block_out = static_cast<int>(v);
  TSR_RETURN_IF_ERROR(gemm.Finish());

  TSR_ASSIGN_OR_RETURN(ObjectReader types, top.Object("datatypes"));
  TSR_RETURN_IF_ERROR(types.OneOf("inp_bits", {8, 16}, &c.inp_bits));
  TSR_RETURN_IF_ERROR(types.OneOf("wgt_bits", {8, 16}, &c.wgt_bits));
  TSR_RETURN_IF_ERROR(types.OneOf("acc_bits", {16, 32}, &c.acc_bits));
  TSR_RETURN_IF_ERROR(types.Finish());

  TSR_ASSIGN_OR_RETURN(ObjectReader sp, top.Object("scratchpads"));
  TSR_RETURN_IF_ERROR(sp.Pow2("inp_bytes", 1, int64_t{1} << 30, &c.inp_bytes));
  TSR_RETURN_IF_ERROR(sp.Pow2("wgt_bytes", 1, int64_t{1} << 30, &c.wgt_bytes));
  TSR_RETURN_IF_ERROR(sp.Pow2("acc_bytes", 1, int64_t{1} << 30, &c.acc_bytes));
  TSR_RETURN_IF_ERROR(sp.Pow2("uop_bytes", 1, int64_t{1} << 30, &c.uop_bytes));
  TSR_RETURN_IF_ERROR(sp.Finish());

  TSR_ASSIGN_OR_RETURN(ObjectReader dram, top.Object("dram"));
  TSR_RETURN_IF_ERROR(dram.IntAs("size_bytes", 1 << 20, int64_t{1} << 36, &c.dram_size_bytes));
  TSR_RETURN_IF_ERROR(dram.IntAs("latency_cycles", 1, 100000, &c.dram_latency_cycles));
  TSR_RETURN_IF_ERROR(dram.IntAs("max_outstanding", 1, 256, &c.dram_max_outstanding));
  TSR_RETURN_IF_ERROR(dram.Pow2("bytes_per_cycle", 1, 256, &v));
  c.dram_bytes_per_cycle = static_cast<int>(v);
  TSR_RETURN_IF_ERROR(dram.Finish());

  TSR_ASSIGN_OR_RETURN(ObjectReader q, top.Object("queues"));
  TSR_RETURN_IF_ERROR(q.IntAs("command_depth", 1, 65536, &c.command_queue_depth));
  // Fetch requests blocks of kFetchBlockInsns: a smaller buffer never fits one (docs/microarch.md, "Fetch").
  TSR_RETURN_IF_ERROR(q.IntAs("fetch_buffer", kFetchBlockInsns, 65536, &c.fetch_buffer));
  TSR_RETURN_IF_ERROR(q.IntAs("token_depth", 1, 65536, &c.token_queue_depth));
  TSR_RETURN_IF_ERROR(q.Finish());

  TSR_ASSIGN_OR_RETURN(ObjectReader t, top.Object("timing"));
  TSR_RETURN_IF_ERROR(t.IntAs("dma_setup_cycles", 0, 1000, &c.dma_setup_cycles));
  TSR_RETURN_IF_ERROR(t.IntAs("gemm_pipeline_depth", 1, 64, &c.gemm_pipeline_depth));
  TSR_RETURN_IF_ERROR(t.IntAs("alu_pipeline_depth", 1, 64, &c.alu_pipeline_depth));
  TSR_RETURN_IF_ERROR(t.Finish());
  TSR_RETURN_IF_ERROR(top.Finish());
  return Validate(c, source);
}

}  // namespace

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
  switch (w.rule) {
    case WidthRule::kFixed: return w.fixed;
    case WidthRule::kSramIdx: return std::max({inp_idx_bits, wgt_idx_bits, acc_idx_bits, uop_idx_bits});
    case WidthRule::kUopIdx: return uop_idx_bits;
    case WidthRule::kUopEnd: return uop_idx_bits + 1;
    case WidthRule::kAccIdx: return acc_idx_bits;
    case WidthRule::kSrcIdx: return std::max(inp_idx_bits, acc_idx_bits);
    case WidthRule::kWgtIdx: return wgt_idx_bits;
  }
  TSR_UNREACHABLE("bad width rule");
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
  HwConfig c;
  TSR_RETURN_IF_ERROR(ParseInto(root, source, c));
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
  j["clock_mhz"] = c.clock_mhz;
  j["gemm"] = {{"batch", c.batch}, {"block_in", c.block_in}, {"block_out", c.block_out}};
  j["datatypes"] = {{"inp_bits", c.inp_bits}, {"wgt_bits", c.wgt_bits}, {"acc_bits", c.acc_bits}};
  j["scratchpads"] = {
      {"inp_bytes", c.inp_bytes}, {"wgt_bytes", c.wgt_bytes}, {"acc_bytes", c.acc_bytes}, {"uop_bytes", c.uop_bytes}};
  j["dram"] = {{"size_bytes", c.dram_size_bytes},
               {"latency_cycles", c.dram_latency_cycles},
               {"max_outstanding", c.dram_max_outstanding},
               {"bytes_per_cycle", c.dram_bytes_per_cycle}};
  j["queues"] = {
      {"command_depth", c.command_queue_depth}, {"fetch_buffer", c.fetch_buffer}, {"token_depth", c.token_queue_depth}};
  j["timing"] = {{"dma_setup_cycles", c.dma_setup_cycles},
                 {"gemm_pipeline_depth", c.gemm_pipeline_depth},
                 {"alu_pipeline_depth", c.alu_pipeline_depth}};
  return j.dump(2) + "\n";
}

std::string DescribeHwConfig(const HwConfig& c) {
  std::string s;
  auto line = [&](auto&&... args) { s += fmt::format(std::forward<decltype(args)>(args)...) + "\n"; };
  line("config {}{}{}", c.name, c.description.empty() ? "" : " — ", c.description);
  line("  isa fingerprint     0x{:016x}", c.isa_fingerprint);
  line("  clock               {} MHz", c.clock_mhz);
  line("  gemm core           {} x {} x {}  ({} MACs/cycle, {:.1f} GOPS peak)", c.batch, c.block_in, c.block_out,
       c.macs_per_cycle, 2.0 * c.macs_per_cycle * c.clock_mhz / 1000.0);
  line("  datatypes           inp int{}, wgt int{}, acc int{}, out int{}", c.inp_bits, c.wgt_bits, c.acc_bits,
       c.out_bits);
  line("  scratchpad   bytes      tile bytes  entries  index bits");
  line("    inp        {:>9}  {:>10}  {:>7}  {:>10}", c.inp_bytes, c.inp_tile_bytes, c.inp_entries, c.inp_idx_bits);
  line("    wgt        {:>9}  {:>10}  {:>7}  {:>10}", c.wgt_bytes, c.wgt_tile_bytes, c.wgt_entries, c.wgt_idx_bits);
  line("    acc        {:>9}  {:>10}  {:>7}  {:>10}", c.acc_bytes, c.acc_tile_bytes, c.acc_entries, c.acc_idx_bits);
  line("    out        {:>9}  {:>10}  {:>7}  {:>10}", c.acc_entries * c.out_tile_bytes, c.out_tile_bytes, c.acc_entries,
       c.acc_idx_bits);
  line("    uop        {:>9}  {:>10}  {:>7}  {:>10}", c.uop_bytes, kUopBytes, c.uop_entries, c.uop_idx_bits);
  line("  dram                {} bytes, latency {} cycles, {} bytes/cycle, {} bursts in flight", c.dram_size_bytes,
       c.dram_latency_cycles, c.dram_bytes_per_cycle, c.dram_max_outstanding);
  line("  queues              command depth {}, fetch buffer {}, token depth {}", c.command_queue_depth, c.fetch_buffer,
       c.token_queue_depth);
  line("  timing              dma setup {} cycles, gemm pipeline {}, alu pipeline {}", c.dma_setup_cycles,
       c.gemm_pipeline_depth, c.alu_pipeline_depth);
  for (int f = 0; f < kNumFormats; ++f) {
    Format fid = static_cast<Format>(f);
    line("  {} format ({} of {} bits):", FormatName(fid), c.layout.bits_used[f], kInsnBits);
    for (const FieldInfo& fi : kFields) {
      const FieldSlot& sl = c.layout.slot(fid, fi.id);
      if (sl.present()) line("    [{:>3}:{:>3}] {:<10} {:>2} bits", sl.lsb + sl.width - 1, sl.lsb, fi.name, sl.width);
    }
  }
  line("  uop format ({} of {} bits):", c.layout.uop_bits_used, kUopBits);
  for (const UopFieldInfo& fi : kUopFields) {
    const FieldSlot& sl = c.layout.uop_slot(fi.id);
    line("    [{:>3}:{:>3}] {:<10} {:>2} bits", sl.lsb + sl.width - 1, sl.lsb, fi.name, sl.width);
  }
  return s;
}

}  // namespace tessera
