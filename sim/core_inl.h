// Template part of sim/core.h: the GEMM/ALU loop nest with bounds checks.
#pragma once

#include <fmt/format.h>

#include <chrono>

#include "isa/asm.h"
#include "isa/config.h"
#include "isa/regs.h"

namespace tessera {

template <typename Fn>
Status Core::ForEachIteration(const Instruction& in, int64_t index, Fn&& fn) const {
  const bool gemm = in.op() == Opcode::kGemm;
  const bool reads_src = !in.reset && (gemm || !in.use_imm);
  const bool reads_wgt = gemm && !in.reset;
  const int64_t src_limit = gemm ? cfg_.inp_entries : cfg_.acc_entries;
  const FieldSlot& fd = cfg_.layout.uop_slot(UopFieldId::dst);
  const FieldSlot& fs = cfg_.layout.uop_slot(UopFieldId::src);
  const FieldSlot& fw = cfg_.layout.uop_slot(UopFieldId::wgt);
  auto field = [](uint32_t w, const FieldSlot& s) {
    return s.width == 0 ? int64_t{0} : static_cast<int64_t>((w >> s.lsb) & ((uint64_t{1} << s.width) - 1));
  };
  const int64_t n_uops = in.uop_end - in.uop_bgn;
  LoopIndex small[64];
  std::vector<LoopIndex> big;
  LoopIndex* uops = small;
  if (n_uops > 64) {
    big.resize(n_uops);
    uops = big.data();
  }
  for (int64_t u = 0; u < n_uops; ++u) {
    uint32_t w = sp_.uop[in.uop_bgn + u];
    uops[u] = LoopIndex{field(w, fd), field(w, fs), gemm ? field(w, fw) : 0};
  }
  int64_t since_check = 0;  // iterations since the deadline was last read
  for (int64_t i0 = 0; i0 < in.iter_out; ++i0) {
    for (int64_t i1 = 0; i1 < in.iter_in; ++i1) {
      if (has_deadline_ && (since_check += n_uops + 1) >= (int64_t{1} << 20)) {
        since_check = 0;
        if (std::chrono::steady_clock::now() > deadline_)
          return regs::FaultError(
              regs::ErrorCode::kWatchdog, -1,
              "timeout: the host-time limit passed in instruction {} ({}) at iteration i0={} i1={} of {}x{}x{}", index,
              FormatInstruction(cfg_, in), i0, i1, in.iter_out, in.iter_in, n_uops);
      }
      const int64_t d_off = i0 * in.dst_out + i1 * in.dst_in;
      const int64_t s_off = i0 * in.src_out + i1 * in.src_in;
      const int64_t w_off = gemm ? i0 * in.wgt_out + i1 * in.wgt_in : 0;
      for (int64_t u = 0; u < n_uops; ++u) {
        LoopIndex ix{uops[u].dst + d_off, uops[u].src + s_off, uops[u].wgt + w_off};
        const char* bad = nullptr;
        int64_t value = 0, limit = 0;
        if (ix.dst >= cfg_.acc_entries)
          bad = "acc", value = ix.dst, limit = cfg_.acc_entries;
        else if (reads_src && ix.src >= src_limit)
          bad = gemm ? "inp" : "acc (source)", value = ix.src, limit = src_limit;
        else if (reads_wgt && ix.wgt >= cfg_.wgt_entries)
          bad = "wgt", value = ix.wgt, limit = cfg_.wgt_entries;
        if (bad != nullptr)
          return Error(index, in,
                       fmt::format("iteration i0={} i1={} uop {}: {} index {} is outside the scratchpad ({} entries)",
                                   i0, i1, in.uop_bgn + u, bad, value, limit));
        fn(ix);
      }
    }
  }
  return OkStatus();
}

}  // namespace tessera
