// Checks hw/rtl/tsr_compute_exec.v (Verilated at one config) against the
// shared instruction semantics (sim/core.h, the code ref and sim execute) and
// the timing contract (sim/timing.h, the functions sim calls): seeded random
// scratchpads and random valid GEMM and ALU instructions (loop bounds and
// factors, reset, every ALU operation, immediates, uop ranges, forwarding and
// operand-register hazards), run back to back or with idle gaps. After each
// instruction the acc and out scratchpads must equal the Core's, `done` must
// rise exactly in the End cycle, `busy` must be high exactly in S .. End-1,
// and the MACs reported must be the Core's count. A mismatch prints the seed,
// the instruction index and its assembly; `--seed S --insns N` replays it.
// First, directed out-of-range instructions whose first bad index is exactly
// 2^bits of the index (it wraps into range at index width): `oob` must rise
// in the cycle after that iteration's uop arrives, not before. With --held 1
// the instruction stays on `insn` until `done` (the module Verilated HELD).
//
// Usage: Vtsr_compute_exec CONFIG.json [--seed S] [--insns N] [--held 0|1]
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "Vtsr_compute_exec.h"
#include "isa/alu.h"
#include "isa/asm.h"
#include "isa/config.h"
#include "isa/encoding.h"
#include "sim/core.h"
#include "sim/cycle_sim.h"
#include "sim/timing.h"

namespace tessera {
namespace {

// Verilated ports are C integers up to 64 bits and VlWide<N> beyond.
template <typename T>
void Put(T& port, const uint32_t* w, size_t n) {
  uint64_t v = w[0];
  if (n > 1 && sizeof(T) > 4) v |= static_cast<uint64_t>(w[1]) << 32;
  port = static_cast<T>(v);
}
template <std::size_t N>
void Put(VlWide<N>& port, const uint32_t* w, size_t n) {
  for (size_t i = 0; i < N; ++i) port[i] = i < n ? w[i] : 0;
}
template <typename T>
void Get(const T& port, uint32_t* w, size_t n) {
  const uint64_t v = port;
  w[0] = static_cast<uint32_t>(v);
  if (n > 1) w[1] = static_cast<uint32_t>(v >> 32);
}
template <std::size_t N>
void Get(const VlWide<N>& port, uint32_t* w, size_t n) {
  for (size_t i = 0; i < n && i < N; ++i) w[i] = port[i];
}

// A scratchpad as tsr_sdp_ram behaves: registered read (a read of the row
// written in the same cycle returns undefined data: here the old row
// inverted, as tsr_sdp_ram's simulation does), rdata held while re is low. Rows are bit vectors in 32-bit words, the
// DRAM tile bytes in little-endian order.
struct Ram {
  Ram(int64_t rows, int row_bytes)
      : bytes(row_bytes), words((row_bytes + 3) / 4), mem(rows * words), rd(words), next(words) {}
  uint32_t* row(int64_t r) { return &mem[r * words]; }
  void SetBytes(int64_t r, const uint8_t* b) {
    std::fill_n(row(r), words, 0);
    std::memcpy(row(r), b, bytes);
  }
  int bytes;
  size_t words;
  std::vector<uint32_t> mem, rd, next;
};

struct Mismatch {
  std::string what;
};

class Bench {
 public:
  Bench(const HwConfig& cfg, uint64_t seed, bool held)
      : cfg_(cfg),
        seed_(seed),
        held_(held),
        rng_(seed),
        core_(cfg, uint64_t{1} << 20),
        uop_(cfg.uop_entries, 4),
        inp_(cfg.inp_entries, cfg.inp_tile_bytes),
        wgt_(cfg.wgt_entries, cfg.wgt_tile_bytes),
        acc_(cfg.acc_entries, cfg.acc_tile_bytes),
        out_(cfg.acc_entries, cfg.out_tile_bytes) {}

  int Run(int64_t insns);

