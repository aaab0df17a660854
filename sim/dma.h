// The bursts of one LOAD/STORE in issue order (docs/microarch.md, "LOAD",
// "STORE"): which DRAM row comes next, from which cycle its bursts are
// ready, and when the instruction may issue its next request. The rules are
// sim/timing.h's; this is their bookkeeping, shared by the engines that issue
// bursts cycle by cycle (sim's timing engine, the SystemC model's modules).
#pragma once

#include <algorithm>
#include <cstdint>

#include "isa/config.h"
#include "isa/isa.h"
#include "sim/timing.h"

namespace tessera {

struct DmaBursts {
  bool active = false, write = false;
  uint64_t elem = 0, dram = 0, x_stride = 0, row_bytes = 0;
  int64_t rows = 0, row = 0;
  uint64_t offset = 0;     // bytes of the current row already requested
  int64_t padding = 0;     // LOAD: padding entries written first
  int64_t ready_base = 0;  // LOAD: R0; STORE: the cycle the out scratchpad read starts
  int64_t y_pad0 = 0, y_size = 0, x_size = 0;
  int64_t last_accept = -1, last_completion = 0;

  // The LOAD/STORE `in` starting in cycle `start`.
  static DmaBursts Start(const HwConfig& cfg, const Instruction& in, int64_t start) {
    DmaBursts d;
    d.active = true;
    d.write = in.op() == Opcode::kStore;
    d.elem = static_cast<uint64_t>(cfg.ElementBytes(in.mem_type()));
    d.dram = static_cast<uint64_t>(in.dram);
    d.x_stride = static_cast<uint64_t>(in.x_stride);
    d.y_pad0 = in.y_pad0, d.y_size = in.y_size, d.x_size = in.x_size;
    const int64_t rows = in.y_pad0 + in.y_size + in.y_pad1, cols = in.x_pad0 + in.x_size + in.x_pad1;
    if (d.write) {
      d.rows = cols > 0 ? rows : 0;
      d.row_bytes = static_cast<uint64_t>(cols) * d.elem;
      d.ready_base = timing::StoreReadStart(cfg, start);
    } else {
      d.padding = timing::LoadPaddingEntries(in.y_pad0, in.y_size, in.y_pad1, in.x_pad0, in.x_size, in.x_pad1);
      d.rows = in.x_size > 0 ? in.y_size : 0;
      d.row_bytes = static_cast<uint64_t>(in.x_size) * d.elem;
      d.ready_base = timing::LoadBurstsReady(cfg, start, d.padding);
    }
    return d;
  }

  bool Done() const { return row >= rows; }
  uint64_t RowAddr() const { return (dram + static_cast<uint64_t>(row) * x_stride) * elem; }
  int64_t RowReady() const {
    return write ? timing::StoreRowReady(ready_base, y_pad0, y_size, x_size, row) : ready_base;
  }
  // The cycle from which the next burst may be requested (one request per cycle).
  int64_t NextReady() const { return std::max(RowReady(), last_accept + 1); }
  // The next burst: its byte address and size.
  uint64_t NextAddr() const { return RowAddr() + offset; }
  uint64_t NextBytes(const timing::Port& p) const { return timing::BurstBytes(p, NextAddr(), row_bytes - offset); }
  // The next burst of `bytes` was accepted in cycle t and completes in `completion`.
  void Accepted(uint64_t bytes, int64_t t, int64_t completion) {
    last_accept = t;
    last_completion = std::max(last_completion, completion);
    offset += bytes;
    if (offset == row_bytes) ++row, offset = 0;
  }
};

}  // namespace tessera
