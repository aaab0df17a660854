#include "sim/race.h"

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "sim/core.h"
#include "sim/timing.h"

namespace tessera {
namespace {

constexpr int kAluPipe = static_cast<int>(Module::kCompute);
constexpr int kGemmPipe = kNumModules;

void Join(RaceChecker::Clock& c, const RaceChecker::Clock& o) {
  for (size_t k = 0; k < c.size(); ++k) c[k] = std::max(c[k], o[k]);
}

bool IsPipe(int agent) { return agent == kAluPipe || agent == kGemmPipe; }

}  // namespace

RaceChecker::RaceChecker(const HwConfig& cfg, const std::vector<Instruction>* stream) : cfg_(cfg), stream_(stream) {
  inp_ = MakeTracker(cfg.inp_entries, "inp");
  wgt_ = MakeTracker(cfg.wgt_entries, "wgt");
  acc_ = MakeTracker(cfg.acc_entries, "acc");
}

RaceChecker::Tracker RaceChecker::MakeTracker(int64_t entries, const char* name) {
  Tracker t;
  t.write_seq.assign(static_cast<size_t>(entries), 0);
  t.write_agent.assign(static_cast<size_t>(entries), 0);
  for (auto& r : t.read_seq) r.assign(static_cast<size_t>(entries), 0);
  t.name = name;
  return t;
}

int RaceChecker::AgentOf(int64_t index) const {
  const Instruction& in = (*stream_)[index];
  const Module m = ModuleOf(in);
  if (m == Module::kCompute && timing::PipeOf(in) == timing::Pipe::kGemm) return kGemmPipe;
  return static_cast<int>(m);
}

void RaceChecker::Pop(int64_t index, const Clock& token) { Join(vc_[AgentOf(index)], token); }

Status RaceChecker::Race(const Tracker& t, int64_t e, bool write, int agent, int64_t index, int other,
                         int64_t other_seq, bool other_write) const {
  const int64_t other_index = seq_to_index_[other][other_seq - 1];
  const std::string self = FormatInstruction(cfg_, (*stream_)[index]);
  const std::string them = FormatInstruction(cfg_, (*stream_)[other_index]);
  const char* what = write ? "writes" : "reads";
  const char* their = other_write ? "write" : "read";
  if (IsPipe(agent) && IsPipe(other))
    return regs::FaultError(
        regs::ErrorCode::kTokenError, index,
        "race on acc entry {}: instruction {} ({}) on the compute module's {} pipe {} it, but the {} by instruction "
        "{} ({}) on its {} pipe may overlap it: an instruction with ovl must not touch the rows of the older "
        "instruction on the other pipe",
        e, index, self, agent == kGemmPipe ? "GEMM" : "ALU", what, their, other_index, them,
        other == kGemmPipe ? "GEMM" : "ALU");
  auto module_name = [](int a) { return ModuleName(static_cast<Module>(a == kGemmPipe ? kAluPipe : a)); };
  const bool shadow = agent == static_cast<int>(Module::kStore) || other == static_cast<int>(Module::kStore);
  return regs::FaultError(
      regs::ErrorCode::kTokenError, index,
      "race on {} entry {}: instruction {} ({}) on the {} module {} it, but the {} by instruction {} ({}) on the {} "
      "module is not ordered before it by a dependency token",
      t.name == std::string_view("acc") && shadow ? "out" : t.name, e, index, self, module_name(agent), what, their,
      other_index, them, module_name(other));
}

Status RaceChecker::Access(Tracker& t, int64_t e, bool write, int agent, int64_t index) {
  const Clock& c = vc_[agent];
  const size_t i = static_cast<size_t>(e);
  // A read conflicts with the latest write; a write also with every agent's latest read.
  const int w_agent = t.write_agent[i];
  const int64_t w_seq = t.write_seq[i];
  if (w_seq > 0 && w_agent != agent && w_seq > c[w_agent]) return Race(t, e, write, agent, index, w_agent, w_seq, true);
  if (write) {
    for (int b = 0; b < kAgents; ++b) {
      const int64_t r = t.read_seq[b][i];
      if (b != agent && r > c[b]) return Race(t, e, write, agent, index, b, r, false);
    }
    t.write_seq[i] = c[agent];
    t.write_agent[i] = static_cast<int8_t>(agent);
  } else {
    t.read_seq[agent][i] = c[agent];
  }
  return OkStatus();
}

Status RaceChecker::RecordRange(Tracker& t, int64_t first, int64_t count, bool write, int agent, int64_t index) {
  // Out-of-bounds ranges are reported by the core when the instruction executes.
  count = std::min<int64_t>(count, static_cast<int64_t>(t.write_seq.size()) - first);
  for (int64_t e = first; e < first + count; ++e) TSR_RETURN_IF_ERROR(Access(t, e, write, agent, index));
  return OkStatus();
}

// An instruction with ovl shares no accumulator bank with the instruction on
// the other pipe it may run beside (each bank has one read and one write port).
Status RaceChecker::CheckBanks(int64_t index, int agent, int banks) {
  const int other = agent == kGemmPipe ? kAluPipe : kGemmPipe;
  const int64_t beside = banks_index_[other];
  const int shared = banks & banks_[other];
  if (timing::MayOverlap(cfg_, (*stream_)[index]) && beside >= 0 && shared != 0)
    return regs::FaultError(
        regs::ErrorCode::kTokenError, index,
        "bank conflict: instruction {} ({}) with ovl on the compute module's {} pipe touches accumulator bank {} "
        "(rows {} .. {}), and so does instruction {} ({}) on its {} pipe, which it may overlap: an instruction with "
        "ovl and the older one on the other pipe must use different halves of the accumulator",
        index, FormatInstruction(cfg_, (*stream_)[index]), agent == kGemmPipe ? "GEMM" : "ALU", shared & 1 ? 0 : 1,
        shared & 1 ? 0 : cfg_.acc_entries / 2, shared & 1 ? cfg_.acc_entries / 2 - 1 : cfg_.acc_entries - 1, beside,
        FormatInstruction(cfg_, (*stream_)[beside]), other == kGemmPipe ? "GEMM" : "ALU");
  banks_[agent] = banks;
  banks_index_[agent] = index;
  return OkStatus();
}

Status RaceChecker::Start(int64_t index, const Core& core) {
  const Instruction& in = (*stream_)[index];
  const int a = AgentOf(index);
  if (IsPipe(a)) {
    // Program order within compute (sim/timing.h): an instruction that takes
    // both pipes, or one without ovl, starts once the other pipe is empty; one
    // with ovl may overlap the other pipe's latest instruction.
    const int other = a == kGemmPipe ? kAluPipe : kGemmPipe;
    Join(vc_[a], timing::MayOverlap(cfg_, in) ? before_[other] : vc_[other]);
    before_[a] = vc_[a];
    if (!timing::MayOverlap(cfg_, in)) banks_index_[other] = -1;  // it starts once the other pipe is empty
  }
  vc_[a][a] += 1;
  seq_to_index_[a].push_back(index);
  if (IsPipe(a) && timing::TakesBothPipes(in)) {
    // Nothing starts beside it: both pipes see it done.
    Join(vc_[kGemmPipe], vc_[a]);
    before_[a] = vc_[a];
    before_[kGemmPipe] = vc_[kGemmPipe];
    banks_index_[kAluPipe] = banks_index_[kGemmPipe] = -1;
  }
  switch (in.op()) {
    case Opcode::kLoad: {
      const int64_t n = core.SramRows(in);
      if (in.mem_type() == MemType::kInp) return RecordRange(inp_, in.sram, n, true, a, index);
      if (in.mem_type() == MemType::kWgt) return RecordRange(wgt_, in.sram, n, true, a, index);
      if (IsAccumulatorMem(in.mem_type())) {
        TSR_RETURN_IF_ERROR(RecordRange(acc_, in.sram, n, true, a, index));
        // Its rows' banks (an out-of-bounds tail is the core's fault to report).
        const int64_t last = std::min(in.sram + n, cfg_.acc_entries) - 1;
        const int banks =
            last < in.sram ? 0 : (1 << timing::AccBank(cfg_, in.sram)) | (1 << timing::AccBank(cfg_, last));
        return CheckBanks(index, a, banks);
      }
      return OkStatus();
    }
    case Opcode::kStore: return RecordRange(acc_, in.sram, core.SramRows(in), false, a, index);
    case Opcode::kGemm:
    case Opcode::kAlu: {
      const bool gemm = in.op() == Opcode::kGemm;
      const bool reads_src = !gemm && timing::AluReadsSource(in);
      int banks = 0;
      Status race;
      Status bounds = core.ForEachIteration(in, index, [&](const LoopIndex& ix) {
        if (!race.ok()) return;
        if (gemm && !in.reset) {
          race = Access(inp_, ix.src, false, a, index);
          if (race.ok()) race = Access(wgt_, ix.wgt, false, a, index);
        }
        if (race.ok() && reads_src) race = Access(acc_, ix.src, false, a, index);
        if (reads_src) banks |= 1 << timing::AccBank(cfg_, ix.src);
        banks |= 1 << timing::AccBank(cfg_, ix.dst);
        if (race.ok() && !in.reset) race = Access(acc_, ix.dst, false, a, index);
        if (race.ok()) race = Access(acc_, ix.dst, true, a, index);
      });
      TSR_RETURN_IF_ERROR(bounds);
      TSR_RETURN_IF_ERROR(race);
      return CheckBanks(index, a, banks);
    }
    case Opcode::kFinish: return OkStatus();
  }
  return OkStatus();
}

}  // namespace tessera
