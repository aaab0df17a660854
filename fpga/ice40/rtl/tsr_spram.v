// One iCE40 UP5K single-port RAM (16384 x 16 bits). On the device (TSR_ICE40
// defined, as the iCE40 flow does) it is the SB_SPRAM256KA primitive; in
// simulation a model of the primitive's behaviour that the rest of the board
// relies on: a read (cs && !we) returns mem[addr] after the clock edge, the
// output holds while cs is low, a write stores the nibbles selected by
// nibble_we and leaves the output undefined (here: unchanged).
module tsr_spram (
    input  logic        clk,
    input  logic        cs,
    input  logic        we,
    input  logic [13:0] addr,
    input  logic [15:0] wdata,
    input  logic [ 3:0] nibble_we,
    output logic [15:0] rdata
);
`ifdef TSR_ICE40
  SB_SPRAM256KA ram (
      .ADDRESS(addr),
      .DATAIN(wdata),
      .MASKWREN(nibble_we),
      .WREN(we),
      .CHIPSELECT(cs),
      .CLOCK(clk),
      .STANDBY(1'b0),
      .SLEEP(1'b0),
      .POWEROFF(1'b1),
      .DATAOUT(rdata)
  );
`else
  logic [15:0] mem[16384];
  always_ff @(posedge clk) begin
    if (cs && we) begin
      for (int n = 0; n < 4; n++) if (nibble_we[n]) mem[addr][n*4+:4] <= wdata[n*4+:4];
    end
    if (cs && !we) rdata <= mem[addr];
  end
`endif
endmodule
