// `tessera exec PROG.s|PROG.bin -c CONFIG --target T [--dram-in F]
//  [--dram-out F] [--stats-json F] [--trace F] [--insn-log F]`: runs a raw
// program on a device like any other client: the program image is written to
// device DRAM, the stream runs through Device::Run, the statistics are the
// device's counters, and results are read back with Device::Read (the
// program's .expect segments are checked).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/base/file.h"
#include "isa/base/memory_image.h"
#include "sim/trace.h"
#include "tools/tessera/backend_flags.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"

namespace tessera::cli {
namespace {

struct ExecOpts {
  std::string program, config, target = "ref", dram_in, dram_out, stats_json, trace, insn_log;
  int64_t max_cycles = 0;
  std::vector<std::string> dump;
  BackendOptionValues backend;
};

// The instruction log: each instruction's module, start and end cycle, in completion order.
class InsnLog final : public TraceSink {
 public:
  InsnLog(const HwConfig& cfg, const Program& prog) : cfg_(cfg), prog_(prog) {}
  void Span(int track, const std::string&, int64_t start, int64_t end, int64_t index) override {
    if (track < 1 || track > kNumModules || index < 0 || index >= static_cast<int64_t>(prog_.insns.size())) return;
    text_ += fmt::format("{},{},{},{},{}\n", index, ModuleName(static_cast<Module>(track - 1)), start, end,
                         FormatInstruction(cfg_, prog_.insns[static_cast<size_t>(index)]));
  }
  void Counter(const std::string&, int64_t, int64_t) override {}
  const std::string& text() const { return text_; }

 private:
  const HwConfig& cfg_;
  const Program& prog_;
  std::string text_ = "index,module,start,end,instruction\n";
};

// Forwards to every sink given.
class TeeTrace final : public TraceSink {
 public:
  void Add(TraceSink* s) { sinks_.push_back(s); }
  bool empty() const { return sinks_.empty(); }
  void Span(int track, const std::string& name, int64_t start, int64_t end, int64_t index) override {
    for (TraceSink* s : sinks_) s->Span(track, name, start, end, index);
  }
  void Counter(const std::string& name, int64_t cycle, int64_t value) override {
    for (TraceSink* s : sinks_) s->Counter(name, cycle, value);
  }

