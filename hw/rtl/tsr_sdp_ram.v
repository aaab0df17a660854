// Simple dual-port scratchpad RAM: one synchronous write port and one
// synchronous read port (registered output, one cycle of read latency), no
// reset of the array, so Yosys and FPGA tools infer block RAM.
// Contract: a read and a write of the same address in one cycle return the
// old data (read-first); rdata holds its value while re is low. The array
// starts at zero like sim's scratchpads (simulation; block RAM powers up at
// zero), so a program reading an entry it never wrote sees 0.
module tsr_sdp_ram #(
    parameter int DEPTH = 256,
    parameter int WIDTH = 128,
    parameter int AW = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
    input  logic             clk,
    input  logic             we,
    input  logic [   AW-1:0] waddr,
    input  logic [WIDTH-1:0] wdata,
    input  logic             re,
    input  logic [   AW-1:0] raddr,
    output logic [WIDTH-1:0] rdata
);
  logic [WIDTH-1:0] mem[DEPTH];
`ifndef SYNTHESIS  // FPGA block RAM powers up at zero without an init file
  initial begin
    for (int i = 0; i < DEPTH; i++) mem[i] = '0;
  end
`endif

  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
  end

  always_ff @(posedge clk) begin
    if (re) rdata <= mem[raddr];
  end
endmodule
