// The `rtl` device: one Verilated tsr_accel (hw/rtl, docs/rtl.md) of one
// config, clocked in the calling thread. Its memory is the AXI4 DRAM model
// (driver/rtl/axi_dram.h) on the accelerator's AXI4 master; its register
// window is AXI4-Lite transactions clocked on the model (AW and W presented
// together, the cycle convention of docs/rtl.md); waiting clocks the model
// in slices. Host copies use the DRAM's back door (a host's DMA). With a
// trace, each instruction is a span from its start to its End cycle, read
// from tsr_accel's trace signals (Verilator-public, observation only), as
// sim gives them. The
// template is instantiated once per Verilated config (driver/rtl/model.cc.in),
// so the per-cycle loop is compiled against that model's port widths.
#pragma once

#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "driver/device.h"
#include "driver/rtl/axi_dram.h"
#include "isa/encoding.h"
#include "isa/regs.h"
#include "sim/dram.h"
#include "sim/trace.h"

namespace tessera::rtl {

// Whether the Verilated model V was built with --trace (it then has trace()).
template <class V, class = void>
inline constexpr bool kHasTrace = false;
template <class V>
inline constexpr bool kHasTrace<V, std::void_t<decltype(std::declval<V&>().trace(nullptr, 0))>> = true;

template <class V>
class RtlDevice final : public Device {
 public:
  // `vcd`: a waveform file to write (every cycle from reset), or empty.
  static StatusOr<std::unique_ptr<Device>> Open(const HwConfig& cfg, const DeviceOptions& opts,
                                                const std::string& vcd) {
    std::unique_ptr<RtlDevice> d(new RtlDevice(cfg, opts));
    if (!vcd.empty()) {
      if constexpr (kHasTrace<V>) {
        d->ctx_->traceEverOn(true);
        d->vcd_ = std::make_unique<VerilatedVcdC>();
        d->model_->trace(d->vcd_.get(), 99);
        d->vcd_->open(vcd.c_str());
        if (!d->vcd_->isOpen()) return InvalidArgumentError("--vcd {}: cannot open the file for writing", vcd);
      } else {
        return FailedPreconditionError(
            "--vcd {}: the rtl models of this build have no waveform support; rebuild with cmake -DTESSERA_RTL_VCD=ON",
            vcd);
      }
    }
    d->Reset();
    return std::unique_ptr<Device>(std::move(d));
  }
  ~RtlDevice() override {
    if (vcd_) vcd_->close();
    model_->final();
  }

  bool has_timing() const override { return true; }

  Status Write(uint64_t phys, const void* src, uint64_t n) override {
    Status s = dram_.Write(phys, src, n);
    return s.ok() ? s : s.WithContext("device 'rtl' write");
  }
  Status Read(uint64_t phys, void* dst, uint64_t n) const override {
    Status s = dram_.Read(phys, dst, n);
    return s.ok() ? s : s.WithContext("device 'rtl' read");
  }
  std::vector<std::pair<uint64_t, uint64_t>> PopulatedRanges() const override { return dram_.AllocatedRanges(); }

  uint32_t ReadReg(uint32_t offset) override {
    const uint32_t v = Transact(offset);
    if (offset == regs::kStatus && run_open_ && (v & (regs::kStatusDone | regs::kStatusError))) RunEnded();
    return v;
  }
  void WriteReg(uint32_t offset, uint32_t value) override {
    // The memory sits at the bus address the driver programs (0 unless a
    // board harness places it elsewhere, fpga/zynq/sim).
    if (offset == regs::kDramBaseLo) bus_base_ = (bus_base_ & ~uint64_t{0xFFFFFFFF}) | value;
    if (offset == regs::kDramBaseHi) bus_base_ = (bus_base_ & uint64_t{0xFFFFFFFF}) | (uint64_t{value} << 32);
    if (offset == regs::kDramBaseLo || offset == regs::kDramBaseHi) axi_.set_base(bus_base_);
    if (offset == regs::kInsnAddrLo) insn_addr_ = (insn_addr_ & ~uint64_t{0xFFFFFFFF}) | value;
    if (offset == regs::kInsnAddrHi) insn_addr_ = (insn_addr_ & 0xFFFFFFFF) | uint64_t{value} << 32;
    if (offset == regs::kWatchdogLo) watchdog_ = (watchdog_ & ~uint64_t{0xFFFFFFFF}) | value;
    if (offset == regs::kWatchdogHi) watchdog_ = (watchdog_ & uint64_t{0xFFFFFFFF}) | uint64_t{value} << 32;
    if (offset == regs::kCtrl && (value & regs::kCtrlStart)) {
      slice_ = kFirstSlice;
      run_open_ = true;
      start_cycle_ = axi_.cycle();
    }
    Transact(offset, value);
  }

  // Cycles clocked since the model left reset.
  int64_t cycles() const { return axi_.cycle(); }

