// The memory port (docs/microarch.md, "The memory port" and phase 5 of "The
// cycle"): at most one burst request accepted per cycle, only while fewer
// than N_OUT bursts are outstanding, granted in fixed priority to the lowest
// requester index (the generated header's port order: fetch > compute >
// store > load). Accepted requests leave as AXI4 read (AR) or write (AW)
// address beats of ARLEN/AWLEN = beats - 1, INCR, BUS_BYTES per beat.
// A burst is outstanding from acceptance until its last read beat (RLAST) or
// its write response (B); slots freed in a cycle count for that cycle's grant
// (phase 1 precedes phase 5).
// Contract: requesters hold req until granted; a request never crosses a
// 4 KiB boundary and is at most 256 beats (the DMA splits); the AXI slave
// keeps ARREADY/AWREADY high (the contract's port accepts in the grant cycle,
// so valid never waits on ready).
// Addresses: requests carry ADDR_W-bit device addresses; the bus address is
// base + the granted one (BUS_W bits), one adder after the grant multiplexer.
module tsr_mem_port #(
    parameter int NREQ = 4,
    parameter int ADDR_W = 32,
    parameter int BUS_W = 64,
    parameter int BUS_BYTES = 16,
    parameter int N_OUT = 8,
    parameter int LEN_W = 13  // request length in bytes, up to 256*BUS_BYTES
) (
    input  logic                   clk,
    input  logic                   rst,
    input  logic [      BUS_W-1:0] base,
    input  logic [       NREQ-1:0] req,
    input  logic [       NREQ-1:0] req_write,
    input  logic [NREQ*ADDR_W-1:0] req_addr,
    input  logic [ NREQ*LEN_W-1:0] req_bytes,
    output logic [       NREQ-1:0] grant,
    // AXI4 master address channels
    output logic                   arvalid,
    output logic [      BUS_W-1:0] araddr,
    output logic [            7:0] arlen,
    output logic [            2:0] arsize,
    output logic [            1:0] arburst,
    output logic                   awvalid,
    output logic [      BUS_W-1:0] awaddr,
    output logic [            7:0] awlen,
    output logic [            2:0] awsize,
    output logic [            1:0] awburst,
    // completions observed on the R and B channels
    input  logic                   read_done,
    input  logic                   write_done,
    output logic [            7:0] outstanding
);
  localparam int OFF_W = (BUS_BYTES > 1) ? $clog2(BUS_BYTES) : 1;

  logic [7:0] live;  // outstanding after this cycle's completions
  logic can_accept;
  assign live = outstanding - 8'(read_done) - 8'(write_done);
  assign can_accept = live < 8'(N_OUT);

  // Fixed priority: the lowest index with a request wins.
  always_comb begin
    grant = '0;
    for (int i = NREQ - 1; i >= 0; i--) begin
      if (req[i] && can_accept) grant = NREQ'(1) << i;
    end
  end

  logic [ADDR_W-1:0] addr;
  logic [LEN_W-1:0] bytes;
  logic write;
  always_comb begin
    addr = '0;
    bytes = '0;
    write = 1'b0;
    for (int i = 0; i < NREQ; i++) begin
      if (grant[i]) begin
        addr = req_addr[i*ADDR_W+:ADDR_W];
        bytes = req_bytes[i*LEN_W+:LEN_W];
        write = req_write[i];
      end
    end
  end

  // beats = ceil(((bus address mod B) + bytes) / B)
  logic [BUS_W-1:0] bus_addr;
  logic [LEN_W:0] span;
  logic [LEN_W:0] beats;
  assign bus_addr = base + BUS_W'(addr);
  assign span = (LEN_W + 1)'(bus_addr[OFF_W-1:0]) + (LEN_W + 1)'(bytes) + (LEN_W + 1)'(BUS_BYTES - 1);
  assign beats = span >> OFF_W;

  assign arvalid = |grant && !write;
  assign awvalid = |grant && write;
  assign araddr = bus_addr;
  assign awaddr = bus_addr;
  assign arlen = 8'(beats - 1'b1);
  assign awlen = 8'(beats - 1'b1);
  assign arsize = 3'(OFF_W);
  assign awsize = 3'(OFF_W);
  assign arburst = 2'b01;  // INCR
  assign awburst = 2'b01;

  always_ff @(posedge clk) begin
    if (rst) outstanding <= '0;
    else outstanding <= live + 8'(|grant);
  end
endmodule
