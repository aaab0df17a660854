#include "sim/core.h"

#include <cstring>

#include "isa/alu.h"
#include "isa/asm.h"
#include "sim/dram.h"
#include "sim/gemm_kernel.h"

namespace tessera {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "DRAM tiles are copied as little-endian host words");

int64_t SignExtend(uint64_t v, int bits) { return alu::Wrap(static_cast<int64_t>(v), bits); }

uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

void WriteLe(uint8_t* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

Scratchpads::Scratchpads(const HwConfig& c)
    : k_even(c.block_in + (c.block_in & 1)),
      inp_stride(c.batch * k_even),
      wgt_stride(k_even * c.block_out),
      acc_stride(c.batch * c.block_out),
      inp(static_cast<size_t>(c.inp_entries) * inp_stride),
      wgt(static_cast<size_t>(c.wgt_entries) * wgt_stride),
      acc(static_cast<size_t>(c.acc_entries) * acc_stride),
      uop(static_cast<size_t>(c.uop_entries)) {}

Status CheckFinishPlacement(const HwConfig& cfg, const Instruction& in, int64_t index, int64_t count) {
  const bool last = index == count - 1;
  if (in.op() == Opcode::kFinish && !last)
    return regs::FaultError(regs::ErrorCode::kIllegalInstruction, index,
                            "instruction {}: FINISH before the end of the stream ({} instructions)", index, count);
  if (last && in.op() != Opcode::kFinish)
    return regs::FaultError(regs::ErrorCode::kIllegalInstruction, index,
                            "instruction {} ({}): the stream must end with FINISH", index, FormatInstruction(cfg, in));
  return OkStatus();
}

Core::Core(const HwConfig& cfg, Dram* dram) : cfg_(cfg), dram_(dram), dram_bytes_(dram->size()), sp_(cfg) {}
Core::Core(const HwConfig& cfg, uint64_t dram_bytes) : cfg_(cfg), dram_(nullptr), dram_bytes_(dram_bytes), sp_(cfg) {}

Status Core::Error(int64_t index, const Instruction& in, const std::string& msg) const {
  return regs::FaultError(regs::ErrorCode::kMemoryFault, index, "instruction {} ({}): {}", index,
                          FormatInstruction(cfg_, in), msg);
}

int64_t Core::SramRows(const Instruction& in) const {
  const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1, cols = in.x_pad0 + in.x_size + in.x_pad1;
  return in.op() == Opcode::kLoad ? rows * cols : in.y_size * in.x_size;
}

Core::DramSpan Core::MemSpan(const Instruction& in) const {
  const uint64_t eb = cfg_.ElementBytes(in.mem_type());
  DramSpan s;
  uint64_t rows = in.y_size, cols = in.x_size;
  if (in.op() == Opcode::kStore) rows += in.y_pad0 + in.y_pad1, cols += in.x_pad0 + in.x_pad1;
  if (rows == 0 || cols == 0) return s;
  s.first_byte = static_cast<uint64_t>(in.dram) * eb;
  s.end_byte = s.first_byte + ((rows - 1) * static_cast<uint64_t>(in.x_stride) + cols) * eb;
  return s;
}

Status Core::CheckMem(const Instruction& in, int64_t index) const {
  const int64_t entries = cfg_.Entries(in.mem_type());
  const int64_t n = SramRows(in);
  if (in.sram + n > entries)
    return Error(index, in,
                 fmt::format("scratchpad range [{}, {}) is outside the {} scratchpad ({} entries)", in.sram,
                             in.sram + n, FindMemType(in.mem)->name, entries));
  DramSpan s = MemSpan(in);
  if (s.end_byte > s.first_byte &&
      (s.first_byte > dram_bytes_ || s.end_byte - s.first_byte > dram_bytes_ - s.first_byte))
    return Error(
        index, in,
        fmt::format("DRAM range [0x{:x}, 0x{:x}) is outside DRAM ({} bytes)", s.first_byte, s.end_byte, dram_bytes_));
  return OkStatus();
}

// Converts `count` consecutive DRAM elements of memory type m into scratchpad
// entries starting at `entry`.
void Core::UnpackRow(MemType m, const uint8_t* src, int64_t entry, int64_t count) {
  const int B = cfg_.batch, K = cfg_.block_in, O = cfg_.block_out;
  switch (m) {
    case MemType::kUop:
      for (int64_t e = 0; e < count; ++e, src += 4) sp_.uop[entry + e] = static_cast<uint32_t>(ReadLe(src, 4));
      return;
    case MemType::kInp: {
      const int eb = cfg_.inp_bits / 8;
      for (int64_t e = 0; e < count; ++e) {
        int16_t* dst = &sp_.inp[(entry + e) * sp_.inp_stride];
        for (int b = 0; b < B; ++b, src += K * eb) {
          int16_t* row = dst + b * sp_.k_even;
          if (eb == 1) {
            const int8_t* s8 = reinterpret_cast<const int8_t*>(src);
            for (int k = 0; k < K; ++k) row[k] = s8[k];
          } else {
            for (int k = 0; k < K; ++k) row[k] = static_cast<int16_t>(ReadLe(src + 2 * k, 2));
          }
        }
      }
      return;
    }
    case MemType::kWgt: {
      const int eb = cfg_.wgt_bits / 8;
      for (int64_t e = 0; e < count; ++e) {
        int16_t* dst = &sp_.wgt[(entry + e) * sp_.wgt_stride];
        for (int o = 0; o < O; ++o)
          for (int k = 0; k < K; ++k, src += eb)
            dst[((k / 2) * O + o) * 2 + (k & 1)] =
                eb == 1 ? static_cast<int16_t>(static_cast<int8_t>(*src)) : static_cast<int16_t>(ReadLe(src, 2));
      }
      return;
    }
    case MemType::kAcc:
    case MemType::kAcc8: {
      const int bits = m == MemType::kAcc ? cfg_.acc_bits : cfg_.out_bits;
      const int64_t lanes = count * B * O;
      int32_t* dst = &sp_.acc[entry * sp_.acc_stride];
      if (bits == 32) {
        std::memcpy(dst, src, static_cast<size_t>(lanes) * 4);  // little-endian host
      } else if (bits == 8) {
        const int8_t* s8 = reinterpret_cast<const int8_t*>(src);
        for (int64_t i = 0; i < lanes; ++i) dst[i] = s8[i];
      } else {
        for (int64_t i = 0; i < lanes; ++i) dst[i] = static_cast<int32_t>(SignExtend(ReadLe(src + 2 * i, 2), 16));
      }
      return;
    }
    case MemType::kOut: break;
  }
  TSR_UNREACHABLE("OUT is not loadable");
}

void Core::FillPad(MemType m, int64_t entry, int64_t count, int64_t value) {
  for (int64_t e = entry; e < entry + count; ++e) {
    switch (m) {
      case MemType::kInp:
        for (int b = 0; b < cfg_.batch; ++b)
          for (int k = 0; k < cfg_.block_in; ++k)
            sp_.inp[e * sp_.inp_stride + b * sp_.k_even + k] = static_cast<int16_t>(value);
        break;
      case MemType::kWgt:
        for (int k = 0; k < cfg_.block_in; ++k)
          for (int o = 0; o < cfg_.block_out; ++o)
            sp_.wgt[e * sp_.wgt_stride + ((k / 2) * cfg_.block_out + o) * 2 + (k & 1)] = static_cast<int16_t>(value);
        break;
      case MemType::kAcc:
      case MemType::kAcc8:
        std::fill_n(&sp_.acc[e * sp_.acc_stride], sp_.acc_stride, static_cast<int32_t>(value));
        break;
      default: TSR_UNREACHABLE("padding of memory type {}", static_cast<int>(m));
    }
  }
}

Status Core::BeginLoad(const Instruction& in, int64_t index) {
  TSR_RETURN_IF_ERROR(CheckMem(in, index));
  const MemType m = in.mem_type();
  const int64_t cols = in.x_pad0 + in.x_size + in.x_pad1;
  const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = in.sram + r * cols;
    if (r < in.y_pad0 || r >= in.y_pad0 + in.y_size) {
      FillPad(m, base, cols, in.pad_value);
      continue;
    }
    if (in.x_pad0) FillPad(m, base, in.x_pad0, in.pad_value);
    if (in.x_pad1) FillPad(m, base + in.x_pad0 + in.x_size, in.x_pad1, in.pad_value);
  }
  return OkStatus();
}