 protected:
  // Clocks a slice of cycles (growing while the run goes on), unless the
  // harness has stopped on an error. A run that goes on kWatchdogSlack
  // cycles past its WATCHDOG (the RTL did not stop it) stops the harness.
  void WhileWaiting() override {
    if (!error_.ok()) return;
    for (int64_t i = 0; i < slice_ && axi_.status().ok(); ++i) Cycle();
    slice_ = std::min(slice_ * 2, kMaxSlice);
    if (!axi_.status().ok()) Fail(axi_.status());
    const uint64_t ran = static_cast<uint64_t>(axi_.cycle() - start_cycle_);
    if (run_open_ && watchdog_ > 0 && ran > watchdog_ + kWatchdogSlack)
      Fail(
          DeadlineExceededError("the run is still busy {} cycles after CTRL.START, past its WATCHDOG of {} cycles "
                                "(+{}): the RTL's watchdog did not stop it",
                                ran, watchdog_, kWatchdogSlack));
  }
  Status BackendError() const override { return error_; }
  // ~1 M cycles/s measured (docs/performance.md); 50x slack for a loaded host.
  double MinCyclesPerHostSecond() const override { return 20000; }

 private:
  static constexpr int kLiteTimeoutCycles = 1000;
  static constexpr int64_t kFirstSlice = 64, kMaxSlice = 1 << 16;
  static constexpr int kResetCycles = 4;
  static constexpr uint64_t kWatchdogSlack = 1 << 16;

  RtlDevice(const HwConfig& cfg, const DeviceOptions& opts)
      : Device(cfg, "rtl", 0, cfg.dram_size_bytes, opts),
        ctx_(std::make_unique<VerilatedContext>()),
        dram_(cfg.dram_size_bytes),
        axi_(cfg, &dram_) {
    model_ = std::make_unique<V>(ctx_.get(), "tsr_accel");
  }

  // A run's end moves the trace's device timeline on by the RTL's CYCLES
  // counter (each run starts where the previous one ended).
  void RunEnded() {
    run_open_ = false;
    if (!opts_.trace) return;
    elapsed_ += static_cast<int64_t>(ReadReg64(regs::CounterOffset(regs::CounterIndex(regs::Counter::cycles))));
  }

  // The instruction spans of this cycle (sampled before the edge, i.e. in
  // phase order): an end closes module m's span [start, End] on track 1 + m,
  // named from the instruction in DRAM; a start opens the next one. Bit
  // kNumModules is the compute module's GEMM pipe (timing.compute_overlap),
  // on the compute track.
  void TraceCycle() {
    const auto* r = model_->rootp;
    const uint32_t starts = r->tsr_accel__DOT__trace_start, ends = r->tsr_accel__DOT__trace_end;
    if ((starts | ends) == 0) return;
    const int64_t t = static_cast<int64_t>(r->tsr_accel__DOT__trace_cycle);
    for (int m = 0; m <= kNumModules; ++m) {
      const int track = 1 + (m == kNumModules ? static_cast<int>(Module::kCompute) : m);
      if (ends >> m & 1) {
        const uint32_t index = r->tsr_accel__DOT__trace_index[m];
        Word128 w;
        uint8_t bytes[16] = {};
        (void)dram_.Read(insn_addr_ + 16 * uint64_t{index}, bytes, 16);
        std::memcpy(&w.lo, bytes, 8);
        std::memcpy(&w.hi, bytes + 8, 8);
        auto in = Decode(cfg_, w);
        opts_.trace->Span(track, in.ok() ? InstructionSpanName(*in) : "illegal", elapsed_ + span_start_[m],
                          elapsed_ + t, index);
      }
      if (starts >> m & 1) span_start_[m] = t;
    }
  }

  // One AXI4-Lite read.
  uint32_t Transact(uint32_t offset) {
    model_->s_axil_araddr = static_cast<uint16_t>(offset);
    model_->s_axil_arvalid = 1;
    model_->s_axil_rready = 1;
    for (int i = 0; i < kLiteTimeoutCycles; ++i) {
      const Lite l = Cycle();
      if (l.ar) model_->s_axil_arvalid = 0;
      if (l.r) {
        model_->s_axil_rready = 0;
        return l.rdata;
      }
    }
    model_->s_axil_arvalid = 0;
    model_->s_axil_rready = 0;
    Fail(InternalError("the RTL's register window did not answer a read of 0x{:03x} within {} cycles", offset,
                       kLiteTimeoutCycles));
    return 0;
  }
  // One AXI4-Lite write.
  void Transact(uint32_t offset, uint32_t value) {
    model_->s_axil_awaddr = static_cast<uint16_t>(offset);
    model_->s_axil_awvalid = 1;
    model_->s_axil_wdata = value;
    model_->s_axil_wstrb = 0xF;
    model_->s_axil_wvalid = 1;
    model_->s_axil_bready = 1;
    for (int i = 0; i < kLiteTimeoutCycles; ++i) {
      const Lite l = Cycle();
      if (l.aw) model_->s_axil_awvalid = 0;
      if (l.w) model_->s_axil_wvalid = 0;
      if (l.b) {
        model_->s_axil_bready = 0;
        return;
      }
    }
    model_->s_axil_awvalid = 0;
    model_->s_axil_wvalid = 0;
    model_->s_axil_bready = 0;
    Fail(InternalError("the RTL's register window did not answer a write of 0x{:x} to 0x{:03x} within {} cycles", value,
                       offset, kLiteTimeoutCycles));
  }

