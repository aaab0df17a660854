#include "compiler/backend/cost_model.h"

#include <map>
#include <utility>
#include <vector>

#include "isa/base/math.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "runtime/recording.h"
#include "sim/core.h"
#include "sim/timing.h"
#include "sim/timing_engine.h"

namespace tessera::backend {
namespace {

// One piece of a recording as the engine's instruction source: words decoded
// as fetched, uop LOADs applied to a model of the uop scratchpad (shared by
// the pieces: it persists on the device), ALU durations from the uops there.
class PieceSource final : public InstructionSource {
 public:
  PieceSource(const HwConfig& cfg, const Recording& rec, size_t piece, std::vector<uint32_t>* uops,
              const std::map<std::pair<uint32_t, uint32_t>, uint32_t>& kernel_of)
      : cfg_(cfg), rec_(rec), piece_(piece), uops_(*uops), kernel_of_(kernel_of) {}

  Status Decode(int64_t index, Instruction* out) override {
    TSR_ASSIGN_OR_RETURN(*out, tessera::Decode(cfg_, rec_.pieces[piece_][static_cast<size_t>(index)]));
    const bool uop_load = out->op() == Opcode::kLoad && out->mem_type() == MemType::kUop;
    if (uop_load) out->dram = 0;  // kernels: at a page start (see the header)
    return OkStatus();
  }

  StatusOr<int64_t> Start(const Instruction& in, int64_t index) override {
    CountInstruction(cfg_, in, &c_);
    if (in.op() == Opcode::kAlu) return AluCycles(in);
    if (in.op() != Opcode::kLoad || in.mem_type() != MemType::kUop || in.y_size * in.x_size == 0)
      return int64_t{0};  // (a uop LOAD of nothing carries tokens)
    auto it = kernel_of_.find({static_cast<uint32_t>(piece_), static_cast<uint32_t>(index)});
    if (it == kernel_of_.end())
      return InvalidArgumentError("recording '{}', piece {}, instruction {}: a uop LOAD without its kernel", rec_.name,
                                  piece_, index);
    const std::vector<uint32_t>& w = rec_.kernels[it->second]->words;
    if (in.sram + static_cast<int64_t>(w.size()) > static_cast<int64_t>(uops_.size()))
      return OutOfRangeError("recording '{}': kernel '{}' at uop {} overruns the uop scratchpad", rec_.name,
                             rec_.kernels[it->second]->name, in.sram);
    std::copy(w.begin(), w.end(), uops_.begin() + in.sram);
    return int64_t{0};
  }
  // The functional counts join the engine's timing counters.
  void Finished(CycleStats* stats) override { stats->counters.Add(c_); }

 private:
  // The operand rule (timing::AluLoopCycles) over the uops' source fields.
  int64_t AluCycles(const Instruction& in) {
    const FieldSlot& fs = cfg_.layout.uop_slot(UopFieldId::src);
    const int64_t n = in.uop_end - in.uop_bgn;
    src_.resize(static_cast<size_t>(n));
    for (int64_t u = 0; u < n; ++u) {
      const uint32_t w = uops_[static_cast<size_t>(in.uop_bgn + u)];
      src_[static_cast<size_t>(u)] =
          fs.width == 0 ? 0 : static_cast<int64_t>((w >> fs.lsb) & ((uint64_t{1} << fs.width) - 1));
    }
    return timing::AluLoopCycles(cfg_, in.alu(), timing::AluReadsSource(in), in.iter_out, in.iter_in, src_.data(), n,
                                 in.src_out, in.src_in);
  }

