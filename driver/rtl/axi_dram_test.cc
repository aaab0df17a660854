// The AXI4 DRAM model against the numbers of docs/microarch.md (its worked
// examples' bursts, written out here, not recomputed through sim/timing.h),
// its data path (narrow unaligned first beats, strobes, DECERR outside DRAM)
// and every protocol check. A scripted master drives it cycle by cycle.
#include "driver/rtl/axi_dram.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tests/support/random_isa.h"

namespace tessera::rtl {
namespace {

// A request or a write beat the script presents in a cycle.
struct Request {
  bool write = false;
  uint8_t id = 0;
  uint64_t addr = 0;
  int beats = 1;
};

// What the slave drove in one cycle.
struct Seen {
  AxiSlaveOut out;
  std::vector<uint8_t> rdata;
};

class Master {
 public:
  explicit Master(const HwConfig& cfg, uint64_t dram_bytes = 1 << 20)
      : dram_(dram_bytes), slave_(cfg, &dram_), b_(static_cast<size_t>(cfg.dram_bytes_per_cycle)) {}

  // Requests presented in a cycle; write beats are presented in the order
  // queued, one in each cycle the slave drives WREADY.
  void At(int64_t cycle, Request r) { requests_[cycle].push_back(r); }

  // Runs cycles [now, until); records the slave's outputs.
  void RunTo(int64_t until) {
    while (slave_.cycle() < until) Step();
  }
  void Step() {
    const int64_t t = slave_.cycle();
    AxiMasterOut m;
    m.rready = rready_;
    m.bready = true;
    std::vector<uint8_t> wdata(b_, 0), wstrb((b_ + 7) / 8, 0);
    m.wdata = wdata.data();
    m.wstrb = wstrb.data();
    for (const Request& r : requests_[t]) {
      const uint64_t bpc = b_;
      if (r.write) {
        m.awvalid = true;
        m.awid = r.id;
        m.awaddr = r.addr;
        m.awlen = static_cast<uint8_t>(r.beats - 1);
        m.awsize = static_cast<uint8_t>(__builtin_ctzll(bpc));
        m.awburst = kAxiBurstIncr;
      } else {
        m.arvalid = true;
        m.arid = r.id;
        m.araddr = r.addr;
        m.arlen = static_cast<uint8_t>(r.beats - 1);
        m.arsize = static_cast<uint8_t>(__builtin_ctzll(bpc));
        m.arburst = kAxiBurstIncr;
      }
    }
    Seen s;
    s.rdata.assign(b_, 0xEE);
    s.out = slave_.Outputs(m.arvalid || m.awvalid ? &m : nullptr, s.rdata.data());
    if (s.out.wready && write_beat_ < static_cast<int>(write_beats_.size())) {
      const auto& [bytes, strb, last] = write_beats_[static_cast<size_t>(write_beat_)];
      wdata = bytes;
      wstrb = strb;
      m.wdata = wdata.data();
      m.wstrb = wstrb.data();
      m.wvalid = wvalid_;
      m.wlast = last;
      ++write_beat_;
    }
    seen_[t] = s;
    slave_.Edge(m);
  }

  // Prepares the beats of a write burst (strobes exactly [addr, addr + bytes.size())).
  void QueueWrite(uint64_t addr, const std::vector<uint8_t>& bytes, int beats, bool last_ok = true) {
    const uint64_t bpc = b_;
    const uint64_t aligned = addr - addr % bpc;
    for (int k = 0; k < beats; ++k) {
      std::vector<uint8_t> d(b_, 0), s((b_ + 7) / 8, 0);
      for (uint64_t lane = 0; lane < bpc; ++lane) {
        const uint64_t a = aligned + static_cast<uint64_t>(k) * bpc + lane;
        if (a >= addr && a < addr + bytes.size()) {
          d[lane] = bytes[a - addr];
          s[lane / 8] |= static_cast<uint8_t>(1u << (lane % 8));
        }
      }
      write_beats_.push_back({d, s, (k == beats - 1) == last_ok});
    }
  }

