#include "sim/ref.h"

#include <chrono>
#include <deque>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "isa/regs.h"
#include "sim/dram.h"
#include "sim/race.h"
#include "sim/tokens.h"

namespace tessera {
namespace {

struct Scheduler {
  const HwConfig& cfg;
  Dram* dram;
  Core& core;
  const RefOptions& opts;
  uint64_t insn_addr;
  int64_t count;

  std::vector<Instruction> stream;         // decoded so far, by global index
  std::deque<int64_t> queue[kNumModules];  // command queues (global indices)
  std::deque<RaceChecker::Clock> tokens[kNumTokenQueues];
  std::unique_ptr<RaceChecker> races;
  FinishRule finish_rule;
  int64_t fetched = 0;
  bool finished = false;

  std::string Describe(int64_t idx) const { return fmt::format("#{} {}", idx, FormatInstruction(cfg, stream[idx])); }

  // Decodes the next instruction; false when the target command queue is full.
  StatusOr<bool> FetchOne() {
    uint8_t word[kInsnBytes];
    const uint64_t addr = insn_addr + static_cast<uint64_t>(fetched) * kInsnBytes;
    Status rd = dram->Read(addr, word, kInsnBytes);
    if (!rd.ok())
      return rd.WithContext(fmt::format("fetching instruction {}", fetched))
          .WithFault(regs::MakeFault(regs::ErrorCode::kBadLaunch));
    auto in = Decode(cfg, LoadWord(word));
    if (!in.ok())
      return in.status()
          .WithContext(fmt::format("instruction {} at DRAM 0x{:x}", fetched, addr))
          .WithFault(regs::MakeFault(regs::ErrorCode::kIllegalInstruction, fetched));
    TSR_RETURN_IF_ERROR(CheckFinishPlacement(cfg, *in, fetched, count));
    auto& q = queue[static_cast<int>(ModuleOf(*in))];
    if (static_cast<int64_t>(q.size()) >= cfg.command_queue_depth || (cfg.serial != 0 && Queued() > 0)) return false;
    stream.push_back(*in);
    finish_rule.Add(*in, fetched);
    q.push_back(fetched++);
    core.stats().insn_fetch_bytes += kInsnBytes;
    return true;
  }

  // Instructions fetched and not yet executed (a serial core holds at most one).
  int64_t Queued() const {
    int64_t n = 0;
    for (const auto& q : queue) n += static_cast<int64_t>(q.size());
    return n;
  }

  bool CanStart(const Instruction& in) const {
    TokenOps t = TokensOf(in);
    for (int i = 0; i < t.n_pops; ++i)
      if (tokens[static_cast<int>(t.pops[i])].empty()) return false;
    for (int i = 0; i < t.n_pushes; ++i)
      if (static_cast<int64_t>(tokens[static_cast<int>(t.pushes[i])].size()) >= cfg.token_queue_depth) return false;
    return true;
  }

  Status Execute(int64_t idx) {
    const Instruction& in = stream[idx];
    TokenOps t = TokensOf(in);
    for (int i = 0; i < t.n_pops; ++i) {
      auto& q = tokens[static_cast<int>(t.pops[i])];
      if (races) races->Pop(idx, q.front());
      q.pop_front();
    }
    if (races) TSR_RETURN_IF_ERROR(races->Start(idx, core));
    TSR_RETURN_IF_ERROR(core.Execute(in, idx));
    for (int i = 0; i < t.n_pushes; ++i)
      tokens[static_cast<int>(t.pushes[i])].push_back(races ? races->Snapshot(idx) : RaceChecker::Clock{});
    if (in.op() == Opcode::kFinish) finished = true;
    return OkStatus();
  }

  std::string TokenCounts() const {
    std::string s;
    for (int q = 0; q < kNumTokenQueues; ++q)
      s += fmt::format("{}{} {}", q ? ", " : "", TokenQueueName(static_cast<TokenQueue>(q)), tokens[q].size());
    return s;
  }

