// Test fixture of tessera.area (not Tessera's RTL): a BATCH x BLOCK_OUT x
// BLOCK_IN int8 multiply-accumulate array sized by the header
// `tessera isa verilog -c CONFIG` generates, so the area model's synthesis,
// parsing and fitting run end to end on real Yosys output.
module area_fixture(clk, inp, wgt, acc);
`include "tessera_cfg.vh"
  input clk;
  input [TSR_BATCH*TSR_BLOCK_IN*TSR_INP_BITS-1:0] inp;
  input [TSR_BLOCK_OUT*TSR_BLOCK_IN*TSR_WGT_BITS-1:0] wgt;
  output reg [TSR_BATCH*TSR_BLOCK_OUT*TSR_ACC_BITS-1:0] acc;
  integer b, o, i;
  reg signed [TSR_ACC_BITS-1:0] sum;
  always @(posedge clk) begin
    for (b = 0; b < TSR_BATCH; b = b + 1)
      for (o = 0; o < TSR_BLOCK_OUT; o = o + 1) begin
        sum = acc[(b*TSR_BLOCK_OUT+o)*TSR_ACC_BITS +: TSR_ACC_BITS];
        for (i = 0; i < TSR_BLOCK_IN; i = i + 1)
          sum = sum + $signed(inp[(b*TSR_BLOCK_IN+i)*TSR_INP_BITS +: TSR_INP_BITS]) *
                      $signed(wgt[(o*TSR_BLOCK_IN+i)*TSR_WGT_BITS +: TSR_WGT_BITS]);
        acc[(b*TSR_BLOCK_OUT+o)*TSR_ACC_BITS +: TSR_ACC_BITS] <= sum;
      end
  end
endmodule