void Core::LoadRow(const Instruction& in, int64_t r, const uint8_t* bytes) {
  const int64_t cols = in.x_pad0 + in.x_size + in.x_pad1;
  UnpackRow(in.mem_type(), bytes, in.sram + (in.y_pad0 + r) * cols + in.x_pad0, in.x_size);
}

Status Core::Load(const Instruction& in, int64_t index) {
  TSR_CHECK(dram_ != nullptr, "Core::Execute(LOAD) on a core without a DRAM");
  TSR_RETURN_IF_ERROR(BeginLoad(in, index));
  if (in.x_size == 0) return OkStatus();
  const int64_t eb = cfg_.ElementBytes(in.mem_type());
  row_buf_.resize(static_cast<size_t>(in.x_size * eb));
  for (int64_t r = 0; r < in.y_size; ++r) {
    const uint64_t addr = (static_cast<uint64_t>(in.dram) + static_cast<uint64_t>(r) * in.x_stride) * eb;
    dram_->ReadUnchecked(addr, row_buf_.data(), row_buf_.size());
    LoadRow(in, r, row_buf_.data());
  }
  return OkStatus();
}

Status Core::BeginStore(const Instruction& in, int64_t index) { return CheckMem(in, index); }

void Core::StoreRow(const Instruction& in, int64_t r, uint8_t* bytes) const {
  const int eb_lane = cfg_.out_bits / 8;
  const int64_t eb = cfg_.out_tile_bytes;
  const int64_t cols = in.x_pad0 + in.x_size + in.x_pad1;
  const int lanes = sp_.acc_stride;
  const bool pad_row = r < in.y_pad0 || r >= in.y_pad0 + in.y_size;
  for (int64_t c = 0; c < cols; ++c) {
    uint8_t* dst = bytes + c * eb;
    if (pad_row || c < in.x_pad0 || c >= in.x_pad0 + in.x_size) {
      for (int i = 0; i < lanes; ++i) WriteLe(dst + i * eb_lane, static_cast<uint64_t>(in.pad_value), eb_lane);
      continue;
    }
    const int64_t entry = in.sram + (r - in.y_pad0) * in.x_size + (c - in.x_pad0);
    const int32_t* acc = &sp_.acc[entry * lanes];
    if (eb_lane == 1) {
      for (int i = 0; i < lanes; ++i) dst[i] = static_cast<uint8_t>(acc[i]);  // wrap to 8 bits
    } else {
      for (int i = 0; i < lanes; ++i) WriteLe(dst + i * eb_lane, static_cast<uint64_t>(acc[i]), eb_lane);
    }
  }
}

