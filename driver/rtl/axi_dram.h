// The memory side of the timing contract (docs/microarch.md, "The memory
// port") as a cycle-by-cycle AXI4 slave, for the Verilated RTL
// (docs/rtl-interface: AR/AW always ready, one data channel shared by reads
// and writes in acceptance order, read data `L` cycles after acceptance,
// write responses `L` cycles after the last beat, `B` bytes a beat). When
// data moves and a burst completes is sim's MemPort (sim/mem_port.h, the
// rules of sim/timing.h); this class only turns it into handshakes and
// bytes. It checks the master against the contract: one request a cycle,
// at most N_out outstanding, INCR bursts of the port's size that stay in a
// 4 KiB page, WVALID in every write data cycle with WLAST on the last beat,
// one contiguous run of write strobes that ends in the last beat (LEN
// matches the beat formula), RREADY/BREADY high. A violation is recorded as
// data (the first one; the slave keeps running) for the harness to report.
//
// Per cycle the harness calls Outputs() (drive RVALID/WREADY/BVALID and the
// read beat), evaluates the model, and calls Edge() with the master's
// outputs sampled before the clock edge. A write accepted with the channel
// free has data in its acceptance cycle, so WREADY can depend on this
// cycle's AWVALID: Outputs() takes the master's request when it has one.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "isa/base/status.h"
#include "isa/config.h"
#include "sim/dram.h"
#include "sim/mem_port.h"

namespace tessera::rtl {

// The master's outputs in one cycle. wdata/wstrb point at B bytes and
// ceil(B/8) bytes, lane 0 first (Verilator's little-endian storage).
struct AxiMasterOut {
  bool arvalid = false;
  uint8_t arid = 0, arlen = 0, arsize = 0, arburst = 0;
  uint64_t araddr = 0;
  bool awvalid = false;
  uint8_t awid = 0, awlen = 0, awsize = 0, awburst = 0;
  uint64_t awaddr = 0;
  bool wvalid = false, wlast = false;
  const uint8_t* wdata = nullptr;
  const uint8_t* wstrb = nullptr;
  bool rready = false, bready = false;
};

// The slave's outputs in one cycle; the read beat goes to a B-byte buffer.
struct AxiSlaveOut {
  bool rvalid = false, rlast = false, wready = false, bvalid = false;
  uint8_t rid = 0, rresp = 0, bid = 0, bresp = 0;
};

inline constexpr uint8_t kAxiOkay = 0, kAxiDecErr = 3, kAxiBurstIncr = 1;

// What the master did wrong, the first time.
struct AxiViolation {
  enum class Rule {
    kTwoRequests,    // ARVALID and AWVALID in one cycle
    kOutstanding,    // a request with N_out bursts outstanding
    kBurstShape,     // SIZE is not log2(B) or BURST is not INCR
    kPageCrossing,   // a burst crossing a 4 KiB boundary
    kReadyLow,       // RREADY low during a read beat or BREADY low with BVALID
    kWriteDataLate,  // WVALID low in a write data cycle
    kWlast,          // WLAST not exactly on the last beat
    kStrobes,        // strobes not one run from the address to the last beat
  };
  Rule rule;
  int64_t cycle = 0;  // the slave's cycle (cycles since the model left reset)
  uint8_t id = 0;     // the burst's AXI ID (the requester)
  uint64_t addr = 0;  // the burst's bus address
  std::string detail;
};
const char* AxiRuleName(AxiViolation::Rule r);

class AxiDram {
 public:
  // Serves bus addresses [base, base + dram->size()) from `dram`; others answer DECERR.
  AxiDram(const HwConfig& cfg, Dram* dram, uint64_t base = 0);

  // The outputs for the current cycle; `req`: the master's outputs this
  // cycle when it presents a request (a write may get WREADY at once).
  AxiSlaveOut Outputs(const AxiMasterOut* req, uint8_t* rdata);
  // The clock edge ending the current cycle, with the master's outputs.
  void Edge(const AxiMasterOut& m);

  int64_t cycle() const { return now_; }
  // Moves the memory to bus address `base` (between runs: the register
  // window's DRAM_BASE, where a board's driver places the DMA buffer).
  void set_base(uint64_t base) { base_ = base; }
  int outstanding() const { return port_.outstanding(); }
  bool idle() const { return bursts_.empty() && port_.outstanding() == 0; }
  int64_t bursts() const { return port_.bursts(); }
  int64_t data_beats() const { return port_.data_busy_cycles(); }
  // The first violation, or nothing.
  const std::optional<AxiViolation>& violation() const { return violation_; }
  // OK, or the first violation as a FailedPrecondition naming it.
  Status status() const;

 private:
  struct Burst {
    bool write;
    uint8_t id, resp;
    uint64_t addr;           // bus address of the first byte (unaligned)
    int64_t beats, data;     // data cycles [data, data + beats)
    int64_t response;        // write: the BVALID cycle
    int64_t beat = 0;        // next beat on the channel
    uint64_t next_byte = 0;  // write: the next byte the strobes must mark (0: none yet)
    bool strobes_done = false;
  };
  void Violate(AxiViolation::Rule rule, const Burst* b, std::string detail);
  void Accept(bool write, uint8_t id, uint64_t addr, uint8_t len, uint8_t size, uint8_t burst);
  void ReadBeat(const Burst& b, uint8_t* rdata) const;
  void WriteBeat(Burst& b, const AxiMasterOut& m);
  bool InDram(uint64_t bus, uint64_t n) const { return bus >= base_ && dram_->InBounds(bus - base_, n); }

  timing::Port timing_;
  MemPort port_;
  Dram* dram_;
  uint64_t base_;
  uint8_t size_log2_;
  int64_t now_ = 0;
  std::deque<Burst> bursts_;     // data phase not finished, acceptance order
  std::deque<Burst> responses_;  // writes waiting for their B handshake
  std::optional<AxiViolation> violation_;
  AxiSlaveOut driven_;  // the outputs of the current cycle
};

}  // namespace tessera::rtl
