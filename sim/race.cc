#include "sim/race.h"

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"
#include "sim/core.h"

namespace tessera {

RaceChecker::RaceChecker(const HwConfig& cfg, const std::vector<Instruction>* stream) : cfg_(cfg), stream_(stream) {
  inp_ = {std::vector<int64_t>(cfg.inp_entries), std::vector<int64_t>(cfg.inp_entries), "inp", Module::kLoad,
          Module::kCompute};
  wgt_ = {std::vector<int64_t>(cfg.wgt_entries), std::vector<int64_t>(cfg.wgt_entries), "wgt", Module::kLoad,
          Module::kCompute};
  out_ = {std::vector<int64_t>(cfg.acc_entries), std::vector<int64_t>(cfg.acc_entries), "out", Module::kCompute,
          Module::kStore};
}

void RaceChecker::Pop(Module m, const Clock& token) {
  Clock& c = vc_[static_cast<int>(m)];
  for (int k = 0; k < kNumModules; ++k) c[k] = std::max(c[k], token[k]);
}

Status RaceChecker::Access(Tracker& t, int64_t e, bool write, Module m, int64_t index) {
  const int mi = static_cast<int>(m);
  const int64_t seq = vc_[mi][mi];
  // The conflicting accesses are the other module's writes (for a read) or reads (for a write).
  const Module other = write ? t.reader : t.writer;
  const int64_t other_seq = write ? t.read_seq[e] : t.write_seq[e];
  if (other_seq > vc_[mi][static_cast<int>(other)]) {
    const int64_t other_index = seq_to_index_[static_cast<int>(other)][other_seq - 1];
    return regs::FaultError(
        regs::ErrorCode::kTokenError, index,
        "race on {} entry {}: instruction {} ({}) on the {} module {} it, but the {} by instruction {} ({}) on the {} "
        "module is not ordered before it by a dependency token",
        t.name, e, index, FormatInstruction(cfg_, (*stream_)[index]), ModuleName(m), write ? "writes" : "reads",
        write ? "read" : "write", other_index, FormatInstruction(cfg_, (*stream_)[other_index]), ModuleName(other));
  }
  (write ? t.write_seq : t.read_seq)[e] = seq;
  return OkStatus();
}

Status RaceChecker::RecordRange(Tracker& t, int64_t first, int64_t count, bool write, Module m, int64_t index) {
  // Out-of-bounds ranges are reported by the core when the instruction executes.
  count = std::min<int64_t>(count, static_cast<int64_t>(t.write_seq.size()) - first);
  for (int64_t e = first; e < first + count; ++e) TSR_RETURN_IF_ERROR(Access(t, e, write, m, index));
  return OkStatus();
}

Status RaceChecker::Start(Module m, int64_t index, const Core& core) {
  const int mi = static_cast<int>(m);
  vc_[mi][mi] += 1;
  seq_to_index_[mi].push_back(index);
  const Instruction& in = (*stream_)[index];
  switch (in.op()) {
    case Opcode::kLoad: {
      const int64_t n = core.SramRows(in);
      if (in.mem_type() == MemType::kInp) return RecordRange(inp_, in.sram, n, true, m, index);
      if (in.mem_type() == MemType::kWgt) return RecordRange(wgt_, in.sram, n, true, m, index);
      if (in.mem_type() == MemType::kAcc || in.mem_type() == MemType::kAcc8)
        return RecordRange(out_, in.sram, n, true, m, index);
      return OkStatus();
    }
    case Opcode::kStore: return RecordRange(out_, in.sram, core.SramRows(in), false, m, index);
    case Opcode::kGemm:
    case Opcode::kAlu: {
      const bool gemm_reads = in.op() == Opcode::kGemm && !in.reset;
      Status race;
      Status bounds = core.ForEachIteration(in, index, [&](const LoopIndex& ix) {
        if (!race.ok()) return;
        if (gemm_reads) {
          race = Access(inp_, ix.src, false, m, index);
          if (race.ok()) race = Access(wgt_, ix.wgt, false, m, index);
        }
        if (race.ok()) race = Access(out_, ix.dst, true, m, index);
      });
      TSR_RETURN_IF_ERROR(bounds);
      return race;
    }
    case Opcode::kFinish: return OkStatus();
  }
  return OkStatus();
}

}  // namespace tessera
