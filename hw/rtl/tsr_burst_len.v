// The length of the next DMA burst (docs/microarch.md "LOAD"/"STORE"): the
// bytes left in the DRAM row, cut at the next 4 KiB boundary and at 256 beats
// (TSR_BURST_MAX_BEATS * B). Combinational; shared by the load engine's and
// the store engine's requests and the store's W data generator, so the split
// rule is written once.
// Contract: `lo` is the burst's start address modulo 4 KiB; `left` > 0 is
// the bytes of the row from that address on (any width: compared at full
// width, so a row of 4 KiB or more is cut at the boundary).
module tsr_burst_len #(
    parameter int LW = 13  // width of `left`
) (
    input  logic [  11:0] lo,
    input  logic [LW-1:0] left,
    output logic [  12:0] bytes
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int MAXB = TSR_BURST_MAX_BEATS * TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int LM = $clog2(MAXB);
  localparam bit CUT = MAXB < 4096 && (1 << LM) == MAXB;  // 256 beats < 4 KiB: both cuts, one cap
  localparam int CW = LW > 13 ? LW : 13;  // comparison width

  // cap = min(4096 - lo, MAXB): MAXB divides 4096, so 4096 - lo < MAXB only
  // in the last MAXB bytes of the 4 KiB page, where it is MAXB - (lo mod MAXB).
  logic [12:0] cap;
  if (CUT) begin : g_cut
    assign cap = &lo[11:LM] ? 13'(MAXB) - 13'(lo[LM-1:0]) : 13'(MAXB);
  end else begin : g_page
    always_comb begin
      cap = 13'd4096 - {1'b0, lo};
      if (32'(cap) > MAXB) cap = 13'(MAXB);
    end
  end
  assign bytes = CW'(cap) > CW'(left) ? 13'(left) : cap;
endmodule
