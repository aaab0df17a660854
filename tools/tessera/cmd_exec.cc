// `tessera exec PROG.s|PROG.bin -c CONFIG --target ref [--dram-in F]
//  [--dram-out F] [--stats-json F]`: runs a raw program on an engine and
// checks the program's .expect segments.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "isa/asm.h"
#include "isa/base/file.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "sim/trace.h"
#include "tools/tessera/cli.h"
#include "tools/tessera/common.h"

namespace tessera::cli {
namespace {

struct ExecOpts {
  std::string program, config, target = "ref", dram_in, dram_out, stats_json, trace, insn_log;
  bool timing_only = false;
  int64_t max_cycles = 0;
  std::vector<std::string> dump;
  bool no_race_check = false;
};

// Prints the DRAM contents now at a named segment of the program, as its type.
Status DumpSegment(const Program& prog, const Dram& dram, const std::string& name) {
  for (const Segment& s : prog.segments) {
    if (s.name != name) continue;
    Segment now = s;
    TSR_RETURN_IF_ERROR(dram.Read(s.addr, now.bytes.data(), now.bytes.size()));
    std::printf("%s @ 0x%llx (%zu x %s):\n", name.c_str(), static_cast<unsigned long long>(s.addr), s.count(),
                ElemTypeName(s.type));
    for (size_t i = 0; i < now.count(); ++i)
      std::printf("%s%5lld%s", i % 16 == 0 ? "  " : "", static_cast<long long>(now.Element(i)),
                  i % 16 == 15 || i + 1 == now.count() ? "\n" : " ");
    return OkStatus();
  }
  return NotFoundError("--dump {}: the program has no segment of that name", name);
}

Status RunExec(const ExecOpts& o, bool* expectations_failed) {
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(o.config));
  TSR_ASSIGN_OR_RETURN(Program prog, LoadProgramFile(cfg, o.program));
  Dram dram(cfg.dram_size_bytes);
  TSR_RETURN_IF_ERROR(LoadProgram(cfg, prog, &dram));
  if (!o.dram_in.empty()) TSR_RETURN_IF_ERROR(dram.LoadImage(o.dram_in));

  nlohmann::json stats = nlohmann::json::object();
  stats["target"] = o.target;
  stats["config"] = cfg.name;
  if (o.target == "ref") {
    RefSim ref(cfg, &dram);
    RefOptions opts;
    opts.check_races = !o.no_race_check;
    TSR_RETURN_IF_ERROR(ref.Run(prog.text_addr, static_cast<int64_t>(prog.insns.size()), opts).WithContext(o.program));
    ref.stats().AddToJson(&stats);
    const ExecStats& s = ref.stats();
    std::printf("ref: %lld instructions, %lld MACs, DRAM read %lld B, written %lld B\n",
                static_cast<long long>(s.total_insns()), static_cast<long long>(s.macs),
                static_cast<long long>(s.total_dram_read_bytes()), static_cast<long long>(s.dram_write_bytes));
  } else if (o.target == "sim") {
    CycleSim sim(cfg, &dram);
    CycleOptions opts;
    opts.compute_data = !o.timing_only;
    opts.record_instructions = !o.insn_log.empty();
    opts.max_cycles = o.max_cycles;
    ChromeTrace trace(cfg.clock_mhz);
    if (!o.trace.empty()) opts.trace = &trace;
    TSR_RETURN_IF_ERROR(sim.Run(prog.text_addr, static_cast<int64_t>(prog.insns.size()), opts).WithContext(o.program));
    const CycleStats& s = sim.stats();
    s.AddToJson(&stats);
    std::printf(
        "sim: %lld cycles (%.3f ms at %g MHz), %lld instructions, %lld MACs, GEMM utilization %.1f%%, "
        "DRAM read %lld B, written %lld B\n",
        static_cast<long long>(s.cycles), s.cycles / cfg.clock_mhz / 1000.0, cfg.clock_mhz,
        static_cast<long long>(s.exec.total_insns()), static_cast<long long>(s.gemm_macs), 100.0 * s.gemm_utilization,
        static_cast<long long>(s.exec.total_dram_read_bytes()), static_cast<long long>(s.exec.dram_write_bytes));
    std::printf("  %-8s %10s %10s %10s %10s %10s\n", "module", "busy", "wait_token", "wait_queue", "wait_mem", "idle");
    const std::pair<const char*, const ModuleCycles*> rows[] = {
        {"fetch", &s.fetch}, {"load", &s.load}, {"compute", &s.compute}, {"store", &s.store}};
    for (const auto& [name, m] : rows)
      std::printf("  %-8s %10lld %10lld %10lld %10lld %10lld\n", name, static_cast<long long>(m->busy),
                  static_cast<long long>(m->wait_token), static_cast<long long>(m->wait_queue),
                  static_cast<long long>(m->wait_memory), static_cast<long long>(m->idle));
    if (!o.trace.empty()) TSR_RETURN_IF_ERROR(trace.Write(o.trace));
    if (!o.insn_log.empty()) {
      std::string log = "index,module,start,end,instruction\n";
      for (const InsnTiming& it : s.instructions)
        log += fmt::format("{},{},{},{},{}\n", it.index, ModuleName(it.module), it.start, it.end,
                           FormatInstruction(cfg, prog.insns[it.index]));
      TSR_RETURN_IF_ERROR(WriteFile(o.insn_log, log));
    }
    if (o.timing_only) return OkStatus();  // no data: expectations are not meaningful
  } else {
    return InvalidArgumentError("unknown target '{}' (available: ref, sim)", o.target);
  }

