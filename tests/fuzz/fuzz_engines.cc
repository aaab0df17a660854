// The decoder and both engines, differentially: a program object (.bin) that
// parses and passes the layout check runs on `ref` and on `sim`; both must
// succeed with the same DRAM contents, or both fail with the same status
// code (or both fail, when the stream breaks the end-of-stream token rule).
// Runs that reach either engine's limit (sim's watchdog, ref's host time),
// and racy programs (ref's race check fails a run that succeeds
// without it: their results depend on timing), are not compared.
#include <cstdint>
#include <vector>

#include "isa/program.h"
#include "sim/cycle_sim.h"
#include "sim/dram.h"
#include "sim/loader.h"
#include "sim/ref.h"
#include "sim/tokens.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const HwConfig& cfg = fuzz::Config("default");
  auto p = ParseProgramObject(cfg, std::vector<uint8_t>(data, data + size), "fuzz.bin");
  if (!p.ok() || p->insns.empty() || p->insns.size() > 4096 || !CheckProgramLayout(cfg, *p).ok()) return 0;
  Dram ref_dram(cfg.dram_size_bytes), sim_dram(cfg.dram_size_bytes), race_dram(cfg.dram_size_bytes);
  if (!LoadProgram(cfg, *p, &ref_dram).ok() || !LoadProgram(cfg, *p, &sim_dram).ok() ||
      !LoadProgram(cfg, *p, &race_dram).ok())
    return 0;
  const int64_t n = static_cast<int64_t>(p->insns.size());
  RefOptions ro;
  ro.timeout_ms = 1000;
  ro.check_races = false;
  RefSim ref(cfg, &ref_dram);
  const Status a = ref.Run(p->text_addr, n, ro);
  ro.check_races = true;
  RefSim checked(cfg, &race_dram);
  if (a.ok() && !checked.Run(p->text_addr, n, ro).ok()) return 0;  // a race
  CycleSim sim(cfg, &sim_dram);
  CycleOptions co;
  co.max_cycles = 2000000;
  const Status b = sim.Run(p->text_addr, n, co);
  if (a.code() == StatusCode::kDeadlineExceeded || b.code() == StatusCode::kDeadlineExceeded) return 0;
  // A stream that breaks the end-of-stream token rule is refused by both; the
  // fault may come from an instruction not ordered before FINISH, which
  // depends on timing (docs/isa.md), so only the refusal is compared.
  FinishRule rule;
  for (size_t i = 0; i < p->insns.size(); ++i) rule.Add(p->insns[i], static_cast<int64_t>(i));
  if (p->insns.back().op() == Opcode::kFinish && !rule.Check(cfg, n - 1).ok()) {
    if (a.ok() || b.ok())
      fuzz::Broken("an engine accepts a stream that breaks the token rule",
                   "ref: " + a.ToString() + "\nsim: " + b.ToString());
    return 0;
  }
  if (a.ok() != b.ok() || a.code() != b.code())
    fuzz::Broken("ref and sim disagree", "ref: " + a.ToString() + "\nsim: " + b.ToString());
  if (a.ok() && ref_dram.Segments() != sim_dram.Segments())
    fuzz::Broken("ref and sim disagree", "DRAM contents differ");
  return 0;
}
