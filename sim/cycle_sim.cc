// `sim`: the timing engine (sim/timing_engine.h) over instructions decoded
// from DRAM, with their data effects applied by the functional core at each
// instruction's start.
#include "sim/cycle_sim.h"

#include "isa/config.h"
#include "isa/encoding.h"
#include "isa/regs.h"
#include "sim/dram.h"
#include "sim/timing.h"
#include "sim/timing_engine.h"

namespace tessera {
namespace {

class DramSource final : public InstructionSource {
 public:
  DramSource(const HwConfig& cfg, Dram* dram, Core& core, bool compute_data, uint64_t addr, int64_t count)
      : cfg_(cfg), dram_(dram), core_(core), compute_data_(compute_data), addr_(addr), count_(count) {}

  Status Decode(int64_t index, Instruction* out) override {
    uint8_t word[kInsnBytes];
    const uint64_t a = addr_ + static_cast<uint64_t>(index) * kInsnBytes;
    dram_->ReadUnchecked(a, word, kInsnBytes);
    TSR_ASSIGN_OR_RETURN(*out, DecodeStreamWord(cfg_, word, index, a, count_));
    return OkStatus();
  }

  StatusOr<int64_t> Start(const Instruction& in, int64_t index) override {
    // Data effects at the start; uop loads always (ALU timing reads the uops).
    if (compute_data_ || (in.op() == Opcode::kLoad && in.mem_type() == MemType::kUop))
      TSR_RETURN_IF_ERROR(core_.Execute(in, index));
    else
      core_.Count(in);
    if (in.op() != Opcode::kAlu) return int64_t{0};
    return AluIterationCyclesOf(core_, in, index);
  }

  void Finished(CycleStats* stats) override { stats->counters.Add(core_.stats()); }

 private:
  const HwConfig& cfg_;
  Dram* dram_;
  Core& core_;
  bool compute_data_;
  uint64_t addr_;
  int64_t count_;
};

}  // namespace

StatusOr<Instruction> DecodeStreamWord(const HwConfig& cfg, const uint8_t* word, int64_t index, uint64_t addr,
                                       int64_t count) {
  auto in = tessera::Decode(cfg, LoadWord(word));
  if (!in.ok())
    return in.status()
        .WithContext(fmt::format("instruction {} at DRAM 0x{:x}", index, addr))
        .WithFault(regs::MakeFault(regs::ErrorCode::kIllegalInstruction, index));
  TSR_RETURN_IF_ERROR(CheckFinishPlacement(cfg, *in, index, count));
  return *in;
}

StatusOr<int64_t> AluIterationCyclesOf(const Core& core, const Instruction& in, int64_t index) {
  int64_t cycles = 0, prev_src = timing::kNoSource;
  const bool reads_src = timing::AluReadsSource(in);
  TSR_RETURN_IF_ERROR(core.ForEachIteration(in, index, [&](const LoopIndex& ix) {
    cycles += timing::AluIterationCycles(core.cfg(), in.alu(), reads_src, ix.src, prev_src);
    prev_src = ix.src;
  }));
  return cycles;
}

CycleSim::CycleSim(const HwConfig& cfg, Dram* dram) : cfg_(cfg), dram_(dram), core_(cfg, dram) {}
CycleSim::~CycleSim() = default;

Status CycleSim::Run(uint64_t insn_addr, int64_t count, const CycleOptions& opts) {
  stats_ = CycleStats();
  core_.stats() = DeviceCounters();
  if (count > 0 && !dram_->InBounds(insn_addr, static_cast<uint64_t>(count) * kInsnBytes))
    return regs::FaultError(regs::ErrorCode::kBadLaunch, -1,
                            "instruction stream [0x{:x}, +{} instructions) is outside DRAM ({} bytes)", insn_addr,
                            count, dram_->size());
  DramSource src(cfg_, dram_, core_, opts.compute_data, insn_addr, count);
  EngineOptions eo;
  eo.record_instructions = opts.record_instructions;
  eo.max_cycles = opts.max_cycles;
  eo.trace = opts.trace;
  eo.visit_every_cycle = opts.visit_every_cycle;
  return RunTimingEngine(cfg_, src, insn_addr, count, eo, &stats_);
}

}  // namespace tessera
