// The AXI4-Lite register window (isa/regs.def via the generated header; the
// behaviour is docs/device-protocol.md "Register map"). One write (AW and W
// together) and one read in flight; a read waits while a write is taken in
// the same cycle; responses are OKAY. Writes to read-only or unmapped offsets
// are ignored, reads of write-only or unmapped ones return 0. Counters read
// as two 32-bit halves at TSR_COUNTER_BASE + 8 i. The read-write words read
// back from a copy in a small RAM (block RAM on an FPGA), so the read
// multiplexer has only the live and constant words.
// Contract: ctrl_* are high in the cycle of the write handshake (they act
// at the edge that ends it, the edge that takes the write).
module tsr_regs (
    input  logic                      clk,
    input  logic                      rst,
    input  logic [              11:0] s_axil_awaddr,
    input  logic                      s_axil_awvalid,
    output logic                      s_axil_awready,
    input  logic [              31:0] s_axil_wdata,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [               3:0] s_axil_wstrb,   // full-word writes only
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic                      s_axil_wvalid,
    output logic                      s_axil_wready,
    output logic [               1:0] s_axil_bresp,
    output logic                      s_axil_bvalid,
    input  logic                      s_axil_bready,
    input  logic [              11:0] s_axil_araddr,
    input  logic                      s_axil_arvalid,
    output logic                      s_axil_arready,
    output logic [              31:0] s_axil_rdata,
    output logic [               1:0] s_axil_rresp,
    output logic                      s_axil_rvalid,
    input  logic                      s_axil_rready,
    output logic [              63:0] insn_addr,
    output logic [              31:0] insn_count,
    output logic [              63:0] watchdog,
    output logic [              63:0] dram_base,
    output logic                      irq_en,
    output logic                      ctrl_start,
    output logic                      ctrl_abort,
    output logic                      ctrl_clear,
    input  logic [              31:0] status,
    input  logic [              31:0] error_code,
    input  logic [              31:0] error_insn,
    /* verilator lint_off UNUSEDSIGNAL */  // counters not built, bits above counters.bits
    input  logic [64*NCTR-1:0]        counters
    /* verilator lint_on UNUSEDSIGNAL */
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int NCTR = TSR_NUM_COUNTERS;

  logic wr;
  assign wr = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid;
  assign s_axil_awready = wr;
  assign s_axil_wready = wr;
  assign s_axil_bresp = 2'b00;
  assign s_axil_rresp = 2'b00;
  assign s_axil_arready = !s_axil_rvalid && !wr;

  logic [31:0] waddr;
  assign waddr = 32'(s_axil_awaddr);
  assign ctrl_start = wr && waddr == TSR_REG_CTRL && s_axil_wdata[TSR_BIT_CTRL_START];
  assign ctrl_abort = wr && waddr == TSR_REG_CTRL && s_axil_wdata[TSR_BIT_CTRL_ABORT];
  assign ctrl_clear = wr && waddr == TSR_REG_CTRL && s_axil_wdata[TSR_BIT_CTRL_CLEAR];

  always_ff @(posedge clk) begin
    if (rst) begin
      insn_addr <= '0;
      insn_count <= '0;
      watchdog <= '0;
      dram_base <= '0;
      irq_en <= 1'b0;
      s_axil_bvalid <= 1'b0;
    end else begin
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 1'b0;
      if (wr) begin
        s_axil_bvalid <= 1'b1;
        case (waddr)
          TSR_REG_INSN_ADDR_LO: insn_addr[31:0] <= s_axil_wdata;
          TSR_REG_INSN_ADDR_HI: insn_addr[63:32] <= s_axil_wdata;
          TSR_REG_INSN_COUNT: insn_count <= s_axil_wdata;
          TSR_REG_WATCHDOG_LO: watchdog[31:0] <= s_axil_wdata;
          TSR_REG_WATCHDOG_HI: watchdog[63:32] <= s_axil_wdata;
          TSR_REG_IRQ_ENABLE: irq_en <= s_axil_wdata[0];
          TSR_REG_DRAM_BASE_LO: dram_base[31:0] <= s_axil_wdata;
          TSR_REG_DRAM_BASE_HI: dram_base[63:32] <= s_axil_wdata;
          default: ;
        endcase
      end
    end
  end

  // The read-back copy of the read-write words below the counters
  // (TSR_REG_RW_WORDS, from regs.def; IRQ_ENABLE's one bit stays live),
  // written with them; a word not written since reset reads 0 (its `written`
  // bit). A read and a write are never taken in the same cycle.
  localparam int NC = TSR_COUNTER_BASE / 4;
  localparam int CI_W = $clog2(NC);
  localparam logic [NC-1:0] COPY = TSR_REG_RW_WORDS & ~(NC'(1) << (TSR_REG_IRQ_ENABLE / 4));
  logic [31:0] copy_q, live_q;
  logic [NC-1:0] written;
  logic copy_sel;
  logic [CI_W-1:0] wi, ri;
  assign wi = s_axil_awaddr[2+:CI_W];
  assign ri = s_axil_araddr[2+:CI_W];
  wire w_copy = wr && 32'(s_axil_awaddr) < TSR_COUNTER_BASE && s_axil_awaddr[1:0] == 2'b00 && COPY[wi];
  wire re = s_axil_arvalid && s_axil_arready;
  wire r_copy = 32'(s_axil_araddr) < TSR_COUNTER_BASE && s_axil_araddr[1:0] == 2'b00 && COPY[ri] && written[ri];
  tsr_sdp_ram #(
      .DEPTH(NC),
      .WIDTH(32)
  ) u_copy (
      .clk(clk),
      .we(w_copy),
      .waddr(wi),
      .wdata(s_axil_wdata),
      .re(re),
      .raddr(ri),
      .rdata(copy_q)
  );

  // The live and constant words: an AND-OR over the window's words (the
  // counters' at counters.bits; those not built, TSR_COUNTER_BUILT, are
  // constant zero and fold away, as do the bits above counters.bits).
  localparam int NW = TSR_REG_WINDOW_BYTES / 4;
  localparam int CTR_W = TSR_CFG_COUNTERS_BITS;
  localparam logic [31:0] STATUS_BITS = 32'((1 << TSR_BIT_STATUS_DONE) | (1 << TSR_BIT_STATUS_BUSY) |
                                            (1 << TSR_BIT_STATUS_ERROR));
  logic [31:0] words[NW];
  always_comb begin
    for (int k = 0; k < NW; k++) words[k] = '0;
    words[TSR_REG_ID/4] = TSR_ID_MAGIC;
    words[TSR_REG_VERSION/4] = TSR_PROTOCOL_VERSION;
    words[TSR_REG_STATUS/4] = status & STATUS_BITS;
    words[TSR_REG_ERROR_CODE/4] = error_code;
    words[TSR_REG_ERROR_INSN/4] = error_insn;
    words[TSR_REG_IRQ_ENABLE/4] = {31'd0, irq_en};
    words[TSR_REG_FINGERPRINT_LO/4] = TSR_FINGERPRINT[31:0];
    words[TSR_REG_FINGERPRINT_HI/4] = TSR_FINGERPRINT[63:32];
    for (int k = 0; k < NCTR; k++) begin
      if (TSR_COUNTER_BUILT[k]) begin
        words[TSR_COUNTER_BASE/4+2*k] = counters[64*k+:32];  // counters.bits >= 32 (isa/config.def)
        if (CTR_W > 32) words[TSR_COUNTER_BASE/4+2*k+1] = 32'(counters[64*k+32+:(CTR_W > 32 ? CTR_W - 32 : 1)]);
      end
    end
  end
  logic [31:0] rd;
  always_comb begin
    rd = '0;
    for (int k = 0; k < NW; k++) rd = rd | (words[k] & {32{s_axil_araddr == 12'(4 * k)}});
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s_axil_rvalid <= 1'b0;
      live_q <= '0;
      copy_sel <= 1'b0;
      written <= '0;
    end else begin
      if (w_copy) written[wi] <= 1'b1;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
      if (re) begin
        s_axil_rvalid <= 1'b1;
        live_q <= rd;
        copy_sel <= r_copy;
      end
    end
  end
  assign s_axil_rdata = live_q | (copy_q & {32{copy_sel}});
endmodule