  const HwConfig& cfg_;
  const Recording& rec_;
  size_t piece_;
  std::vector<uint32_t>& uops_;
  const std::map<std::pair<uint32_t, uint32_t>, uint32_t>& kernel_of_;
  DeviceCounters c_;  // functional counts of this piece
  std::vector<int64_t> src_;
};

}  // namespace

StatusOr<DeviceCounters> PredictRecording(const HwConfig& cfg, const Recording& rec) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> kernel_of;  // (piece, index) of a uop LOAD -> kernel
  for (const Relocation& r : rec.relocs)
    if (r.kind == RelocKind::kKernel) kernel_of[{r.piece, r.index}] = r.target;
  std::vector<uint32_t> uops(static_cast<size_t>(cfg.uop_entries), 0);
  for (const UopPlacement& u : rec.requires_resident) {  // assumed resident: restoring them is not timed
    const std::vector<uint32_t>& w = rec.kernels[u.kernel]->words;
    if (u.offset + static_cast<int64_t>(w.size()) > cfg.uop_entries)
      return OutOfRangeError("recording '{}': kernel '{}' overruns the uop scratchpad", rec.name,
                             rec.kernels[u.kernel]->name);
    std::copy(w.begin(), w.end(), uops.begin() + u.offset);
  }
  DeviceCounters total;
  EngineOptions eo;
  for (size_t p = 0; p < rec.pieces.size(); ++p) {
    PieceSource src(cfg, rec, p, &uops, kernel_of);
    CycleStats s;
    TSR_RETURN_IF_ERROR(
        RunTimingEngine(cfg, src, 0, static_cast<int64_t>(rec.pieces[p].size()), eo, &s)
            .WithContext(fmt::format("timing recording '{}', piece {} of {}", rec.name, p + 1, rec.pieces.size())));
    total.Add(s.counters);
  }
  return total;
}

const char* BoundName(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kLoad: return "load";
    case Bound::kStore: return "store";
    case Bound::kBandwidth: return "dram-bw";
    case Bound::kBursts: return "bursts";
    case Bound::kFetch: return "fetch";
    case Bound::kLatency: return "latency";
  }
  return "?";
}

Roofline LayerRoofline(const HwConfig& cfg, const DeviceCounters& c) {
  Roofline r;
  r.cycles = c.cycles;
  r.compute = c.unit(regs::Unit::kCompute).busy;
  // The DMA modules' own work (setup, padding): their beats count as DRAM bandwidth.
  int64_t load_bytes = 0;
  for (const MemInfo& m : kMemTypes)
    if (m.load_module == Module::kLoad) load_bytes += c.load_bytes_by_mem[static_cast<size_t>(m.mem)];
  // Without the volume counters (counters.volumes 0) the beats cannot be told apart: no load or store term.
  if (CounterBuilt(cfg, regs::Counter::load_bytes_by_mem)) {
    r.load = std::max<int64_t>(0, c.unit(regs::Unit::kLoad).busy - load_bytes / cfg.dram_bytes_per_cycle);
    r.store = std::max<int64_t>(0, c.unit(regs::Unit::kStore).busy - c.dram_write_bytes / cfg.dram_bytes_per_cycle);
  }
  r.bandwidth = c.dram_busy_cycles;
  // Each burst holds one of N_out slots for at least L cycles plus its beats.
  r.bursts = CeilDiv(c.port_bursts * cfg.dram_latency_cycles + c.dram_busy_cycles, cfg.dram_max_outstanding);
  // Each instruction holds one of F fetch-buffer entries from its block's
  // request to its dispatch: at least L plus the block's beats.
  const int64_t block = int64_t{cfg.fetch_block} * kInsnBytes;
  r.fetch = CeilDiv(c.insns() * (cfg.dram_latency_cycles + CeilDiv(block, cfg.dram_bytes_per_cycle)), cfg.fetch_buffer);
  const std::pair<int64_t, Bound> all[] = {{r.compute, Bound::kCompute}, {r.load, Bound::kLoad},
                                           {r.store, Bound::kStore},     {r.bandwidth, Bound::kBandwidth},
                                           {r.bursts, Bound::kBursts},   {r.fetch, Bound::kFetch}};
  r.bound_cycles = 0;
  for (const auto& [cycles, b] : all)
    if (cycles > r.bound_cycles) r.bound_cycles = cycles, r.bound = b;
  if (r.bound_cycles < kSaturated * static_cast<double>(r.cycles)) r.bound = Bound::kLatency;
  return r;
}

}  // namespace tessera::backend
