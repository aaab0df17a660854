// The AXI4-Lite register window (isa/regs.def via the generated header; the
// behaviour is docs/device-protocol.md "Register map"). One write (AW and W
// together) or one read in flight; responses are OKAY. Writes to read-only
// or unmapped offsets are ignored, reads of write-only or unmapped ones
// return 0. Counters read as two 32-bit halves at TSR_COUNTER_BASE + 8 i.
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
  assign s_axil_arready = !s_axil_rvalid;

  logic [31:0] waddr, raddr;
  assign waddr = 32'(s_axil_awaddr);
  assign raddr = 32'(s_axil_araddr);
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

  // Counter words: word k of the counter area is half k%2 of counter k/2,
  // selected by a counter index up to the last counter the config builds
  // (TSR_COUNTERS_BUILT_END) at counters.bits (a multiplexer of NP ways, not
  // a bit-granular shift by the address). Counters it does not build
  // (TSR_COUNTER_BUILT: counters.volumes, counters.categories) are constant
  // zero inputs, so their ways fold away; they and the bits above read 0.
  localparam int NP = TSR_COUNTERS_BUILT_END;
  localparam int CTR_W = TSR_CFG_COUNTERS_BITS;
  localparam int CI_W = $clog2(NP);
  logic [CTR_W-1:0] ctrs[NP];
  for (genvar k = 0; k < NP; k++) begin : g_cw
    assign ctrs[k] = TSR_COUNTER_BUILT[k] ? counters[64*k+:CTR_W] : '0;
  end
  logic [9:0] ctr_off;  // word offset from TSR_COUNTER_BASE
  logic ctr_hit;
  logic [63:0] ctr_sel;
  logic [31:0] ctr_word;
  assign ctr_off = s_axil_araddr[11:2] - 10'(TSR_COUNTER_BASE / 4);
  assign ctr_hit = raddr >= TSR_COUNTER_BASE && raddr < TSR_REG_WINDOW_BYTES && raddr[1:0] == 2'b00;
  assign ctr_sel = ctr_off[9:1] < 9'(NP) ? 64'(ctrs[CI_W'(ctr_off[9:1])]) : '0;
  assign ctr_word = ctr_off[0] ? ctr_sel[63:32] : ctr_sel[31:0];

  logic [31:0] rd;
  always_comb begin
    rd = '0;
    case (raddr)
      TSR_REG_ID: rd = TSR_ID_MAGIC;
      TSR_REG_VERSION: rd = TSR_PROTOCOL_VERSION;
      TSR_REG_STATUS: rd = status;
      TSR_REG_INSN_ADDR_LO: rd = insn_addr[31:0];
      TSR_REG_INSN_ADDR_HI: rd = insn_addr[63:32];
      TSR_REG_INSN_COUNT: rd = insn_count;
      TSR_REG_WATCHDOG_LO: rd = watchdog[31:0];
      TSR_REG_WATCHDOG_HI: rd = watchdog[63:32];
      TSR_REG_ERROR_CODE: rd = error_code;
      TSR_REG_ERROR_INSN: rd = error_insn;
      TSR_REG_IRQ_ENABLE: rd = {31'd0, irq_en};
      TSR_REG_FINGERPRINT_LO: rd = TSR_FINGERPRINT[31:0];
      TSR_REG_FINGERPRINT_HI: rd = TSR_FINGERPRINT[63:32];
      TSR_REG_DRAM_BASE_LO: rd = dram_base[31:0];
      TSR_REG_DRAM_BASE_HI: rd = dram_base[63:32];
      default: if (ctr_hit) rd = ctr_word;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s_axil_rvalid <= 1'b0;
      s_axil_rdata <= '0;
    end else begin
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
      if (s_axil_arvalid && s_axil_arready) begin
        s_axil_rvalid <= 1'b1;
        s_axil_rdata <= rd;
      end
    end
  end
endmodule