 private:
  // The directed wrap-around faults (see the file comment); false on a mismatch.
  bool RunWrapFaults();
  bool RunFault(const Instruction& in, const std::vector<Uop>& uops);
  int64_t Rand(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool Chance(int percent) { return Rand(0, 99) < percent; }
  // Writes `n` DRAM-format elements of memory type m at entry `first` into
  // both the Core (its own LOAD unpacking) and the RTL scratchpad.
  void Fill(MemType m, int64_t first, int64_t n, const std::vector<uint8_t>& bytes);
  void RefreshOut(int64_t first, int64_t n);
  void RandomizeAcc(int64_t first, int64_t n);
  void WriteUops(int64_t first, const std::vector<Uop>& uops);
  Instruction RandomInstruction(int64_t index, bool out_of_range);
  void SyncAccFromCore();
  void Cycle(bool start, const Word128& insn);
  void Check(int64_t macs);

  const HwConfig& cfg_;
  uint64_t seed_;
  bool held_;
  std::mt19937_64 rng_;
  Core core_;
  Vtsr_compute_exec m_;
  Ram uop_, inp_, wgt_, acc_, out_;
  int64_t t_ = 0;  // the current cycle
  // What the last Cycle observed (before its clock edge).
  bool done_ = false, busy_ = false, acc_we_ = false, oob_ = false;
  uint64_t macs_ = 0;
  int64_t iterations_ = 0;
  int64_t wrap_faults_ = 0;  // directed wrap-around cases run
};

void Bench::Fill(MemType m, int64_t first, int64_t n, const std::vector<uint8_t>& bytes) {
  Instruction ld;
  ld.opcode = static_cast<int64_t>(Opcode::kLoad);
  ld.mem = static_cast<int64_t>(m);
  ld.sram = first;
  ld.y_size = 1;
  ld.x_size = n;
  ld.x_stride = n;
  core_.LoadRow(ld, 0, bytes.data());
  Ram* ram = m == MemType::kUop ? &uop_ : m == MemType::kInp ? &inp_ : m == MemType::kWgt ? &wgt_ : &acc_;
  for (int64_t e = 0; e < n; ++e) ram->SetBytes(first + e, &bytes[e * ram->bytes]);
  if (m == MemType::kAcc) RefreshOut(first, n);
}

// OUT is the accumulator narrowed (what the controller's acc LOAD writes too):
// the Core's STORE row packing gives the bytes.
void Bench::RefreshOut(int64_t first, int64_t n) {
  Instruction st;
  st.opcode = static_cast<int64_t>(Opcode::kStore);
  st.mem = static_cast<int64_t>(MemType::kOut);
  st.sram = first;
  st.y_size = 1;
  st.x_size = n;
  std::vector<uint8_t> b(n * cfg_.out_tile_bytes);
  core_.StoreRow(st, 0, b.data());
  for (int64_t e = 0; e < n; ++e) out_.SetBytes(first + e, &b[e * out_.bytes]);
}

// Lanes mix full-range values with small ones (shift amounts, clip bounds,
// values near the saturation and rounding edges).
void Bench::RandomizeAcc(int64_t first, int64_t n) {
  const int lb = cfg_.acc_bits / 8;
  std::vector<uint8_t> b(n * cfg_.acc_tile_bytes);
  for (size_t i = 0; i < b.size(); i += lb) {
    int64_t v;
    switch (Rand(0, 3)) {
      case 0: v = static_cast<int64_t>(rng_()); break;
      case 1: v = Rand(-70, 70); break;
      case 2: v = Rand(-40000, 40000); break;
      default:
        v = Rand(0, 1) ? (int64_t{1} << (cfg_.acc_bits - 1)) - Rand(1, 3)
                       : -(int64_t{1} << (cfg_.acc_bits - 1)) + Rand(0, 2);
    }
    for (int k = 0; k < lb; ++k) b[i + k] = static_cast<uint8_t>(v >> (8 * k));
  }
  Fill(MemType::kAcc, first, n, b);
}

void Bench::WriteUops(int64_t first, const std::vector<Uop>& uops) {
  std::vector<uint8_t> b(uops.size() * 4);
  for (size_t i = 0; i < uops.size(); ++i) {
    const uint32_t w = EncodeUop(cfg_, uops[i]).value();
    for (int k = 0; k < 4; ++k) b[i * 4 + k] = static_cast<uint8_t>(w >> (8 * k));
  }
  Fill(MemType::kUop, first, static_cast<int64_t>(uops.size()), b);
}

// A random GEMM or ALU that ValidateInstruction accepts and the Core's range
// checks accept (or, with `out_of_range`, refuse): rejection sampling; its uop
// range is rewritten first.
Instruction Bench::RandomInstruction(int64_t index, bool out_of_range) {
  const int64_t A = cfg_.acc_entries, NI = cfg_.inp_entries, NW = cfg_.wgt_entries, U = cfg_.uop_entries;
  for (int tries = 0;; ++tries) {
    TSR_CHECK(tries < 10000, "no valid random instruction found");
    Instruction in;
    const bool gemm = Chance(50);
    in.opcode = static_cast<int64_t>(gemm ? Opcode::kGemm : Opcode::kAlu);
    in.reset = Chance(10);
    const int64_t n = Chance(80) ? Rand(1, std::min<int64_t>(U, 6)) : Rand(1, std::min<int64_t>(U, 40));
    in.uop_bgn = Rand(0, U - n);
    in.uop_end = in.uop_bgn + n;
    const int64_t big = Chance(10) ? 12 : 4;
    in.iter_out = Chance(3) ? 0 : Rand(1, big);
    in.iter_in = Chance(3) ? 0 : Rand(1, big);
    auto step = [&](int64_t limit) {
      if (out_of_range && Chance(50)) return Rand(0, limit - 1);
      return Chance(40) ? 0 : std::min<int64_t>(limit - 1, Chance(85) ? Rand(0, 3) : Rand(0, 64));
    };
    in.dst_out = step(A);
    in.dst_in = step(std::min<int64_t>(A, 256));
    const int64_t src_lim = gemm ? NI : A;
    in.src_out = step(src_lim);
    in.src_in = step(std::min<int64_t>(src_lim, 256));
    if (gemm) {
      in.wgt_out = step(NW);
      in.wgt_in = step(std::min<int64_t>(NW, 256));
    } else {
      in.alu_op = Rand(0, static_cast<int64_t>(std::size(kAluOps)) - 1);
      const AluOp op = in.alu();
      const AluOpInfo* info = FindAluOp(in.alu_op);
      in.use_imm = info->operand != AluOperand::kVecAndImm && Chance(40);
      if (info->operand == AluOperand::kVecAndImm)
        in.imm = Rand(0, info->imm_max);
      else if (op == AluOp::kShr)
        in.imm = Rand(-40, 40);
      else
        in.imm = Chance(50) ? Rand(-32768, 32767) : Rand(-200, 200);
    }
    // Uops: destinations and sources from small windows so that iterations
    // hit the same entries (GEMM forwarding, ALU operand reuse and hazards).
    const int64_t win = Chance(50) ? 4 : 32;
    const int64_t dbase = Rand(0, A - 1), sbase = Rand(0, src_lim - 1);
    const int pattern = static_cast<int>(Rand(0, 3));
    std::vector<Uop> uops(n);
    for (int64_t u = 0; u < n; ++u) {
      Uop& x = uops[u];
      x.dst = std::min(A - 1, dbase + Rand(0, win - 1));
      x.src = std::min(src_lim - 1, sbase + Rand(0, win - 1));
      if (pattern == 1 && u > 0) x.src = uops[0].src;      // one source row
      if (pattern == 2 && !gemm) x.src = x.dst;            // in place
      if (pattern == 3 && u > 0) x.dst = uops[u - 1].dst;  // one destination run
      x.wgt = gemm ? Rand(0, NW - 1) : 0;
      if (out_of_range && !gemm && Chance(10))  // an ALU source past acc (the field is wider)
        x.src = Rand(0, (int64_t{1} << cfg_.layout.uop_slot(UopFieldId::src).width) - 1);
    }
    if (!ValidateInstruction(cfg_, in).ok()) continue;
    if (in.iter_out * in.iter_in * n > 3000) continue;
    WriteUops(in.uop_bgn, uops);
    if (core_.ForEachIteration(in, index, [](const LoopIndex&) {}).ok() == out_of_range) continue;
    return in;
  }
}

// After a faulting instruction the Core has stopped at the failing iteration
// and the RTL has run on (the controller would stop the run): restart both
// from the Core's accumulator.
void Bench::SyncAccFromCore() {
  const int lanes = cfg_.batch * cfg_.block_out, lb = cfg_.acc_bits / 8;
  std::vector<uint8_t> b(cfg_.acc_entries * cfg_.acc_tile_bytes);
  for (int64_t e = 0; e < cfg_.acc_entries; ++e)
    for (int l = 0; l < lanes; ++l) {
      const int64_t v = core_.AccLane(e, l / cfg_.block_out, l % cfg_.block_out);
      for (int k = 0; k < lb; ++k) b[(e * lanes + l) * lb + k] = static_cast<uint8_t>(v >> (8 * k));
    }
  Fill(MemType::kAcc, 0, cfg_.acc_entries, b);
}

void Bench::Cycle(bool start, const Word128& insn) {
  m_.start = start;
  const uint32_t iw[4] = {static_cast<uint32_t>(insn.lo), static_cast<uint32_t>(insn.lo >> 32),
                          static_cast<uint32_t>(insn.hi), static_cast<uint32_t>(insn.hi >> 32)};
  Put(m_.insn, iw, 4);
  m_.eval();
  done_ = m_.done;
  busy_ = m_.busy;
  oob_ = m_.oob;
  acc_we_ = m_.acc_we;
  macs_ += m_.macs_inc;
  // The clock edge: reads see the rows before this cycle's writes (collisions poisoned below).
  struct Port {
    Ram* ram;
    bool re;
    uint64_t ra;
  };
  const Port ports[] = {{&uop_, m_.uop_re != 0, m_.uop_ra},
                        {&inp_, m_.inp_re != 0, m_.inp_ra},
                        {&wgt_, m_.wgt_re != 0, m_.wgt_ra},
                        {&acc_, m_.acc_re != 0, m_.acc_ra}};
  for (const Port& p : ports) {
    p.ram->next = p.ram->rd;
    if (p.re) {
      TSR_CHECK(p.ra < p.ram->mem.size() / p.ram->words, "read address out of range");
      std::copy_n(p.ram->row(static_cast<int64_t>(p.ra)), p.ram->words, p.ram->next.begin());
    }
  }
  if (m_.acc_we && m_.acc_re && m_.acc_wa == m_.acc_ra)  // a collision: undefined data
    for (uint32_t& w : acc_.next) w = ~w;
  if (m_.acc_we) Get(m_.acc_wd, acc_.row(m_.acc_wa), acc_.words);
  if (m_.out_we) {
    std::vector<uint32_t> w(out_.words);
    Get(m_.out_wd, w.data(), w.size());
    std::copy(w.begin(), w.end(), out_.row(m_.out_wa));
  }
  m_.clk = 1;
  m_.eval();
  Put(m_.uop_rd, uop_.next.data(), uop_.words);
  Put(m_.inp_rd, inp_.next.data(), inp_.words);
  Put(m_.wgt_rd, wgt_.next.data(), wgt_.words);
  Put(m_.acc_rd, acc_.next.data(), acc_.words);
  for (Ram* r : {&uop_, &inp_, &wgt_, &acc_}) r->rd = r->next;
  m_.clk = 0;
  m_.eval();
  ++t_;
}

void Bench::Check(int64_t macs) {
  const int lanes = cfg_.batch * cfg_.block_out;
  for (int64_t e = 0; e < cfg_.acc_entries; ++e) {
    for (int l = 0; l < lanes; ++l) {
      const int64_t want = core_.AccLane(e, l / cfg_.block_out, l % cfg_.block_out);
      uint64_t got = 0;
      for (int k = 0; k < cfg_.acc_bits; ++k) {
        const int bit = l * cfg_.acc_bits + k;
        got |= static_cast<uint64_t>((acc_.row(e)[bit / 32] >> (bit % 32)) & 1) << k;
      }
      if (alu::Wrap(static_cast<int64_t>(got), cfg_.acc_bits) != want)
        throw Mismatch{fmt::format("acc[{}] lane {}: rtl {} core {}", e, l,
                                   alu::Wrap(static_cast<int64_t>(got), cfg_.acc_bits), want)};
    }
  }
  Instruction st;
  st.opcode = static_cast<int64_t>(Opcode::kStore);
  st.mem = static_cast<int64_t>(MemType::kOut);
  st.y_size = 1;
  st.x_size = cfg_.acc_entries;
  std::vector<uint8_t> want(cfg_.acc_entries * cfg_.out_tile_bytes);
  core_.StoreRow(st, 0, want.data());
  for (int64_t e = 0; e < cfg_.acc_entries; ++e)
    if (std::memcmp(out_.row(e), &want[e * out_.bytes], out_.bytes) != 0)
      throw Mismatch{fmt::format("out[{}] differs from the narrowed accumulator", e)};
  if (static_cast<int64_t>(macs_) != macs) throw Mismatch{fmt::format("MACs: rtl {} core {}", macs_, macs)};
}

// One out-of-range instruction on uops written at 0: `oob` must rise exactly
// in cycle S + 2 + (the cycles of the iterations before the first bad one:
// one each for GEMM, the ALU's c_i from sim/timing.h) and `done` follow.
bool Bench::RunFault(const Instruction& in, const std::vector<Uop>& uops) {
  WriteUops(in.uop_bgn, uops);
  int64_t good = 0;  // iterations before the first bad one
  if (!ValidateInstruction(cfg_, in).ok() || core_.ForEachIteration(in, 0, [&](const LoopIndex&) { ++good; }).ok())
    return true;  // the case does not apply to this config (a step wider than its field)
  const bool gemm = in.op() == Opcode::kGemm;
  TSR_CHECK(gemm || (in.iter_in == 1 && uops.size() == 1), "ALU wrap cases iterate i0 only");
  Instruction before = in;
  before.iter_out = good;
  const int64_t lead = gemm ? good : AluIterationCyclesOf(core_, before, 0).value();
  TSR_CHECK(!core_.Execute(in, 0).ok(), "an out-of-range instruction executed");
  const Word128 word = Encode(cfg_, in).value();
  const int64_t S = t_, rise = S + 2 + lead;
  std::string bad;
  for (int64_t t = S; t < rise + 200 && bad.empty(); ++t) {
    Cycle(t == S, t == S || held_ ? word : Word128{});
    if (t > S && t < rise && oob_) bad = fmt::format("oob in cycle S+{}, before S+{}", t - S, rise - S);
    if (t == rise && !oob_) bad = fmt::format("oob low in cycle S+{} (the first bad iteration is {})", t - S, good);
    if (t > rise && done_) break;
  }
  if (bad.empty() && !done_) bad = "no done";
  if (!bad.empty()) {
    fmt::print(stderr, "MISMATCH seed {} wrap-around fault: {}\n  {}\n", seed_, bad, FormatInstruction(cfg_, in));
    return false;
  }
  SyncAccFromCore();
  ++wrap_faults_;
  return true;
}

bool Bench::RunWrapFaults() {
  const int64_t A = cfg_.acc_entries, NW = cfg_.wgt_entries;
  const int64_t src_top = int64_t{1} << cfg_.layout.uop_slot(UopFieldId::src).width;
  auto gemm = [](int64_t io, int64_t ii) {
    Instruction in;
    in.opcode = static_cast<int64_t>(Opcode::kGemm);
    in.uop_bgn = 0, in.uop_end = 1, in.iter_out = io, in.iter_in = ii;
    return in;
  };
  auto alu = [&](AluOp op, int64_t io) {
    Instruction in = gemm(io, 1);
    in.opcode = static_cast<int64_t>(Opcode::kAlu);
    in.alu_op = static_cast<int64_t>(op);
    return in;
  };
  std::vector<std::pair<Instruction, Uop>> cases;
  Instruction in = gemm(3, 1);
  in.dst_out = A / 2;  // dst: 0, A/2, A (the outer step)
  cases.push_back({in, Uop{0, 0, 0}});
  in = gemm(1, 3);
  in.dst_in = A / 2;  // the inner step
  cases.push_back({in, Uop{0, 0, 0}});
  in = gemm(2, 1);
  in.dst_out = A - 1;  // the uop's field: 1, A
  cases.push_back({in, Uop{1, 0, 0}});
  in = gemm(3, 1);
  in.src_out = src_top / 2;  // inp: 0, 2^(bits-1), 2^bits
  cases.push_back({in, Uop{0, 0, 0}});
  in = gemm(1, 3);
  in.src_in = src_top / 2;
  cases.push_back({in, Uop{0, 0, 0}});
  in = gemm(3, 1);
  in.wgt_out = NW / 2;  // wgt: 0, NW/2, NW
  cases.push_back({in, Uop{0, 0, 0}});
  in = gemm(1, 3);
  in.wgt_in = NW / 2;
  cases.push_back({in, Uop{0, 0, 1}});
  in = gemm(2, 1);
  in.wgt_out = NW - 1;
  cases.push_back({in, Uop{0, 0, 1}});
  in = alu(AluOp::kAdd, 2);
  in.src_out = src_top - (A - 1);  // the ALU's source: A - 1, 2^bits
  cases.push_back({in, Uop{0, A - 1, 0}});
  in = alu(AluOp::kMul, 3);
  in.use_imm = 1, in.imm = 3, in.dst_out = A / 2;  // a multiply's passes before the bad iteration
  cases.push_back({in, Uop{0, 0, 0}});
  in = alu(AluOp::kMax, 3);
  in.src_out = 1, in.dst_out = A / 2;  // source reads (two per iteration) before it
  cases.push_back({in, Uop{0, 0, 0}});
  for (const auto& [c, u] : cases)
    if (!RunFault(c, {u})) return false;
  return true;
}

int Bench::Run(int64_t insns) {
  // Random scratchpads, then reset.
  auto random_bytes = [&](int64_t n) {
    std::vector<uint8_t> b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng_());
    return b;
  };
  Fill(MemType::kInp, 0, cfg_.inp_entries, random_bytes(cfg_.inp_entries * cfg_.inp_tile_bytes));
  Fill(MemType::kWgt, 0, cfg_.wgt_entries, random_bytes(cfg_.wgt_entries * cfg_.wgt_tile_bytes));
  RandomizeAcc(0, cfg_.acc_entries);
  m_.clk = 0;
  m_.rst = 1;
  for (int i = 0; i < 3; ++i) Cycle(false, Word128{});
  m_.rst = 0;
  Cycle(false, Word128{});
  t_ = 0;
  if (!RunWrapFaults()) return 1;