  const Seen& seen(int64_t t) { return seen_.at(t); }
  std::vector<int64_t> Cycles(bool AxiSlaveOut::*field) const {
    std::vector<int64_t> v;
    for (const auto& [t, s] : seen_)
      if (s.out.*field) v.push_back(t);
    return v;
  }
  Dram& dram() { return dram_; }
  AxiDram& slave() { return slave_; }
  void set_rready(bool v) { rready_ = v; }
  void set_wvalid(bool v) { wvalid_ = v; }

 private:
  Dram dram_;
  AxiDram slave_;
  size_t b_;
  std::map<int64_t, std::vector<Request>> requests_;
  std::vector<std::tuple<std::vector<uint8_t>, std::vector<uint8_t>, bool>> write_beats_;
  int write_beat_ = 0;
  bool rready_ = true, wvalid_ = true;
  std::map<int64_t, Seen> seen_;
};

HwConfig Default() { return tessera::testing::LoadConfigOrDie("configs/default.json"); }

std::vector<int64_t> Range(int64_t a, int64_t b) {
  std::vector<int64_t> v;
  for (int64_t t = a; t < b; ++t) v.push_back(t);
  return v;
}

// "A single LOAD": the fetch of 2 instructions (32 bytes, 2 beats) accepted in
// cycle 0 has data in 32..33 and arrives in 34; the LOAD's 64-byte burst
// accepted in 37 has data 69..72 and completes in 73.
TEST(AxiDram, SingleLoadExample) {
  Master m(Default());
  m.At(0, {false, 0, 0x1000, 2});
  m.At(37, {false, 3, 0x2000, 4});
  m.RunTo(80);
  std::vector<int64_t> want = Range(32, 34);
  for (int64_t t : Range(69, 73)) want.push_back(t);
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::rvalid), want);
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::rlast), (std::vector<int64_t>{33, 72}));
  EXPECT_EQ(m.seen(32).out.rid, 0);
  EXPECT_EQ(m.seen(69).out.rid, 3);
  EXPECT_TRUE(m.Cycles(&AxiSlaveOut::wready).empty());
  EXPECT_TRUE(m.Cycles(&AxiSlaveOut::bvalid).empty());
  EXPECT_TRUE(m.slave().status().ok()) << m.slave().status().ToString();
}

// The outstanding slot frees in the completion cycle (phase 1): 34 for the
// fetch, so a request in cycle 34 may take it. (outstanding() is the count
// in the current cycle.)
TEST(AxiDram, OutstandingUntilCompletion) {
  Master m(Default());
  m.At(0, {false, 0, 0x1000, 2});
  m.RunTo(33);
  EXPECT_EQ(m.slave().outstanding(), 1);
  m.Step();
  EXPECT_EQ(m.slave().cycle(), 34);
  EXPECT_EQ(m.slave().outstanding(), 0);
}

// "LOAD -> GEMM -> ALU -> STORE": the fetch (96 bytes, 6 beats) accepted in 0
// has data 32..37; compute's 4-byte uop burst accepted in 41 has data in 73;
// load's 32-byte burst accepted in 42 waits for the channel: 74..75; the
// store's 1-beat write accepted in 99 moves its data in 99, its response in
// 131 (the burst completes in 132 = 99 + 1 + 32).
TEST(AxiDram, LoadGemmStoreChainExample) {
  Master m(Default());
  m.At(0, {false, 0, 0x1000, 6});
  m.At(41, {false, 1, 0x3000, 1});
  m.At(42, {false, 3, 0x4000, 2});
  std::vector<uint8_t> row(16);
  for (size_t i = 0; i < row.size(); ++i) row[i] = static_cast<uint8_t>(i + 1);
  m.QueueWrite(0x5000, row, 1);
  m.At(99, {true, 2, 0x5000, 1});
  m.RunTo(140);
  std::vector<int64_t> reads = Range(32, 38);
  reads.push_back(73);
  reads.push_back(74);
  reads.push_back(75);
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::rvalid), reads);
  EXPECT_EQ(m.seen(73).out.rid, 1);
  EXPECT_EQ(m.seen(74).out.rid, 3);
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::wready), (std::vector<int64_t>{99}));
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::bvalid), (std::vector<int64_t>{131}));
  EXPECT_EQ(m.seen(131).out.bid, 2);
  EXPECT_EQ(m.seen(131).out.bresp, kAxiOkay);
  std::vector<uint8_t> back(16);
  ASSERT_TRUE(m.dram().Read(0x5000, back.data(), 16).ok());
  EXPECT_EQ(back, row);
  EXPECT_TRUE(m.slave().status().ok()) << m.slave().status().ToString();
}

