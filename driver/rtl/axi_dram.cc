#include "driver/rtl/axi_dram.h"

#include <cstring>

#include "isa/base/check.h"

namespace tessera::rtl {

const char* AxiRuleName(AxiViolation::Rule r) {
  switch (r) {
    case AxiViolation::Rule::kTwoRequests: return "ARVALID and AWVALID in the same cycle";
    case AxiViolation::Rule::kOutstanding: return "a burst request with N_out bursts outstanding";
    case AxiViolation::Rule::kBurstShape: return "a burst that is not INCR of the port's beat size";
    case AxiViolation::Rule::kPageCrossing: return "a burst crossing a 4 KiB boundary";
    case AxiViolation::Rule::kReadyLow: return "RREADY or BREADY low while the slave answers";
    case AxiViolation::Rule::kWriteDataLate: return "WVALID low in a write data cycle";
    case AxiViolation::Rule::kWlast: return "WLAST not on exactly the last beat";
    case AxiViolation::Rule::kStrobes: return "write strobes that are not one run from the address into the last beat";
  }
  return "?";
}

AxiDram::AxiDram(const HwConfig& cfg, Dram* dram, uint64_t base)
    : timing_(timing::Port::Of(cfg)), port_(cfg), dram_(dram), base_(base), size_log2_(0) {
  while ((int64_t{1} << size_log2_) < timing_.bytes_per_cycle) ++size_log2_;
}

Status AxiDram::status() const {
  if (!violation_) return OkStatus();
  const AxiViolation& v = *violation_;
  return FailedPreconditionError(
      "AXI4 protocol violation by the accelerator in cycle {} (burst ID {} at bus address 0x{:x}): {}: {}", v.cycle,
      v.id, v.addr, AxiRuleName(v.rule), v.detail);
}

void AxiDram::Violate(AxiViolation::Rule rule, const Burst* b, std::string detail) {
  if (violation_) return;
  violation_ = AxiViolation{rule, now_, b ? b->id : uint8_t{0}, b ? b->addr : 0, std::move(detail)};
}

AxiSlaveOut AxiDram::Outputs(const AxiMasterOut* req, uint8_t* rdata) {
  AxiSlaveOut& s = driven_;
  s = AxiSlaveOut();
  if (!bursts_.empty() && bursts_.front().data <= now_) {
    const Burst& b = bursts_.front();
    if (b.write) {
      s.wready = true;
    } else {
      s.rvalid = true;
      s.rid = b.id;
      s.rresp = b.resp;
      s.rlast = b.beat == b.beats - 1;
      ReadBeat(b, rdata);
    }
  } else if (req && req->awvalid && !req->arvalid && port_.CanAccept()) {
    // A write accepted now with the channel free moves its first beat now.
    const int64_t beats = int64_t{req->awlen} + 1;
    s.wready = timing::TimeBurst(timing_, true, now_, port_.data_free(), beats).data == now_;
  }
  if (!responses_.empty() && responses_.front().response == now_) {
    s.bvalid = true;
    s.bid = responses_.front().id;
    s.bresp = responses_.front().resp;
  }
  return s;
}

void AxiDram::Accept(bool write, uint8_t id, uint64_t addr, uint8_t len, uint8_t size, uint8_t burst) {
  const uint64_t bpc = static_cast<uint64_t>(timing_.bytes_per_cycle);
  const int64_t beats = int64_t{len} + 1;
  Burst b{write, id, kAxiOkay, addr, beats, 0, 0};
  if (!port_.CanAccept()) {
    Violate(AxiViolation::Rule::kOutstanding, &b,
            fmt::format("{} bursts outstanding, N_out = {}; the request is dropped", port_.outstanding(),
                        timing_.max_outstanding));
    return;
  }
  if (size != size_log2_ || burst != kAxiBurstIncr)
    Violate(AxiViolation::Rule::kBurstShape, &b,
            fmt::format("SIZE {} BURST {}, expected SIZE {} (B = {}) BURST 1 (INCR)", size, burst, size_log2_, bpc));
  const uint64_t aligned = addr - addr % bpc;
  const uint64_t span = static_cast<uint64_t>(beats) * bpc;
  if (aligned % timing::kBurstBoundaryBytes + span > timing::kBurstBoundaryBytes)
    Violate(AxiViolation::Rule::kPageCrossing, &b, fmt::format("{} beats of {} bytes from 0x{:x}", beats, bpc, addr));
  if (!InDram(aligned, span)) b.resp = kAxiDecErr;
  const MemPort::Grant g = port_.Accept(addr, span - addr % bpc, write, now_);
  b.data = g.data;
  b.response = g.completion - 1;
  b.next_byte = addr;
  bursts_.push_back(b);
}

void AxiDram::ReadBeat(const Burst& b, uint8_t* rdata) const {
  const uint64_t bpc = static_cast<uint64_t>(timing_.bytes_per_cycle);
  if (b.resp != kAxiOkay) {
    std::memset(rdata, 0, bpc);
    return;
  }
  const uint64_t at = b.addr - b.addr % bpc + static_cast<uint64_t>(b.beat) * bpc;
  dram_->ReadUnchecked(at - base_, rdata, bpc);
}

void AxiDram::WriteBeat(Burst& b, const AxiMasterOut& m) {
  const uint64_t bpc = static_cast<uint64_t>(timing_.bytes_per_cycle);
  const uint64_t at = b.addr - b.addr % bpc + static_cast<uint64_t>(b.beat) * bpc;
  const bool last = b.beat == b.beats - 1;
  if (m.wlast != last)
    Violate(AxiViolation::Rule::kWlast, &b, fmt::format("WLAST {} on beat {} of {}", m.wlast, b.beat, b.beats));
  auto strobe = [&](uint64_t lane) { return (m.wstrb[lane / 8] >> (lane % 8)) & 1; };
  int marked = 0;
  for (uint64_t lane = 0; lane < bpc;) {
    if (!strobe(lane)) {
      ++lane;
      continue;
    }
    uint64_t end = lane;
    while (end < bpc && strobe(end)) ++end;
    if (at + lane != b.next_byte || b.strobes_done)
      Violate(AxiViolation::Rule::kStrobes, &b,
              fmt::format("beat {} marks bytes from 0x{:x}, the run expects 0x{:x}", b.beat, at + lane, b.next_byte));
    if (b.resp == kAxiOkay) dram_->WriteUnchecked(at + lane - base_, m.wdata + lane, end - lane);
    b.next_byte = at + end;
    if (end < bpc) b.strobes_done = true;
    marked += static_cast<int>(end - lane);
    lane = end;
  }
  if (marked == 0 && b.next_byte > b.addr) b.strobes_done = true;
  if (last && marked == 0)
    Violate(AxiViolation::Rule::kStrobes, &b,
            fmt::format("the last of {} beats marks no byte: LEN is larger than the beat formula gives", b.beats));
}

void AxiDram::Edge(const AxiMasterOut& m) {
  // Requests first: a write accepted with the channel free moves a beat now.
  if (m.arvalid && m.awvalid) Violate(AxiViolation::Rule::kTwoRequests, nullptr, "both handshakes taken");
  if (m.arvalid) Accept(false, m.arid, m.araddr, m.arlen, m.arsize, m.arburst);
  if (m.awvalid) Accept(true, m.awid, m.awaddr, m.awlen, m.awsize, m.awburst);

  if (!bursts_.empty() && bursts_.front().data <= now_) {
    Burst& b = bursts_.front();
    TSR_CHECK(b.write ? driven_.wready : driven_.rvalid, "cycle {}: a beat the slave's outputs did not announce", now_);
    if (b.write) {
      if (m.wvalid)
        WriteBeat(b, m);
      else
        Violate(AxiViolation::Rule::kWriteDataLate, &b, fmt::format("beat {} of {}", b.beat, b.beats));
    } else if (!m.rready) {
      Violate(AxiViolation::Rule::kReadyLow, &b, fmt::format("RREADY low on beat {} of {}", b.beat, b.beats));
    }
    if (++b.beat == b.beats) {
      if (b.write) responses_.push_back(b);
      bursts_.pop_front();
    }
  }
  if (!responses_.empty() && responses_.front().response == now_) {
    if (!m.bready) Violate(AxiViolation::Rule::kReadyLow, &responses_.front(), "BREADY low with BVALID");
    responses_.pop_front();
  }
  ++now_;
  port_.Retire(now_);
}

}  // namespace tessera::rtl
