// Checks fpga/ice40/rtl/tsr_uart_bridge.v, Verilated with the board memory
// (tsr_bridge_tb.v): frames go in bit by bit on the UART line, the test plays
// the AXI4-Lite slave of the register window and decodes the replies. Every
// command, random memory traffic against a host copy, and the error paths:
// bad CRC, unknown command, bad length, out-of-range memory, a slave error, a
// UART framing error, a truncated frame, noise before a frame, a retransmitted
// write (answered, not executed twice).
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "Vtsr_bridge_tb.h"
#include "driver/fpga/uart_protocol.h"

namespace {

using tessera::fpga::Cmd;
using tessera::fpga::EncodeRequest;
using tessera::fpga::ReplyStatus;
constexpr int kCpb = 4;                 // the bench's CLKS_PER_BIT
constexpr uint32_t kMemBytes = 131072;  // the bench's MEM_BYTES

long failures = 0;
#define EXPECT(c)                                                          \
  do {                                                                     \
    if (!(c)) {                                                            \
      ++failures;                                                          \
      std::fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c); \
    }                                                                      \
  } while (0)

struct Reply {
  bool got = false;
  uint8_t status = 0xFF, tag = 0;
  std::vector<uint8_t> payload;
  bool crc_ok = false;
};

class Bench {
 public:
  Bench() {
    m_.rst = 1;
    for (int i = 0; i < 4; ++i) Tick();
    m_.rst = 0;
  }

  // The host side of the line: `bad_stop` sends the byte with a low stop bit.
  void SendByte(uint8_t b, bool bad_stop = false) {
    Level(0);
    for (int i = 0; i < 8; ++i) Level((b >> i) & 1);
    Level(bad_stop ? 0 : 1);
    if (bad_stop) Level(1);
  }
  void Send(const std::vector<uint8_t>& f) {
    for (uint8_t b : f) SendByte(b);
  }
  // Runs until a reply with `payload` bytes (if OK) is decoded or `cycles` pass.
  Reply Receive(size_t payload, long cycles = 200000) {
    Reply r;
    rx_.clear();
    for (long c = 0; c < cycles; ++c) {
      Tick();
      if (rx_.size() >= 3 && rx_[0] == tessera::fpga::kSyncReply) {
        const size_t want = 3 + (rx_[1] == 0 ? payload : 0) + 1;
        if (rx_.size() == want) {
          r.got = true;
          r.status = rx_[1];
          r.tag = rx_[2];
          r.payload.assign(rx_.begin() + 3, rx_.end() - 1);
          r.crc_ok = tessera::fpga::Crc8(0, rx_.data() + 1, want - 2) == rx_.back();
          for (int i = 0; i < 50 * kCpb; ++i) Tick();  // the line settles
          return r;
        }
      }
    }
    return r;
  }
  Reply Transact(Cmd cmd, uint8_t tag, uint32_t addr, uint16_t len, const uint8_t* payload) {
    Send(EncodeRequest(cmd, tag, addr, len, payload));
    return Receive(tessera::fpga::ReplyPayloadBytes(cmd, len));
  }
  // A frame the bridge must refuse before any payload: its error reply.
  Reply Refused(const std::vector<uint8_t>& frame) {
    Send(frame);
    return Receive(0);
  }
  void Idle(long cycles) {
    for (long c = 0; c < cycles; ++c) Tick();
  }

  std::map<uint32_t, uint32_t> regs;  // the slave's registers
  uint32_t error_addr = 0xFFC;        // answers SLVERR
  long reg_writes = 0, reg_reads = 0;
  bool extra_bytes = false;  // bytes seen after a reply (must not happen)

 private:
  void Level(int v) {
    for (int i = 0; i < kCpb; ++i) line_.push_back(static_cast<uint8_t>(v));
  }
  void Tick() {
    m_.awready = 1;
    m_.wready = 1;
    m_.arready = 1;
    m_.bvalid = b_pending_;
    m_.bresp = b_resp_;
    m_.rvalid = r_pending_;
    m_.rdata = r_data_;
    m_.rresp = r_resp_;
    m_.rx = line_.empty() ? 1 : line_.front();
    if (!line_.empty()) line_.pop_front();
    m_.clk = 0;
    m_.eval();
    const bool aw = m_.awvalid, w = m_.wvalid, ar = m_.arvalid, b = b_pending_ && m_.bready,
               r = r_pending_ && m_.rready;
    const uint32_t awaddr = m_.awaddr, wdata = m_.wdata, araddr = m_.araddr;
    m_.clk = 1;
    m_.eval();
    if (b) b_pending_ = false;
    if (r) r_pending_ = false;
    if (aw) aw_addr_ = awaddr, have_aw_ = true;
    if (w) w_data_ = wdata, have_w_ = true;
    if (have_aw_ && have_w_ && !b_pending_) {
      have_aw_ = have_w_ = false;
      b_pending_ = true;
      b_resp_ = aw_addr_ == error_addr ? 2 : 0;
      if (b_resp_ == 0) regs[aw_addr_] = w_data_;
      ++reg_writes;
    }
    if (ar && !r_pending_) {
      r_pending_ = true;
      r_resp_ = araddr == error_addr ? 2 : 0;
      r_data_ = regs.count(araddr) ? regs[araddr] : 0xDEAD0000u | araddr;
      ++reg_reads;
    }
    // Decode the bridge's line: sample each bit in its middle.
    const int tx = m_.tx;
    if (tx_count_ == 0) {
      if (!tx) tx_count_ = 1;
    } else {
      ++tx_count_;
      if (tx_count_ % kCpb == kCpb / 2 && tx_count_ / kCpb >= 1 && tx_count_ / kCpb <= 8)
        tx_byte_ |= static_cast<uint8_t>(tx << (tx_count_ / kCpb - 1));
      if (tx_count_ == 9 * kCpb + kCpb / 2) {
        rx_.push_back(tx_byte_);
        tx_byte_ = 0;
        tx_count_ = 0;
      }
    }
  }

