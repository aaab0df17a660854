// tsr_regs (Verilated at one config) against isa/regs.def: reset values,
// random live inputs (STATUS, ERROR_*, the counters at counters.bits, those
// not built reading 0), read-write words read back as written and as 0 after
// a reset, read-only words ignoring writes, the CTRL strobes in the write's
// cycle, and a read taken with a write waiting a cycle and seeing the write.
// Usage: rtl_regs_test CONFIG.json
#include "isa/regs.h"

#include <cstdio>
#include <iterator>
#include <random>

#include "Vtsr_regs.h"
#include "isa/config.h"
#include "isa/counters.h"
#include "tests/support/random_isa.h"
#include "verilated.h"

using namespace tessera;

namespace {

long failures = 0;
#define EXPECT_EQ32(a, b, what)                                                                   \
  do {                                                                                            \
    const uint32_t x_ = (a), y_ = (b);                                                            \
    if (x_ != y_ && ++failures <= 20) std::printf("%s: rtl %08x, expected %08x\n", what, x_, y_); \
  } while (0)

class Bench {
 public:
  Bench() { Reset(); }
  void Reset() {
    m_.rst = 1;
    Tick();
    Tick();
    m_.rst = 0;
  }
  void Tick() {
    m_.clk = 0;
    m_.eval();
    m_.clk = 1;
    m_.eval();
  }
  // One read; `with_write` offers a write of `wv` to `wa` in the same cycle.
  uint32_t Read(uint32_t a, bool with_write = false, uint32_t wa = 0, uint32_t wv = 0) {
    m_.s_axil_araddr = a;
    m_.s_axil_arvalid = 1;
    m_.s_axil_rready = 1;
    if (with_write) Offer(wa, wv);
    for (int i = 0; i < 10; ++i) {
      m_.eval();
      const bool ar = m_.s_axil_arready, wr = m_.s_axil_awready;
      if (with_write && i == 0 && ar) ++failures, std::printf("a read taken with a write\n");
      Tick();
      if (wr) m_.s_axil_awvalid = m_.s_axil_wvalid = 0;
      if (ar) m_.s_axil_arvalid = 0;
      if (m_.s_axil_rvalid) {
        const uint32_t v = m_.s_axil_rdata;
        Tick();
        m_.s_axil_rready = 0;
        m_.s_axil_bready = 1;
        Tick();
        return v;
      }
    }
    ++failures;
    std::printf("no read data for %03x\n", a);
    return 0;
  }
  // One write; returns the CTRL strobes seen in its handshake cycle.
  uint32_t Write(uint32_t a, uint32_t v) {
    Offer(a, v);
    uint32_t strobes = 0;
    for (int i = 0; i < 10 && m_.s_axil_awvalid; ++i) {
      m_.eval();
      const bool taken = m_.s_axil_awready;
      if (taken) strobes = m_.ctrl_start | m_.ctrl_abort << 1 | m_.ctrl_clear << 2;
      Tick();
      if (taken) m_.s_axil_awvalid = m_.s_axil_wvalid = 0;
    }
    if (m_.s_axil_awvalid) {
      ++failures;
      std::printf("write to %03x never taken\n", a);
      m_.s_axil_awvalid = m_.s_axil_wvalid = 0;
    }
    Tick();
    return strobes;
  }
  Vtsr_regs m_;

 private:
  void Offer(uint32_t a, uint32_t v) {
    m_.s_axil_awaddr = a;
    m_.s_axil_wdata = v;
    m_.s_axil_wstrb = 0xF;
    m_.s_axil_awvalid = m_.s_axil_wvalid = 1;
    m_.s_axil_bready = 1;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CONFIG.json\n", argv[0]);
    return 2;
  }
  const HwConfig cfg = testing::LoadConfigOrDie(argv[1]);
  std::mt19937_64 rng(7);
  Bench b;
  Vtsr_regs& m = b.m_;
  uint32_t status_bits = 0;  // STATUS reads only its defined bits
  for (const regs::BitInfo& bit : regs::kBits)
    if (bit.reg == regs::kStatus) status_bits |= 1u << bit.bit;
  const uint64_t ctr_mask = cfg.counter_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << cfg.counter_bits) - 1;
  for (int round = 0; round < 3; ++round) {
    // Live inputs, then every register and counter word.
    m.status = static_cast<uint32_t>(rng());
    m.error_code = static_cast<uint32_t>(rng() % std::size(regs::kErrors));
    m.error_insn = rng() % 2 ? regs::kNoInsn : static_cast<uint32_t>(rng() % 8192);
    std::vector<uint64_t> ctr(regs::kNumCounters);
    for (uint32_t i = 0; i < regs::kNumCounters; ++i) {
      ctr[i] = rng();
      m.counters[2 * i] = static_cast<uint32_t>(ctr[i]);
      m.counters[2 * i + 1] = static_cast<uint32_t>(ctr[i] >> 32);
      if (!CounterRegisterBuilt(cfg, i)) ctr[i] = 0;
      ctr[i] &= ctr_mask;
    }
    for (const regs::RegInfo& r : regs::kRegs) {
      uint32_t want = regs::ResetValue(r, cfg.isa_fingerprint);
      if (r.offset == regs::kStatus) want = m.status & status_bits;
      if (r.offset == regs::kErrorCode) want = m.error_code;
      if (r.offset == regs::kErrorInsn) want = m.error_insn;
      EXPECT_EQ32(b.Read(r.offset), want, std::string(r.name).c_str());
    }
    for (uint32_t i = 0; i < regs::kNumCounters; ++i) {
      EXPECT_EQ32(b.Read(regs::CounterOffset(i)), static_cast<uint32_t>(ctr[i]), "counter lo");
      EXPECT_EQ32(b.Read(regs::CounterOffset(i) + 4), static_cast<uint32_t>(ctr[i] >> 32), "counter hi");
    }
    EXPECT_EQ32(b.Read(regs::kRegisterWindowBytes), 0u, "past the window");
    EXPECT_EQ32(b.Read(regs::kInsnAddrLo + 1), 0u, "misaligned");
    // Writes: read-write words read back (IRQ_ENABLE: bit 0), the others ignore them.
    for (const regs::RegInfo& r : regs::kRegs) {
      if (r.access == regs::Access::kW) continue;
      const uint32_t before = b.Read(r.offset), v = static_cast<uint32_t>(rng());
      b.Write(r.offset, v);
      const uint32_t want = r.access != regs::Access::kRW ? before : r.offset == regs::kIrqEnable ? v & 1 : v;
      EXPECT_EQ32(b.Read(r.offset), want, std::string(r.name).c_str());
    }
    EXPECT_EQ32(m.insn_count, b.Read(regs::kInsnCount), "insn_count output");
    EXPECT_EQ32(static_cast<uint32_t>(m.watchdog >> 32), b.Read(regs::kWatchdogHi), "watchdog output");
    // A read offered with a write waits for it and sees the new value.
    EXPECT_EQ32(b.Read(regs::kDramBaseHi, true, regs::kDramBaseHi, 0x12345u + round), 0x12345u + round,
                "read beside a write");
    EXPECT_EQ32(b.Write(regs::kCtrl, regs::kCtrlStart | regs::kCtrlClear), regs::kCtrlStart | regs::kCtrlClear,
                "CTRL strobes");
    EXPECT_EQ32(b.Read(regs::kCtrl), 0u, "CTRL reads 0");
    b.Reset();  // the read-write words read their reset value again
  }
  std::printf("tsr_regs: %ld failures\n", failures);
  return failures == 0 ? 0 : 1;
}