  int checked = 0;
  Status expect = CheckExpectations(prog, dram, &checked);
  if (!expect.ok()) {
    std::printf("FAIL: %s\n", expect.message().c_str());
    *expectations_failed = true;
  } else if (checked > 0) {
    std::printf("PASS: %d expectation segment(s) match\n", checked);
  }
  for (const std::string& name : o.dump) TSR_RETURN_IF_ERROR(DumpSegment(prog, dram, name));
  if (!o.dram_out.empty()) TSR_RETURN_IF_ERROR(dram.SaveImage(o.dram_out));
  if (!o.stats_json.empty()) TSR_RETURN_IF_ERROR(WriteFile(o.stats_json, stats.dump(2) + "\n"));
  return OkStatus();
}

}  // namespace

void AddExecCommand(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ExecOpts>();
  CLI::App* cmd = app.add_subcommand("exec", "Run a raw program (text or object) on an engine");
  cmd->add_option("program", o->program, "Program (.s source or .bin object)")->required();
  cmd->add_option("-c,--config", o->config, "Hardware config JSON")->required();
  cmd->add_option("--target", o->target, "Engine: ref (functional) or sim (cycle-accurate)")->capture_default_str();
  cmd->add_option("--trace", o->trace, "sim: write a Chrome Trace Event JSON file (open in Perfetto)");
  cmd->add_option("--insn-log", o->insn_log, "sim: write each instruction's start and end cycle as CSV");
  cmd->add_option("--max-cycles", o->max_cycles, "sim: watchdog cycle limit (default 10^12)");
  cmd->add_flag("--timing-only", o->timing_only,
                "sim: skip data (faster); DRAM results and expectations are not produced");
  cmd->add_option("--dram-in", o->dram_in, "DRAM image loaded over the program's data before the run");
  cmd->add_option("--dram-out", o->dram_out, "Write the DRAM image after the run");
  cmd->add_option("--stats-json", o->stats_json, "Write statistics as JSON");
  cmd->add_option("--dump", o->dump, "Print a named data/expect segment's DRAM contents after the run");
  cmd->add_flag("--no-race-check", o->no_race_check, "ref: skip the dependency-token race detector");
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