  Vtsr_bridge_tb m_;
  std::deque<uint8_t> line_;
  std::vector<uint8_t> rx_;
  int tx_count_ = 0;
  uint8_t tx_byte_ = 0;
  bool b_pending_ = false, r_pending_ = false, have_aw_ = false, have_w_ = false;
  uint8_t b_resp_ = 0, r_resp_ = 0;
  uint32_t aw_addr_ = 0, w_data_ = 0, r_data_ = 0;
};

uint32_t Le32(const std::vector<uint8_t>& p) {
  return p.size() < 4 ? 0 : p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

int main() {
  Bench tb;
  std::mt19937 rng(12);
  uint8_t tag = 0;
  auto ok = [](const Reply& r) { return r.got && r.crc_ok && r.status == 0; };
  auto is = [](const Reply& r, ReplyStatus st) { return r.got && r.status == static_cast<uint8_t>(st); };

  // Registers: a write is one AXI4-Lite write with its address and data, a read returns the slave's data.
  const uint8_t v[4] = {0x78, 0x56, 0x34, 0x12};
  Reply r = tb.Transact(Cmd::kRegWrite, ++tag, 0x010, 4, v);
  EXPECT(ok(r) && r.tag == tag && r.payload.empty());
  EXPECT(tb.regs[0x010] == 0x12345678u && tb.reg_writes == 1);
  r = tb.Transact(Cmd::kRegRead, ++tag, 0x010, 4, nullptr);
  EXPECT(ok(r) && Le32(r.payload) == 0x12345678u && r.tag == tag);
  r = tb.Transact(Cmd::kRegRead, ++tag, 0x004, 4, nullptr);
  EXPECT(ok(r) && Le32(r.payload) == 0xDEAD0004u);

  // A retransmission (same tag as the write just done) is answered without a second write.
  r = tb.Transact(Cmd::kRegWrite, tag + 1, 0x014, 4, v);
  EXPECT(ok(r) && tb.reg_writes == 2);
  r = tb.Transact(Cmd::kRegWrite, tag + 1, 0x014, 4, v);
  EXPECT(ok(r) && tb.reg_writes == 2);
  tag += 1;

  // Memory: random word-aligned writes of 4..256 bytes, read back against a host copy.
  std::vector<uint8_t> host(kMemBytes, 0);
  std::vector<uint8_t> buf(256);
  for (int i = 0; i < 60; ++i) {
    const uint16_t len = static_cast<uint16_t>(4 * (1 + rng() % 64));
    const uint32_t addr = 4 * (rng() % ((kMemBytes - len) / 4 + 1));
    for (int k = 0; k < len; ++k) buf[k] = static_cast<uint8_t>(rng());
    r = tb.Transact(Cmd::kMemWrite, ++tag, addr, len, buf.data());
    EXPECT(ok(r));
    std::copy(buf.begin(), buf.begin() + len, host.begin() + addr);
    const uint32_t raddr = i % 2 ? addr : 4 * (rng() % (kMemBytes / 4 - 64));
    r = tb.Transact(Cmd::kMemRead, ++tag, raddr, 256, nullptr);
    EXPECT(ok(r) && r.payload.size() == 256 && std::equal(r.payload.begin(), r.payload.end(), host.begin() + raddr));
  }
  // The last word of memory.
  const uint8_t w[4] = {1, 2, 3, 4};
  EXPECT(ok(tb.Transact(Cmd::kMemWrite, ++tag, 131068, 4, w)));
  std::copy(w, w + 4, host.begin() + 131068);
  r = tb.Transact(Cmd::kMemRead, ++tag, 131068, 4, nullptr);
  EXPECT(ok(r) && Le32(r.payload) == 0x04030201u);

  // Bad CRC: rejected, nothing executed.
  const long writes = tb.reg_writes;
  std::vector<uint8_t> f = EncodeRequest(Cmd::kRegWrite, ++tag, 0x018, 4, v);
  f.back() ^= 0x01;
  tb.Send(f);
  r = tb.Receive(0);
  EXPECT(is(r, ReplyStatus::kBadCrc) && r.crc_ok && r.tag == tag);
  EXPECT(tb.reg_writes == writes && tb.regs.count(0x018) == 0);
  // A garbled payload byte of a memory write: memory unchanged.
  f = EncodeRequest(Cmd::kMemWrite, ++tag, 0x100, 4, w);
  f[10] ^= 0x80;
  tb.Send(f);
  r = tb.Receive(0);
  EXPECT(is(r, ReplyStatus::kBadCrc));
  r = tb.Transact(Cmd::kMemRead, ++tag, 0x100, 4, nullptr);
  EXPECT(ok(r) && std::equal(r.payload.begin(), r.payload.end(), host.begin() + 0x100));

  // Unknown command and bad lengths: the rest of the frame is discarded, then the error.
  r = tb.Refused(EncodeRequest(static_cast<Cmd>(9), ++tag, 0, 4, nullptr));
  EXPECT(is(r, ReplyStatus::kBadCommand) && r.crc_ok);
  r = tb.Refused(EncodeRequest(Cmd::kMemRead, ++tag, 0x102, 4, nullptr));
  EXPECT(is(r, ReplyStatus::kBadLength));
  r = tb.Refused(EncodeRequest(Cmd::kMemRead, ++tag, 0, 260, nullptr));
  EXPECT(is(r, ReplyStatus::kBadLength));
  r = tb.Refused(EncodeRequest(Cmd::kRegRead, ++tag, 0, 2, nullptr));
  EXPECT(is(r, ReplyStatus::kBadLength));

  // Outside memory, outside the register window, a slave error: bus errors.
  r = tb.Transact(Cmd::kMemRead, ++tag, kMemBytes - 4, 8, nullptr);
  EXPECT(is(r, ReplyStatus::kBusError));
  r = tb.Transact(Cmd::kRegRead, ++tag, 0x1000, 4, nullptr);
  EXPECT(is(r, ReplyStatus::kBusError));
  r = tb.Transact(Cmd::kRegWrite, ++tag, tb.error_addr, 4, v);
  EXPECT(is(r, ReplyStatus::kBusError) && r.crc_ok);
  r = tb.Transact(Cmd::kRegRead, ++tag, tb.error_addr, 4, nullptr);
  EXPECT(is(r, ReplyStatus::kBusError) && r.payload.empty());
  // Address bits above the memory's and the window's (the bridge keeps 17 and a flag), a sum that
  // wraps 32 bits, a length's high byte: errors; the last 256 bytes of memory are in range.
  const long reads = tb.reg_reads;
  for (uint32_t a : {0x00020000u, 0x80000000u, 0x01000100u, 0xFFFFFFFCu}) {
    r = tb.Transact(Cmd::kMemRead, ++tag, a, 8, nullptr);
    EXPECT(is(r, ReplyStatus::kBusError));
    r = tb.Transact(Cmd::kMemWrite, ++tag, a, 4, w);
    EXPECT(is(r, ReplyStatus::kBusError));
    r = tb.Transact(Cmd::kRegRead, ++tag, (a & ~0xFFFu) | 0x010, 4, nullptr);
    EXPECT(is(r, ReplyStatus::kBusError));
  }
  EXPECT(tb.reg_reads == reads);
  r = tb.Transact(Cmd::kMemRead, ++tag, kMemBytes - 256, 256, nullptr);
  EXPECT(ok(r) && std::equal(r.payload.begin(), r.payload.end(), host.end() - 256));
  r = tb.Refused(EncodeRequest(Cmd::kMemRead, ++tag, 0, 0x1004, nullptr));
  EXPECT(is(r, ReplyStatus::kBadLength));
  r = tb.Refused(EncodeRequest(Cmd::kRegRead, ++tag, 0x010, 0x0104, nullptr));
  EXPECT(is(r, ReplyStatus::kBadLength));

  // A UART framing error inside a frame.
  f = EncodeRequest(Cmd::kRegRead, ++tag, 0x010, 4, nullptr);
  for (size_t i = 0; i < f.size(); ++i) tb.SendByte(f[i], i == 4);
  r = tb.Receive(0);
  EXPECT(is(r, ReplyStatus::kFraming));

  // A truncated frame is dropped silently; noise before a frame is skipped.
  f = EncodeRequest(Cmd::kRegWrite, ++tag, 0x01C, 4, v);
  f.resize(6);
  tb.Send(f);
  r = tb.Receive(0, 3000);
  EXPECT(!r.got && tb.regs.count(0x01C) == 0);
  tb.Send({0x00, 0xFF, 0x13});
  r = tb.Transact(Cmd::kRegRead, ++tag, 0x010, 4, nullptr);
  EXPECT(ok(r) && Le32(r.payload) == 0x12345678u);

  if (failures) {
    std::fprintf(stderr, "uart bridge: %ld failures\n", failures);
    return 1;
  }
  std::printf("uart bridge: all checks passed (%d frames)\n", tag);
  return 0;
}
