#include "sim/timing.h"

#include <array>

#include "isa/base/check.h"
#include "sim/tokens.h"

namespace tessera::timing {

bool PushWaitsForOlder(const Instruction& younger, const Instruction& older) {
  const TokenOps y = TokensOf(younger), o = TokensOf(older);
  for (int i = 0; i < y.n_pushes; ++i)
    for (int k = 0; k < o.n_pushes; ++k)
      if (y.pushes[i] == o.pushes[k]) return true;
  return false;
}

int64_t AluLoopCycles(const HwConfig& cfg, AluOp op, bool reads_source, int64_t outer, int64_t inner,
                      const int64_t* uop_src, int64_t uops, int64_t src_out, int64_t src_in) {
  const int64_t total = outer * inner * uops, passes = total * (AluPassCycles(cfg, op) - 1);
  if (!reads_source || total == 0) return total + passes;
  // Iterations run (outer, inner, uop); one repeats its predecessor's source when
  // the two differ only by offsets that cancel.
  int64_t repeats_in_uops = 0;
  for (int64_t u = 1; u < uops; ++u) repeats_in_uops += uop_src[u] == uop_src[u - 1];
  const int64_t first = uop_src[0], last = uop_src[uops - 1];
  int64_t repeats = outer * inner * repeats_in_uops;
  if (first + src_in == last) repeats += outer * (inner - 1);
  if (first + src_out == last + (inner - 1) * src_in) repeats += outer - 1;
  return total + (total - repeats) + passes;  // the other iterations read a new source row: 2 cycles
}

int64_t FirstStartCycle(const HwConfig& cfg, int64_t count) {
  const Port port = Port::Of(cfg);
  const int64_t n = FetchBlockInsns(cfg, 0, 0, count);
  const uint64_t bytes = static_cast<uint64_t>(n) * kInsnBytes;
  const BurstTiming b = TimeBurst(port, /*write=*/false, 0, 0, Beats(port, 0, bytes));
  return b.completion + 1;  // arrives and is dispatched in `completion`, starts the cycle after
}

namespace {

// Walks the bursts of `d` in issue order: fn(row, addr, bytes).
template <typename Fn>
void ForEachBurst(const Port& port, const DmaShape& d, Fn&& fn) {
  for (int64_t r = 0; r < d.rows; ++r) {
    const uint64_t row = d.addr + static_cast<uint64_t>(r) * d.pitch;
    for (uint64_t off = 0; off < d.row_bytes;) {
      const uint64_t bytes = BurstBytes(port, row + off, d.row_bytes - off);
      fn(r, row + off, bytes);
      off += bytes;
    }
  }
}

}  // namespace

DmaCost DmaAlone(const HwConfig& cfg, const DmaShape& d) {
  const Port port = Port::Of(cfg);
  TSR_CHECK(port.max_outstanding >= 1 && port.max_outstanding <= 256, "max_outstanding {}", port.max_outstanding);
  DmaCost c;
  const int64_t read_start = StoreReadStart(cfg, 0);
  const int64_t ready_floor = d.write ? read_start : LoadBurstsReady(cfg, 0, d.padding);
  std::array<int64_t, 256> completion{};  // ring of the last N_out completions (in order)
  int64_t data_free = 0, last_accept = -1, last_completion = 0;
  ForEachBurst(port, d, [&](int64_t row, uint64_t addr, uint64_t bytes) {
    const int64_t ready = d.write ? StoreRowReady(read_start, d.y_pad0, d.data_rows, d.data_cols, row) : ready_floor;
    int64_t t = std::max(ready, last_accept + 1);
    if (c.bursts >= port.max_outstanding) t = std::max(t, completion[(c.bursts - port.max_outstanding) % 256]);
    const int64_t beats = Beats(port, addr, bytes);
    const BurstTiming b = TimeBurst(port, d.write, t, data_free, beats);
    data_free = b.data + beats;
    completion[c.bursts % 256] = b.completion;
    c.slot_cycles += b.completion - t;
    c.beats += beats;
    ++c.bursts;
    last_accept = t;
    last_completion = b.completion;
  });
  c.cycles = DmaEnd(0, ready_floor, last_completion);
  return c;
}

Traffic DmaTraffic(const HwConfig& cfg, const DmaShape& d) {
  const Port port = Port::Of(cfg);
  Traffic t;
  ForEachBurst(port, d, [&](int64_t, uint64_t addr, uint64_t bytes) {
    ++t.bursts;
    t.beats += Beats(port, addr, bytes);
  });
  return t;
}

}  // namespace tessera::timing
