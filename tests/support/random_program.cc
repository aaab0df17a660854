#include "tests/support/random_program.h"

#include <algorithm>
#include <random>

#include "isa/encoding.h"
#include "sim/timing.h"

namespace tessera::testing {
namespace {

// DRAM layout (byte addresses); each source region holds kSrcElems elements.
constexpr int64_t kSrcElems = 512;
struct Layout {
  uint64_t uop, inp, wgt, acc, acc8, out;
};

// The fixed layout when it fits the config's DRAM (so a seed gives the same
// program as before on every config of at least 4 MiB); for a small DRAM
// (ice40-up5k: 128 KiB) the regions packed from 4 KiB (the instructions,
// at most 74, below), each 4 KiB aligned.
Layout LayoutFor(const HwConfig& cfg, int64_t out_bytes) {
  const Layout fixed{0x10000, 0x20000, 0x40000, 0x100000, 0x180000, 0x200000};
  if (fixed.out + static_cast<uint64_t>(out_bytes) <= static_cast<uint64_t>(cfg.dram_size_bytes)) return fixed;
  uint64_t at = 0x1000;
  auto next = [&](int64_t bytes) {
    const uint64_t a = at;
    at = (at + static_cast<uint64_t>(bytes) + 0xFFF) & ~uint64_t{0xFFF};
    return a;
  };
  Layout c;
  c.uop = next(0x1000);
  c.inp = next(kSrcElems * cfg.ElementBytes(MemType::kInp));
  c.wgt = next(kSrcElems * cfg.ElementBytes(MemType::kWgt));
  c.acc = next(kSrcElems * cfg.ElementBytes(MemType::kAcc));
  c.acc8 = next(kSrcElems * cfg.ElementBytes(MemType::kAcc8));
  c.out = next(out_bytes);
  TSR_CHECK(at <= static_cast<uint64_t>(cfg.dram_size_bytes),
            "random programs need {} bytes of DRAM, config '{}' has {}", at, cfg.name, cfg.dram_size_bytes);
  return c;
}

class Generator {
 public:
  Generator(const HwConfig& cfg, uint64_t seed, const RandomProgramOptions& o) : cfg_(cfg), rng_(seed), opts_(o) {
    inp_half_ = cfg.inp_entries / 2;
    wgt_half_ = cfg.wgt_entries / 2;
    acc_half_ = cfg.acc_entries / 2;
    // Work inside small windows of each half so loops revisit entries.
    inp_win_ = std::min<int64_t>(inp_half_, 48);
    wgt_win_ = std::min<int64_t>(wgt_half_, 24);
    acc_win_ = std::min<int64_t>(acc_half_, 48);
    out_elems_ = 2048;
    at_ = LayoutFor(cfg, out_elems_ * cfg.out_tile_bytes);
  }

  Program Make() {
    const int blocks = Uniform(1, opts_.max_blocks);
    // Block bodies, generated per module, then interleaved: L0 L1 C0 S0 L2 C1 S1 ...
    std::vector<std::vector<Instruction>> loads(blocks), computes(blocks), stores(blocks);
    for (int k = 0; k < blocks; ++k) {
      loads[k] = LoadBlock(k, blocks);
      computes[k] = ComputeBlock(k, blocks);
      stores[k] = StoreBlock(k, blocks);
    }
    Program p;
    p.text_addr = 0;
    auto append = [&](const std::vector<Instruction>& v) { p.insns.insert(p.insns.end(), v.begin(), v.end()); };
    p.insns.push_back(MemInsn(Opcode::kLoad, MemType::kUop, 0, at_.uop / kUopBytes, 1, 0, 0));
    append(loads[0]);
    for (int k = 0; k < blocks; ++k) {
      if (k + 1 < blocks) append(loads[k + 1]);
      append(computes[k]);
      append(stores[k]);
    }
    Instruction fin;
    fin.opcode = static_cast<int64_t>(Opcode::kFinish);
    fin.pop_next = 1;
    p.insns.push_back(fin);
    for (const Instruction& in : p.insns)
      TSR_CHECK(ValidateInstruction(cfg_, in).ok(), "generated an illegal instruction: {}",
                ValidateInstruction(cfg_, in).message());
    AddSegments(p);
    return p;
  }

 private:
  int64_t Uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool Chance(int percent) { return Uniform(0, 99) < percent; }

  Instruction MemInsn(Opcode op, MemType m, int64_t sram, int64_t dram, int64_t y, int64_t x, int64_t stride) {
    Instruction in;
    in.opcode = static_cast<int64_t>(op);
    in.mem = static_cast<int64_t>(m);
    in.sram = sram, in.dram = dram, in.y_size = y, in.x_size = x, in.x_stride = stride;
    return in;
  }