Status Core::Store(const Instruction& in, int64_t index) {
  TSR_CHECK(dram_ != nullptr, "Core::Execute(STORE) on a core without a DRAM");
  TSR_RETURN_IF_ERROR(BeginStore(in, index));
  const int64_t eb = cfg_.out_tile_bytes;
  const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1, cols = in.x_pad0 + in.x_size + in.x_pad1;
  row_buf_.resize(static_cast<size_t>(cols * eb));
  for (int64_t r = 0; r < rows; ++r) {
    StoreRow(in, r, row_buf_.data());
    const uint64_t addr = (static_cast<uint64_t>(in.dram) + static_cast<uint64_t>(r) * in.x_stride) * eb;
    dram_->WriteUnchecked(addr, row_buf_.data(), row_buf_.size());
  }
  return OkStatus();
}

Status Core::Gemm(const Instruction& in, int64_t index) {
  const int B = cfg_.batch, O = cfg_.block_out;
  int32_t* acc = sp_.acc.data();
  const int16_t* inp = sp_.inp.data();
  const int16_t* wgt = sp_.wgt.data();
  const int lanes = sp_.acc_stride;
  const bool wrap16 = cfg_.acc_bits < 32;
  if (in.reset)
    return ForEachIteration(in, index, [&](const LoopIndex& ix) { std::fill_n(acc + ix.dst * lanes, lanes, 0); });
  return ForEachIteration(in, index, [&](const LoopIndex& ix) {
    int32_t* a = acc + ix.dst * lanes;
    GemmStep(inp + ix.src * sp_.inp_stride, wgt + ix.wgt * sp_.wgt_stride, a, B, sp_.k_even, O);
    if (wrap16)
      for (int i = 0; i < lanes; ++i) a[i] = static_cast<int32_t>(alu::Wrap(a[i], cfg_.acc_bits));
  });
}

