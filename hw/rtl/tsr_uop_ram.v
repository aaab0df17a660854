// The uop scratchpad: NB = max(1, B / 4) banks of 32-bit uops (entry e in
// bank e mod NB), so one DRAM beat writes up to NB consecutive uops in a
// cycle; one uop read a cycle (registered, one cycle of latency, like
// tsr_sdp_ram). Block-RAM inferable (one sdp RAM per bank).
// Contract: wn <= NB consecutive entries from wentry, uop k of them in
// wdata[32k +: 32].
module tsr_uop_ram #(
    parameter int ENTRIES = 8192,
    parameter int NB = 4,
    parameter int AW = $clog2(ENTRIES)
) (
    input  logic             clk,
    input  logic             we,
    input  logic [     31:0] wentry,
    input  logic [     31:0] wn,
    input  logic [32*NB-1:0] wdata,
    input  logic             re,
    input  logic [   AW-1:0] raddr,
    output logic [     31:0] rdata
);
  localparam int BW = NB > 1 ? $clog2(NB) : 1;
  localparam int DEPTH = ENTRIES / NB;
  localparam int RW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  logic [31:0] bank_rd[NB];
  logic [BW-1:0] sel_q;
  for (genvar b = 0; b < NB; b++) begin : g_bank
    logic [31:0] k, e;
    logic bwe;
    always_comb begin
      k = (32'(b) + 32'(NB) - wentry % 32'(NB)) % 32'(NB);
      e = wentry + k;
      bwe = we && k < wn;
    end
    tsr_sdp_ram #(
        .DEPTH(DEPTH),
        .WIDTH(32)
    ) u_ram (
        .clk(clk),
        .we(bwe),
        .waddr(RW'(e / 32'(NB))),
        .wdata(wdata[32*k%(32*NB)+:32]),
        .re(re),
        .raddr(RW'(32'(raddr) / 32'(NB))),
        .rdata(bank_rd[b])
    );
  end
  always_ff @(posedge clk) if (re) sel_q <= BW'(32'(raddr) % 32'(NB));
  assign rdata = bank_rd[32'(sel_q)%NB];
endmodule