  // A random 2-D transfer into/out of the scratchpad window [base, base + window).
  Instruction RandomMem(Opcode op, MemType m, int64_t base, int64_t window, uint64_t region_addr, bool allow_pad) {
    const int64_t eb = cfg_.ElementBytes(m);
    for (;;) {
      int64_t y = Uniform(0, 3), x = Uniform(Chance(5) ? 0 : 1, 6);
      int64_t py0 = 0, py1 = 0, px0 = 0, px1 = 0;
      if (allow_pad && Chance(40)) py0 = Uniform(0, 2), py1 = Uniform(0, 1), px0 = Uniform(0, 2), px1 = Uniform(0, 1);
      const int64_t rows = py0 + y + py1, cols = px0 + x + px1;
      const int64_t sram_span = op == Opcode::kLoad ? rows * cols : y * x;
      // A transfer that moves nothing (no rows, no columns or only DRAM
      // padding rows) now and then: every engine must still end it cleanly.
      if ((sram_span == 0 && !Chance(30)) || sram_span > window) continue;
      const int64_t stride = Chance(20) ? Uniform(0, cols) : cols + Uniform(0, 4);
      const int64_t dram_rows = op == Opcode::kLoad ? y : rows, dram_cols = op == Opcode::kLoad ? x : cols;
      const int64_t footprint = dram_rows == 0 ? 0 : (dram_rows - 1) * stride + dram_cols;
      const int64_t region = op == Opcode::kLoad ? kSrcElems : out_elems_ * cfg_.out_tile_bytes / eb;
      if (footprint > region) continue;
      Instruction in = MemInsn(op, m, base + Uniform(0, window - std::max<int64_t>(sram_span, 1)),
                               static_cast<int64_t>(region_addr) / eb + Uniform(0, region - footprint), y, x, stride);
      in.y_pad0 = py0, in.y_pad1 = py1, in.x_pad0 = px0, in.x_pad1 = px1;
      if (py0 + py1 + px0 + px1) in.pad_value = Uniform(-128, 127);
      return in;
    }
  }

  std::vector<Instruction> LoadBlock(int k, int blocks) {
    (void)blocks;
    const int64_t b = k % 2;
    std::vector<Instruction> v;
    const int n = static_cast<int>(Uniform(1, opts_.max_loads));
    for (int i = 0; i < n; ++i) {
      if (Chance(50))
        v.push_back(RandomMem(Opcode::kLoad, MemType::kInp, b * inp_half_, inp_win_, at_.inp, true));
      else
        v.push_back(RandomMem(Opcode::kLoad, MemType::kWgt, b * wgt_half_, wgt_win_, at_.wgt, true));
    }
    if (k >= 2) v.front().pop_next = 1;
    v.back().push_next = 1;
    return v;
  }

  // Appends uops for a GEMM/ALU loop nest whose every index stays in its window.
  void LoopNest(Instruction& in, bool gemm, int64_t b) {
    in.iter_out = Uniform(1, 3), in.iter_in = Uniform(1, 3);
    in.dst_out = Uniform(0, 3), in.dst_in = Uniform(0, 3);
    in.src_out = Uniform(0, 3), in.src_in = Uniform(0, 3);
    if (gemm) in.wgt_out = Uniform(0, 2), in.wgt_in = Uniform(0, 2);
    const int64_t n = Uniform(1, 4);
    auto span = [&](int64_t f_out, int64_t f_in) { return (in.iter_out - 1) * f_out + (in.iter_in - 1) * f_in; };
    const int64_t src_win = gemm ? inp_win_ : acc_win_, src_base = gemm ? b * inp_half_ : b * acc_half_;
    in.uop_bgn = static_cast<int64_t>(uops_.size());
    for (int64_t u = 0; u < n; ++u) {
      Uop op;
      op.dst = b * acc_half_ + Uniform(0, acc_win_ - 1 - span(in.dst_out, in.dst_in));
      op.src = src_base + Uniform(0, src_win - 1 - span(in.src_out, in.src_in));
      op.wgt = gemm ? b * wgt_half_ + Uniform(0, wgt_win_ - 1 - span(in.wgt_out, in.wgt_in)) : 0;
      uops_.push_back(op);
    }
    in.uop_end = static_cast<int64_t>(uops_.size());
  }