namespace {

// One ALU instruction's loop nest with the operation fixed at compile time, so
// alu::Apply's dispatch folds away and the lane loop vectorizes.
template <AluOp kOp>
Status AluLoop(const Core& core, Scratchpads& sp, const Instruction& in, int64_t index, int bits) {
  int32_t* acc = sp.acc.data();
  const int lanes = sp.acc_stride;
  const int64_t imm = in.imm;
  return core.ForEachIteration(in, index, [&](const LoopIndex& ix) {
    int32_t* d = acc + ix.dst * lanes;
    if (in.reset) {
      std::fill_n(d, lanes, 0);
      return;
    }
    if (in.use_imm) {
      for (int i = 0; i < lanes; ++i) d[i] = static_cast<int32_t>(alu::Apply(kOp, d[i], imm, imm, bits));
    } else {
      const int32_t* src = acc + ix.src * lanes;
      for (int i = 0; i < lanes; ++i) d[i] = static_cast<int32_t>(alu::Apply(kOp, d[i], src[i], imm, bits));
    }
  });
}

}  // namespace

Status Core::Alu(const Instruction& in, int64_t index) {
  switch (in.alu()) {
// clang-format off
#define TSR_ALU_OP(id, ...) \
  case AluOp::id: return AluLoop<AluOp::id>(*this, sp_, in, index, cfg_.acc_bits);
#include "isa/isa.def"
    // clang-format on
  }
  TSR_UNREACHABLE("ALU op {} not validated", in.alu_op);
}

Status Core::Execute(const Instruction& in, int64_t index) {
  Status s;
  switch (in.op()) {
    case Opcode::kLoad: s = Load(in, index); break;
    case Opcode::kStore: s = Store(in, index); break;
    case Opcode::kGemm: s = Gemm(in, index); break;
    case Opcode::kAlu: s = Alu(in, index); break;
    case Opcode::kFinish: break;
  }
  if (s.ok()) Count(in);
  return s;
}

void Core::Count(const Instruction& in) { CountInstruction(cfg_, in, &stats_); }

void CountInstruction(const HwConfig& cfg, const Instruction& in, DeviceCounters* c) {
  c->insns_by_opcode[static_cast<size_t>(in.opcode)] += 1;
  const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1, cols = in.x_pad0 + in.x_size + in.x_pad1;
  switch (in.op()) {
    case Opcode::kLoad:
      c->load_bytes_by_mem[static_cast<size_t>(in.mem)] += in.y_size * in.x_size * cfg.ElementBytes(in.mem_type());
      if (in.mem_type() == MemType::kUop) c->uop_loads += in.y_size * in.x_size;
      break;
    case Opcode::kStore: c->dram_write_bytes += rows * cols * cfg.out_tile_bytes; break;
    case Opcode::kGemm: {
      const int64_t iters = in.iter_out * in.iter_in * (in.uop_end - in.uop_bgn);
      c->gemm_iterations += iters;
      if (!in.reset) c->macs += iters * cfg.macs_per_cycle;
      break;
    }
    case Opcode::kAlu: c->alu_iterations += in.iter_out * in.iter_in * (in.uop_end - in.uop_bgn); break;
    case Opcode::kFinish: break;
  }
}

int64_t Core::AccLane(int64_t entry, int b, int o) const {
  return sp_.acc[entry * sp_.acc_stride + b * cfg_.block_out + o];
}
int64_t Core::InpLane(int64_t entry, int b, int k) const {
  return sp_.inp[entry * sp_.inp_stride + b * sp_.k_even + k];
}
int64_t Core::WgtLane(int64_t entry, int o, int k) const {
  return sp_.wgt[entry * sp_.wgt_stride + ((k / 2) * cfg_.block_out + o) * 2 + (k & 1)];
}

}  // namespace tessera