  std::string WhyBlocked(Module m) const {
    const auto& q = queue[static_cast<int>(m)];
    if (q.empty()) return "idle (command queue empty)";
    const Instruction& in = stream[q.front()];
    TokenOps t = TokensOf(in);
    std::string why;
    for (int i = 0; i < t.n_pops; ++i)
      if (tokens[static_cast<int>(t.pops[i])].empty())
        why += fmt::format("; waits for a token on {} (empty)", TokenQueueName(t.pops[i]));
    for (int i = 0; i < t.n_pushes; ++i)
      if (static_cast<int64_t>(tokens[static_cast<int>(t.pushes[i])].size()) >= cfg.token_queue_depth)
        why += fmt::format("; cannot push to {} (full, depth {})", TokenQueueName(t.pushes[i]), cfg.token_queue_depth);
    return fmt::format("next {}{}", Describe(q.front()), why);
  }

  Status Deadlock() const {
    std::string msg = "deadlock: no module can make progress";
    for (int m = 0; m < kNumModules; ++m)
      msg += fmt::format("\n  {:<8} {}", std::string(ModuleName(static_cast<Module>(m))) + ":",
                         WhyBlocked(static_cast<Module>(m)));
    msg += fmt::format("\n  fetch:   {} of {} instructions fetched", fetched, count);
    if (fetched < count)
      msg += cfg.serial != 0 ? " (blocked: the serial core dispatches one instruction at a time, in stream order)"
                             : " (blocked: the next instruction's command queue is full)";
    msg += "\n  tokens:  " + TokenCounts();
    return regs::FaultError(regs::ErrorCode::kDeadlock, -1, "{}", msg);
  }

  Status AfterFinish() const {
    TSR_RETURN_IF_ERROR(finish_rule.Check(cfg, count - 1));
    for (int m = 0; m < kNumModules; ++m)
      if (!queue[m].empty())
        return regs::FaultError(
            regs::ErrorCode::kTokenError, count - 1,
            "FINISH (instruction {}) retired while the {} module still had {} instruction(s) queued, "
            "next {}: a dependency token is missing before FINISH",
            count - 1, ModuleName(static_cast<Module>(m)), queue[m].size(), Describe(queue[m].front()));
    for (int q = 0; q < kNumTokenQueues; ++q)
      if (!tokens[q].empty())
        return regs::FaultError(regs::ErrorCode::kTokenError, count - 1,
                                "unbalanced dependency tokens at FINISH: {} token(s) left unconsumed ({})",
                                tokens[q].size(), TokenCounts());
    return OkStatus();
  }

  Status CheckDeadline(std::chrono::steady_clock::time_point deadline, int64_t executed) const {
    if (opts.timeout_ms > 0 && std::chrono::steady_clock::now() > deadline)
      return regs::FaultError(regs::ErrorCode::kWatchdog, -1,
                              "timeout: the run exceeded {} ms after {} of {} instructions ({} fetched)",
                              opts.timeout_ms, executed, count, fetched);
    return OkStatus();
  }

  Status Run() {
    if (count <= 0) return regs::FaultError(regs::ErrorCode::kBadLaunch, -1, "empty instruction stream");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(opts.timeout_ms);
    int64_t executed = 0;
    if (opts.check_races) races = std::make_unique<RaceChecker>(cfg, &stream);
    stream.reserve(static_cast<size_t>(std::min<int64_t>(count, 1 << 20)));
    while (!finished) {
      bool progress = false;
      while (fetched < count) {
        TSR_ASSIGN_OR_RETURN(bool ok, FetchOne());
        if (!ok) break;
        progress = true;
      }
      for (int m = 0; m < kNumModules && !finished; ++m) {
        auto& q = queue[m];
        while (!q.empty() && !finished && CanStart(stream[q.front()])) {
          int64_t idx = q.front();
          q.pop_front();
          TSR_RETURN_IF_ERROR(Execute(idx));
          TSR_RETURN_IF_ERROR(CheckDeadline(deadline, ++executed));
          progress = true;
        }
      }
      if (!finished && !progress) return Deadlock();
    }
    return AfterFinish();
  }
};

}  // namespace

RefSim::RefSim(const HwConfig& cfg, Dram* dram) : cfg_(cfg), dram_(dram), core_(cfg, dram) {}
RefSim::~RefSim() = default;

Status RefSim::Run(uint64_t insn_addr, int64_t count, const RefOptions& opts) {
  Scheduler s{cfg_, dram_, core_, opts, insn_addr, count, {}, {}, {}, nullptr, {}, 0, false};
  // The limit holds inside an instruction's loops too, not only between instructions.
  if (opts.timeout_ms > 0)
    core_.SetDeadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(opts.timeout_ms));
  Status st = s.Run();
  core_.ClearDeadline();
  return st;
}

}  // namespace tessera