  int64_t counts[2][2] = {};  // [gemm/alu][reset]
  int64_t c2 = 0, faults = 0;
  for (int64_t k = 0; k < insns; ++k) {
    if (k % 40 == 39) {  // what the controller's acc LOADs do between instructions
      const int64_t n = Rand(1, cfg_.acc_entries);
      RandomizeAcc(Rand(0, cfg_.acc_entries - n), n);
    }
    const bool bad = Chance(5);
    const Instruction in = RandomInstruction(k, bad);
    const Word128 word = Encode(cfg_, in).value();
    if (bad) {
      // Out of range: the Core refuses it; the RTL must raise oob before done.
      TSR_CHECK(!core_.Execute(in, k).ok(), "an out-of-range instruction executed");
      const int64_t S = t_;
      bool seen = false;
      for (int64_t t = S;
           t < S + (1 + timing::AluPasses(cfg_) * cfg_.alu_mul_cycles) * timing::GemmIterations(in) + 200; ++t) {
        Cycle(t == S, t == S || held_ ? word : Word128{});
        if (done_ && t != S) break;
        seen = seen || (oob_ && t != S);  // in S it is the previous instruction's
      }
      if (!seen || !done_) {
        fmt::print(stderr,
                   "MISMATCH seed {} instruction {} (started in cycle {}): {}\n  {}\n  replay: --seed {} --insns {}\n",
                   seed_, k, S, !seen ? "oob not raised for an out-of-range instruction" : "no done",
                   FormatInstruction(cfg_, in), seed_, k + 1);
        return 1;
      }
      ++faults;
      SyncAccFromCore();
      continue;
    }
    // Expected timing, from the functions sim calls.
    const bool gemm = in.op() == Opcode::kGemm;
    int64_t cycles;
    if (gemm) {
      cycles = timing::GemmCycles(cfg_, timing::GemmIterations(in));
    } else {
      const int64_t ic = AluIterationCyclesOf(core_, in, k).value();
      cycles = timing::AluCycles(cfg_, ic);
      c2 += ic -
            timing::GemmIterations(in) * timing::AluPassCycles(cfg_, in.alu());  // (the passes' cycles are not reads)
    }
    const int64_t macs0 = core_.stats().macs;
    const Status s = core_.Execute(in, k);
    TSR_CHECK(s.ok(), "{}", s.ToString());
    const int64_t macs = core_.stats().macs - macs0;
    iterations_ += timing::GemmIterations(in);
    counts[gemm ? 0 : 1][in.reset ? 1 : 0] += 1;

    const int64_t S = t_, End = S + cycles;
    macs_ = 0;
    try {
      for (int64_t t = S; t < End; ++t) {
        Cycle(t == S, t == S || held_ ? word : Word128{});
        if (!busy_) throw Mismatch{fmt::format("busy low in cycle S+{} (End = S+{})", t - S, cycles)};
        if (oob_ && t != S) throw Mismatch{fmt::format("oob in cycle S+{} of an in-range instruction", t - S)};
        if (done_ && t != S) throw Mismatch{fmt::format("done in cycle S+{}, End is S+{}", t - S, cycles)};
      }
      // Cycle End: done must be high; the next instruction may start in it
      // (back to back) or after idle cycles.
      m_.start = 0;
      m_.eval();
      if (!m_.done) throw Mismatch{fmt::format("done low in the End cycle S+{}", cycles)};
      Check(macs);
      if (k + 1 == insns || Chance(30)) {
        const int64_t gap = Rand(1, 3);
        for (int64_t g = 0; g < gap; ++g) {
          Cycle(false, Word128{});
          if (busy_ || done_ != (g == 0) || acc_we_) throw Mismatch{"busy, done or a write after End"};
        }
      }
    } catch (const Mismatch& mm) {
      fmt::print(stderr,
                 "MISMATCH seed {} instruction {} (started in cycle {}): {}\n  {}\n"
                 "  replay: --seed {} --insns {}\n",
                 seed_, k, S, mm.what, FormatInstruction(cfg_, in), seed_, k + 1);
      return 1;
    }
  }
  if (wrap_faults_ == 0) {
    fmt::print(stderr, "config {} seed {}: no directed wrap-around case ran\n", cfg_.name, seed_);
    return 1;
  }
  fmt::print(
      "config {} seed {}: {} instructions ({} GEMM, {} GEMM reset, {} ALU, {} ALU reset), {} iterations, "
      "{} second acc reads, {} out of range (oob raised) and {} wrapping at index width (oob in its cycle), {} cycles: "
      "rtl == core, done in every End cycle\n",
      cfg_.name, seed_, insns, counts[0][0], counts[0][1], counts[1][0], counts[1][1], iterations_, c2, faults,
      wrap_faults_, t_);
  return 0;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: {} CONFIG.json [--seed S] [--insns N]\n", argv[0]);
    return 2;
  }
  uint64_t seed = 1;
  int64_t insns = 2000;
  bool held = false;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--seed")
      seed = std::strtoull(argv[i + 1], nullptr, 0);
    else if (a == "--insns")
      insns = std::strtoll(argv[i + 1], nullptr, 0);
    else if (a == "--held")
      held = std::strtol(argv[i + 1], nullptr, 0) != 0;
  }
  auto cfg = tessera::LoadHwConfig(argv[1]);
  if (!cfg.ok()) {
    fmt::print(stderr, "{}\n", cfg.status().ToString());
    return 2;
  }
  tessera::Bench bench(*cfg, seed, held);
  return bench.Run(insns);
}