 private:
  std::vector<TraceSink*> sinks_;
};

MemoryReader ReaderOf(Device& dev) {
  return [&dev](uint64_t addr, void* dst, uint64_t n) { return dev.Read(addr, dst, n); };
}

// Prints the device memory now at a named segment of the program, as its type.
Status DumpSegment(const Program& prog, Device& dev, const std::string& name) {
  for (const Segment& s : prog.segments) {
    if (s.name != name) continue;
    Segment now = s;
    TSR_RETURN_IF_ERROR(dev.Read(s.addr, now.bytes.data(), now.bytes.size()));
    std::printf("%s @ 0x%llx (%zu x %s):\n", name.c_str(), static_cast<unsigned long long>(s.addr), s.count(),
                ElemTypeName(s.type));
    for (size_t i = 0; i < now.count(); ++i)
      std::printf("%s%5lld%s", i % 16 == 0 ? "  " : "", static_cast<long long>(now.Element(i)),
                  i % 16 == 15 || i + 1 == now.count() ? "\n" : " ");
    return OkStatus();
  }
  return NotFoundError("--dump {}: the program has no segment of that name", name);
}

// The device's DRAM as an image: the ranges that can hold data, all-zero 64 KiB blocks left out.
Status SaveDeviceImage(Device& dev, const std::string& path) {
  constexpr uint64_t kBlock = uint64_t{1} << 16;
  std::vector<MemorySegment> image;
  std::vector<uint8_t> block;
  for (const auto& [base, bytes] : dev.PopulatedRanges()) {
    for (uint64_t off = 0; off < bytes; off += kBlock) {
      const uint64_t n = std::min(kBlock, bytes - off);
      block.resize(n);
      TSR_RETURN_IF_ERROR(dev.Read(base + off, block.data(), n));
      bool zero = true;
      for (uint8_t b : block) zero = zero && b == 0;
      if (zero) continue;
      if (!image.empty() && image.back().addr + image.back().bytes.size() == base + off)
        image.back().bytes.insert(image.back().bytes.end(), block.begin(), block.end());
      else
        image.push_back(MemorySegment{base + off, block});
    }
  }
  return SaveMemoryImage(path, image);
}

// The --stats-json object: the counters of the run, named as docs/formats.md lists them.
nlohmann::json StatsJson(const Device& dev, const DeviceCounters& c) {
  nlohmann::json j = nlohmann::json::object();
  j["target"] = dev.target();
  j["config"] = dev.config().name;
  CountersToJson(c, dev.config(), dev.has_timing(), &j);
  return j;
}

// "1024 MACs", or "MACs not built (counters.volumes 0)" when the device has no such counter.
std::string Shown(const HwConfig& cfg, regs::Counter k, const std::string& text, const char* what) {
  const std::string why = CounterNotBuiltReason(cfg, k);
  return why.empty() ? text : fmt::format("{} not built ({})", what, why);
}

void PrintSummary(const Device& dev, const DeviceCounters& c) {
  const HwConfig& cfg = dev.config();
  using regs::Counter;
  const std::string macs = Shown(cfg, Counter::macs, fmt::format("{} MACs", c.macs), "MACs");
  const std::string dram =
      Shown(cfg, Counter::load_bytes_by_mem,
            fmt::format("DRAM read {} B, written {} B", c.dram_read_bytes(), c.dram_write_bytes), "DRAM bytes");
  if (!dev.has_timing()) {
    std::printf("%s: %lld instructions, %s, %s\n", dev.target().c_str(), static_cast<long long>(c.insns()),
                macs.c_str(), dram.c_str());
    return;
  }
  const std::string util = Shown(
      cfg, Counter::macs, fmt::format("GEMM utilization {:.1f}%", 100.0 * c.GemmUtilization(cfg)), "GEMM utilization");
  std::printf("%s: %lld cycles (%.3f ms at %g MHz), %lld instructions, %s, %s, %s\n", dev.target().c_str(),
              static_cast<long long>(c.cycles), c.cycles / cfg.clock_mhz / 1000.0, cfg.clock_mhz,
              static_cast<long long>(c.insns()), macs.c_str(), util.c_str(), dram.c_str());
  if (!CounterBuilt(cfg, Counter::stalls)) {
    std::printf("  unit cycle categories not built (%s)\n", CounterNotBuiltReason(cfg, Counter::stalls).c_str());
    return;
  }
  std::printf("  %-8s", "unit");
  for (std::string_view k : regs::kStallNames) std::printf(" %11.*s", static_cast<int>(k.size()), k.data());
  std::printf(" %11s\n", "idle");
  for (int u = 0; u < regs::kNumUnits; ++u) {
    const auto unit = static_cast<regs::Unit>(u);
    std::printf("  %-8s", regs::kUnitNames[u].data());
    for (int k = 0; k < regs::kNumStalls; ++k) std::printf(" %11lld", static_cast<long long>(c.unit(unit).at(k)));
    std::printf(" %11lld\n", static_cast<long long>(c.idle(unit)));
  }
}

Status RunExec(const ExecOpts& o, bool* expectations_failed) {
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(o.config));
  TSR_ASSIGN_OR_RETURN(Program prog, LoadProgramFile(cfg, o.program));
  TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindDeviceBackend(o.target));
  const bool timed_outputs = !o.trace.empty() || !o.insn_log.empty() || o.max_cycles > 0;
  if (timed_outputs && !backend->has_timing)
    return InvalidArgumentError("--trace, --insn-log and --max-cycles need a target with timing; '{}' has none",
                                o.target);
  ChromeTrace chrome(cfg.clock_mhz);
  InsnLog log(cfg, prog);
  TeeTrace tee;
  if (!o.trace.empty()) tee.Add(&chrome);
  if (!o.insn_log.empty()) tee.Add(&log);
  DeviceOptions dopts;
  dopts.backend = o.backend;
  if (!tee.empty()) dopts.trace = &tee;
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(o.target, cfg, dopts));

  // The program addresses device DRAM directly: its image goes where it says.
  TSR_RETURN_IF_ERROR(PlaceProgram(cfg, prog, [&dev](uint64_t addr, const void* src, uint64_t n) {
                        return dev->Write(addr, src, n);
                      }).WithContext(o.program));
  if (!o.dram_in.empty()) {
    TSR_ASSIGN_OR_RETURN(std::vector<MemorySegment> image, LoadMemoryImage(o.dram_in));
    for (size_t i = 0; i < image.size(); ++i)
      TSR_RETURN_IF_ERROR(dev->Write(image[i].addr, image[i].bytes.data(), image[i].bytes.size())
                              .WithContext(fmt::format("{}: segment {}", o.dram_in, i)));
  }
  TSR_RETURN_IF_ERROR(dev->StartWithWatchdog(prog.text_addr, static_cast<int64_t>(prog.insns.size()),
                                             static_cast<uint64_t>(o.max_cycles)));
  TSR_RETURN_IF_ERROR(dev->Wait().WithContext(o.program));
  const DeviceCounters c = dev->ReadCounters();
  PrintSummary(*dev, c);
  if (!o.trace.empty()) TSR_RETURN_IF_ERROR(chrome.Write(o.trace));
  if (!o.insn_log.empty()) TSR_RETURN_IF_ERROR(WriteFile(o.insn_log, log.text()));
  if (!o.stats_json.empty()) TSR_RETURN_IF_ERROR(WriteFile(o.stats_json, StatsJson(*dev, c).dump(2) + "\n"));
  if (!dev->computes_data()) return OkStatus();  // no data: expectations, dumps and images are not meaningful

  int checked = 0;
  Status expect = CheckExpectations(prog, ReaderOf(*dev), &checked);
  if (!expect.ok()) {
    std::printf("FAIL: %s\n", expect.message().c_str());
    *expectations_failed = true;
  } else if (checked > 0) {
    std::printf("PASS: %d expectation segment(s) match\n", checked);
  }
  for (const std::string& name : o.dump) TSR_RETURN_IF_ERROR(DumpSegment(prog, *dev, name));
  if (!o.dram_out.empty()) TSR_RETURN_IF_ERROR(SaveDeviceImage(*dev, o.dram_out));
  return OkStatus();
}

}  // namespace

void AddExecCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ExecOpts>();
  CLI::App* cmd = app.add_subcommand("exec", "Run a raw program (text or object) on a device target");
  cmd->add_option("program", o->program, "Program (.s source or .bin object)")->required();
  cmd->add_option("-c,--config", o->config, "Hardware config JSON")->required();
  cmd->add_option("--target", o->target, "Device target: " + TargetHelp(true))->capture_default_str();
  cmd->add_option("--trace", o->trace, "Targets with timing: write a Chrome Trace Event JSON file (open in Perfetto)");
  cmd->add_option("--insn-log", o->insn_log,
                  "Targets with timing: write each instruction's start and end cycle as CSV");
  cmd->add_option("--max-cycles", o->max_cycles, "Targets with timing: the device watchdog in cycles (default: none)")
      ->check(AtLeast(1));
  cmd->add_option("--dram-in", o->dram_in, "DRAM image loaded over the program's data before the run");
  cmd->add_option("--dram-out", o->dram_out, "Write the DRAM image after the run");
  cmd->add_option("--stats-json", o->stats_json, "Write the run's counters as JSON");
  cmd->add_option("--dump", o->dump, "Print a named data/expect segment's DRAM contents after the run");
  AddBackendFlags(cmd, &o->backend);
  cmd->callback([o, &exit_code] {
    bool failed = false;
    Status st = RunExec(*o, &failed);
    if (!st.ok())
      exit_code = Fail(st);
    else if (failed)
      exit_code = 1;
  });
}

}  // namespace tessera::cli