  std::vector<Instruction> ComputeBlock(int k, int blocks) {
    const int64_t b = k % 2;
    std::vector<Instruction> v;
    const int n = static_cast<int>(Uniform(1, opts_.max_compute));
    for (int i = 0; i < n; ++i) {
      const int kind = static_cast<int>(Uniform(0, 9));
      if (kind <= 3) {
        Instruction g;
        g.opcode = static_cast<int64_t>(Opcode::kGemm);
        g.reset = Chance(25);
        LoopNest(g, true, b);
        v.push_back(g);
      } else if (kind <= 7) {
        Instruction a;
        a.opcode = static_cast<int64_t>(Opcode::kAlu);
        a.alu_op = Uniform(0, static_cast<int64_t>(std::size(kAluOps)) - 1);
        a.reset = Chance(5);
        LoopNest(a, false, b);
        const AluOpInfo* info = FindAluOp(a.alu_op);
        if (info->operand == AluOperand::kVecAndImm) {
          a.imm = Uniform(0, info->imm_max);
        } else {
          a.use_imm = Chance(50);
          a.imm = a.alu() == AluOp::kShr ? Uniform(-4, 20) : Uniform(-32768, 32767);
        }
        v.push_back(a);
      } else if (kind == 8) {
        const bool wide = Chance(50);
        v.push_back(RandomMem(Opcode::kLoad, wide ? MemType::kAcc : MemType::kAcc8, b * acc_half_, acc_win_,
                              wide ? at_.acc : at_.acc8, true));
      } else {
        // Reload the uop table (same contents, same place; its size is fixed in AddSegments).
        v.push_back(MemInsn(Opcode::kLoad, MemType::kUop, 0, at_.uop / kUopBytes, 1, 0, 0));
      }
    }
    v.front().pop_prev = 1;
    if (k >= 2) v.front().pop_next = 1;
    if (k + 2 < blocks) v.back().push_prev = 1;
    v.back().push_next = 1;
    // ovl on the block's first GEMM, ALU or LOAD acc/acc8: the older
    // instruction on the other pipe it may overlap is then the previous
    // block's (the other acc and inp halves) or done, when that block has a
    // second compute instruction, which waits for both pipes (a lone ovl one
    // could leave block k-2's running).
    const Instruction& first = v.front();
    if (!timing::TakesBothPipes(first) && prev_compute_ >= 2 && Chance(50)) v.front().ovl = 1;
    prev_compute_ = n;
    return v;
  }

  std::vector<Instruction> StoreBlock(int k, int blocks) {
    const int64_t b = k % 2;
    std::vector<Instruction> v;
    const int n = static_cast<int>(Uniform(1, opts_.max_stores));
    for (int i = 0; i < n; ++i)
      v.push_back(RandomMem(Opcode::kStore, MemType::kOut, b * acc_half_, acc_win_, at_.out, true));
    v.front().pop_prev = 1;
    if (k + 2 < blocks || k == blocks - 1) v.back().push_prev = 1;
    return v;
  }

  void AddSegments(Program& p) {
    // Uop table, now complete: fix the size of every uop LOAD.
    for (Instruction& in : p.insns)
      if (in.op() == Opcode::kLoad && in.mem_type() == MemType::kUop)
        in.x_size = in.x_stride = static_cast<int64_t>(uops_.size());
    Segment uops;
    uops.kind = Segment::Kind::kUops;
    uops.name = "uops";
    uops.addr = at_.uop;
    uops.type = ElemType::kUop;
    for (const Uop& u : uops_) {
      uint32_t w = *EncodeUop(cfg_, u);
      for (int i = 0; i < 4; ++i) uops.bytes.push_back(static_cast<uint8_t>(w >> (8 * i)));
    }
    p.segments.push_back(uops);
    auto data = [&](const char* name, uint64_t addr, MemType m) {
      Segment s;
      s.name = name;
      s.addr = addr;
      s.type = ElemType::kU8;
      s.bytes.resize(static_cast<size_t>(kSrcElems * cfg_.ElementBytes(m)));
      for (auto& byte : s.bytes) byte = static_cast<uint8_t>(rng_());
      p.segments.push_back(std::move(s));
    };
    data("inp", at_.inp, MemType::kInp);
    data("wgt", at_.wgt, MemType::kWgt);
    data("acc", at_.acc, MemType::kAcc);
    data("acc8", at_.acc8, MemType::kAcc8);
  }

  const HwConfig& cfg_;
  std::mt19937_64 rng_;
  RandomProgramOptions opts_;
  int64_t inp_half_, wgt_half_, acc_half_, inp_win_, wgt_win_, acc_win_, out_elems_;
  int prev_compute_ = 0;  // compute instructions of the previous block
  Layout at_;
  std::vector<Uop> uops_;
};

}  // namespace

Program RandomValidProgram(const HwConfig& cfg, uint64_t seed, const RandomProgramOptions& opts) {
  return Generator(cfg, seed, opts).Make();
}

}  // namespace tessera::testing
