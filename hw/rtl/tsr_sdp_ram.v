// Simple dual-port scratchpad RAM: one synchronous write port and one
// synchronous read port (registered output, one cycle of read latency), no
// reset of the array, so Yosys and FPGA tools infer block RAM.
// Contract: a read and a write of the same address in one cycle return
// undefined data, so every reader that can meet its own module's write
// forwards it (tsr_compute_exec) and no program reads what another module
// writes in the same cycle (tokens order them); simulation returns the old
// data inverted, so a reader that relied on it fails rtl == sim. Synthesis
// builds no collision logic (no_rw_check: iCE40 block RAM leaves a collision
// undefined, and emulating read-first cost ~600 logic cells on ice40-up5k's
// accumulator). rdata holds its value while re is low. The array
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
  (* no_rw_check *) logic [WIDTH-1:0] mem[DEPTH];
`ifndef SYNTHESIS  // FPGA block RAM powers up at zero without an init file
  initial begin
    for (int i = 0; i < DEPTH; i++) mem[i] = '0;
  end
`endif

  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
  end

  always_ff @(posedge clk) begin
`ifdef SYNTHESIS
    if (re) rdata <= mem[raddr];
`else
    if (re) rdata <= (we && waddr == raddr) ? ~mem[raddr] : mem[raddr];
`endif
  end
endmodule