// Writes share the channel with reads in acceptance order: a write accepted
// while a read's data is pending waits for it (d = max(t, data_free)).
TEST(AxiDram, WriteWaitsForEarlierReadData) {
  Master m(Default());
  m.At(0, {false, 1, 0x1000, 4});  // data 32..35
  std::vector<uint8_t> bytes(32, 7);
  m.QueueWrite(0x8000, bytes, 2);
  m.At(1, {true, 2, 0x8000, 2});  // data 36..37, response 36 + 2 + 32 - 1
  m.RunTo(80);
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::wready), (std::vector<int64_t>{36, 37}));
  EXPECT_EQ(m.Cycles(&AxiSlaveOut::bvalid), (std::vector<int64_t>{69}));
  EXPECT_TRUE(m.slave().status().ok()) << m.slave().status().ToString();
}

// A narrow unaligned first beat: 20 bytes at 0x1003 with B = 16 are 2 beats
// (ceil((3 + 20) / 16)); reading them back puts byte 0x1003 in lane 3.
TEST(AxiDram, UnalignedBurstDataLanes) {
  Master m(Default());
  std::vector<uint8_t> bytes(20);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(0x40 + i);
  m.QueueWrite(0x1003, bytes, 2);
  m.At(0, {true, 2, 0x1003, 2});
  m.At(5, {false, 3, 0x1003, 2});
  m.RunTo(60);
  ASSERT_TRUE(m.slave().status().ok()) << m.slave().status().ToString();
  std::vector<uint8_t> back(22);
  ASSERT_TRUE(m.dram().Read(0x1002, back.data(), back.size()).ok());
  EXPECT_EQ(back[0], 0);
  EXPECT_EQ(back[21], 0);
  EXPECT_EQ(std::vector<uint8_t>(back.begin() + 1, back.end() - 1), bytes);
  const auto reads = m.Cycles(&AxiSlaveOut::rvalid);
  ASSERT_EQ(reads.size(), 2u);
  EXPECT_EQ(m.seen(reads[0]).rdata[3], 0x40);
  EXPECT_EQ(m.seen(reads[1]).rdata[6], 0x40 + 19);
}

TEST(AxiDram, OutsideDramAnswersDecerr) {
  Master m(Default(), 1 << 16);
  m.At(0, {false, 3, 1 << 16, 1});
  m.RunTo(40);
  const auto reads = m.Cycles(&AxiSlaveOut::rvalid);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_EQ(m.seen(reads[0]).out.rresp, kAxiDecErr);
  EXPECT_TRUE(m.slave().status().ok());
}

// N_out requests are fine; one more is a violation.
TEST(AxiDram, OutstandingLimit) {
  HwConfig cfg = Default();
  {
    Master m(cfg);
    for (int i = 0; i < cfg.dram_max_outstanding; ++i) m.At(i, {false, 1, 0x1000u + 64u * i, 1});
    m.RunTo(60);
    EXPECT_TRUE(m.slave().status().ok()) << m.slave().status().ToString();
  }
  Master m(cfg);
  for (int i = 0; i <= cfg.dram_max_outstanding; ++i) m.At(i, {false, 1, 0x1000u + 64u * i, 1});
  m.RunTo(60);
  ASSERT_TRUE(m.slave().violation().has_value());
  EXPECT_EQ(m.slave().violation()->rule, AxiViolation::Rule::kOutstanding);
  EXPECT_EQ(m.slave().violation()->cycle, cfg.dram_max_outstanding);
  EXPECT_EQ(m.slave().status().code(), StatusCode::kFailedPrecondition);
}