  void Fail(Status s) {
    if (error_.ok()) error_ = std::move(s).WithContext("device 'rtl'");
  }

  void Reset() {
    model_->rst = 1;
    for (int i = 0; i < kResetCycles; ++i) Cycle();
    model_->rst = 0;
  }

  // The AXI4-Lite handshakes of one cycle.
  struct Lite {
    bool aw = false, w = false, b = false, ar = false, r = false;
    uint32_t rdata = 0;
  };

  void Drive(const AxiSlaveOut& s) {
    model_->m_axi_arready = 1;
    model_->m_axi_awready = 1;
    model_->m_axi_rvalid = s.rvalid;
    model_->m_axi_rlast = s.rlast;
    model_->m_axi_rid = s.rid;
    model_->m_axi_rresp = s.rresp;
    model_->m_axi_wready = s.wready;
    model_->m_axi_bvalid = s.bvalid;
    model_->m_axi_bid = s.bid;
    model_->m_axi_bresp = s.bresp;
  }
  AxiMasterOut Sample() const {
    AxiMasterOut m;
    m.arvalid = model_->m_axi_arvalid;
    m.arid = model_->m_axi_arid;
    m.araddr = model_->m_axi_araddr;
    m.arlen = model_->m_axi_arlen;
    m.arsize = model_->m_axi_arsize;
    m.arburst = model_->m_axi_arburst;
    m.awvalid = model_->m_axi_awvalid;
    m.awid = model_->m_axi_awid;
    m.awaddr = model_->m_axi_awaddr;
    m.awlen = model_->m_axi_awlen;
    m.awsize = model_->m_axi_awsize;
    m.awburst = model_->m_axi_awburst;
    m.wvalid = model_->m_axi_wvalid;
    m.wlast = model_->m_axi_wlast;
    // Verilator stores every width little-endian, byte lane 0 first.
    m.wdata = reinterpret_cast<const uint8_t*>(&model_->m_axi_wdata);
    m.wstrb = reinterpret_cast<const uint8_t*>(&model_->m_axi_wstrb);
    m.rready = model_->m_axi_rready;
    m.bready = model_->m_axi_bready;
    return m;
  }

  // One clock cycle: the slave's outputs, the model's combinational settle,
  // the handshakes sampled, the rising edge.
  Lite Cycle() {
    uint8_t* rdata = reinterpret_cast<uint8_t*>(&model_->m_axi_rdata);
    Drive(axi_.Outputs(nullptr, rdata));
    model_->clk = 0;
    model_->eval();
    AxiMasterOut m = Sample();
    if (m.awvalid) {  // a write accepted with the channel free moves a beat now
      const AxiSlaveOut s = axi_.Outputs(&m, rdata);
      if (s.wready) {
        Drive(s);
        model_->eval();
        m = Sample();
      }
    }
    Lite l;
    l.aw = model_->s_axil_awvalid && model_->s_axil_awready;
    l.w = model_->s_axil_wvalid && model_->s_axil_wready;
    l.b = model_->s_axil_bvalid && model_->s_axil_bready;
    l.ar = model_->s_axil_arvalid && model_->s_axil_arready;
    l.r = model_->s_axil_rvalid && model_->s_axil_rready;
    l.rdata = model_->s_axil_rdata;
    const uint64_t t = static_cast<uint64_t>(axi_.cycle());
    if (opts_.trace) TraceCycle();
    if (vcd_) vcd_->dump(2 * t);
    // The slave samples the handshakes before the edge: m.wdata and m.wstrb
    // point into the model, which the edge moves on to the next beat.
    axi_.Edge(m);
    model_->clk = 1;
    model_->eval();
    if (vcd_) vcd_->dump(2 * t + 1);
    return l;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> model_;
  std::unique_ptr<VerilatedVcdC> vcd_;
  Dram dram_;
  AxiDram axi_;
  int64_t slice_ = kFirstSlice;
  Status error_;
  bool run_open_ = false;    // START written, DONE/ERROR not yet seen
  uint64_t insn_addr_ = 0;   // INSN_ADDR as written (the trace names instructions from DRAM)
  uint64_t watchdog_ = 0;    // WATCHDOG as written
  int64_t start_cycle_ = 0;  // the cycle CTRL.START was written in
  int64_t span_start_[kNumModules + 1] = {};
  int64_t elapsed_ = 0;    // device cycles of all earlier runs (the trace's timeline)
  uint64_t bus_base_ = 0;  // DRAM_BASE as written
};

}  // namespace tessera::rtl