AxiViolation::Rule ViolationOf(Master& m, int64_t run_to) {
  m.RunTo(run_to);
  EXPECT_TRUE(m.slave().violation().has_value());
  return m.slave().violation() ? m.slave().violation()->rule : AxiViolation::Rule::kTwoRequests;
}

TEST(AxiDram, ProtocolViolations) {
  const HwConfig cfg = Default();
  {
    Master m(cfg);
    m.At(3, {false, 1, 0x1000, 1});
    m.At(3, {true, 2, 0x2000, 1});
    m.QueueWrite(0x2000, std::vector<uint8_t>(16, 1), 1);
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kTwoRequests);
  }
  {
    Master m(cfg);
    m.At(0, {false, 1, 0x1FF8, 2});  // 0x1FF0 + 32 crosses 0x2000
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kPageCrossing);
  }
  {
    Master m(cfg);
    m.set_rready(false);
    m.At(0, {false, 1, 0x1000, 1});
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kReadyLow);
  }
  {
    Master m(cfg);
    m.set_wvalid(false);
    m.QueueWrite(0x2000, std::vector<uint8_t>(16, 1), 1);
    m.At(0, {true, 2, 0x2000, 1});
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kWriteDataLate);
  }
  {
    Master m(cfg);
    m.QueueWrite(0x2000, std::vector<uint8_t>(32, 1), 2, /*last_ok=*/false);
    m.At(0, {true, 2, 0x2000, 2});
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kWlast);
  }
  {
    // LEN one beat too long: 16 bytes at 0x2000 sent as 2 beats.
    Master m(cfg);
    m.QueueWrite(0x2000, std::vector<uint8_t>(16, 1), 2);
    m.At(0, {true, 2, 0x2000, 2});
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kStrobes);
  }
  {
    // Strobes that start below the burst's address.
    Master m(cfg);
    m.QueueWrite(0x2000, std::vector<uint8_t>(16, 1), 1);
    m.At(0, {true, 2, 0x2004, 1});
    EXPECT_EQ(ViolationOf(m, 60), AxiViolation::Rule::kStrobes);
  }
}

// Other beat widths and latencies (B = 4 on tiny and ice40-up5k, 32 on large). The data channel is
// shared: the read accepted in cycle 1 gets it at max(1 + L, 4), after the write's 4 beats.
TEST(AxiDram, BeatWidthOfEveryConfig) {
  for (const std::string& path : tessera::testing::BundledConfigPaths()) {
    const HwConfig cfg = tessera::testing::LoadConfigOrDie(path);
    const int64_t b = cfg.dram_bytes_per_cycle, l = cfg.dram_latency_cycles;
    Master m(cfg);
    std::vector<uint8_t> bytes(static_cast<size_t>(3 * b));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    m.QueueWrite(0x3000 + 1, bytes, 4);  // 3B bytes from lane 1: 4 beats
    m.At(0, {true, 2, 0x3000 + 1, 4});
    m.At(1, {false, 3, 0x3000 + 1, 4});
    m.RunTo(4 + 2 * l + 20);
    ASSERT_TRUE(m.slave().status().ok()) << path << ": " << m.slave().status().ToString();
    EXPECT_EQ(m.Cycles(&AxiSlaveOut::wready), Range(0, 4)) << path;
    EXPECT_EQ(m.Cycles(&AxiSlaveOut::bvalid), (std::vector<int64_t>{4 + l - 1})) << path;
    const int64_t d = std::max<int64_t>(1 + l, 4);
    EXPECT_EQ(m.Cycles(&AxiSlaveOut::rvalid), Range(d, d + 4)) << path;
    std::vector<uint8_t> back(bytes.size());
    ASSERT_TRUE(m.dram().Read(0x3001, back.data(), back.size()).ok());
    EXPECT_EQ(back, bytes) << path;
  }
}

}  // namespace
}  // namespace tessera::rtl
