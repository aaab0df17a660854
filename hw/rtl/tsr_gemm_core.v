// GEMM core: BATCH x BLOCK_OUT dot products of length BLOCK_IN per uop
// iteration (BATCH*BLOCK_IN*BLOCK_OUT products), one iteration accepted per
// cycle, result after PIPE >= 0 cycles (PIPE = 0: combinational).
// The products and their sum flow through PIPE register stages; the
// output adds the accumulator operand, which the caller supplies in the cycle
// the result leaves (acc_in, from the scratchpad or forwarded from the
// iteration that wrote the same entry), so back-to-back iterations on one
// entry need no stall. A reset iteration produces zero.
// Contract: in_valid/in_reset/in_dst enter with inp and wgt; out_valid,
// out_reset and out_dst appear PIPE cycles later together with out_acc.
// Lane layouts follow the scratchpad rows: inp[b][k], wgt[o][k], acc[b][o].
module tsr_gemm_core #(
    parameter int BATCH = 1,
    parameter int BLOCK_IN = 16,
    parameter int BLOCK_OUT = 16,
    parameter int INP_BITS = 8,
    parameter int WGT_BITS = 8,
    parameter int ACC_BITS = 32,
    parameter int PIPE = 4,
    parameter int IDX_W = 12
) (
    input  logic                                  clk,
    input  logic                                  rst,
    input  logic                                  in_valid,
    input  logic                                  in_reset,
    input  logic [                     IDX_W-1:0] in_dst,
    input  logic [   BATCH*BLOCK_IN*INP_BITS-1:0] inp,
    input  logic [BLOCK_OUT*BLOCK_IN*WGT_BITS-1:0] wgt,
    output logic                                  out_valid,
    output logic                                  out_reset,
    output logic [                     IDX_W-1:0] out_dst,
    input  logic [  BATCH*BLOCK_OUT*ACC_BITS-1:0] acc_in,
    output logic [  BATCH*BLOCK_OUT*ACC_BITS-1:0] out_acc
);
  localparam int LANES = BATCH * BLOCK_OUT;
  logic [LANES*ACC_BITS-1:0] dot;
`ifndef VERILATOR  // (Verilated models: the form at the end of the module)
  // Products: pairs of outputs (o, o+1) share one multiplier per input lane,
  // x * (w_hi * 2^S + w_lo) with S = INP_BITS + WGT_BITS, so an int8 GEMM
  // needs BATCH*BLOCK_IN*ceil(BLOCK_OUT/2) 8x25 multiplies (one DSP48E1 each,
  // 25x18) instead of one per product. Exact: |x*w_lo| < 2^(S-1), so the low
  // S bits hold x*w_lo as a signed number and the rest x*w_hi plus its borrow.
  //   before: x*w_lo, x*w_hi        after: p = x*wsum; lo = p[S-1:0];
  //                                        hi = (p >>> S) + lo[S-1]
  // The iCE40 flow (TSR_ICE40) does not pack (SB_MAC16 is 16x16, an 8x25
  // product would take two); with int8 lanes it puts two products, k and
  // k+1 of one dot product, in one SB_MAC16 in its 8x8 mode (DUAL8):
  //   A = {x[k+1], x[k]}, B = {w[k+1], w[k]}  ->  O = {x[k+1]*w[k+1], x[k]*w[k]}
  localparam int S = INP_BITS + WGT_BITS;
`ifdef TSR_ICE40
  localparam bit PACK = 1'b0;
  localparam bit DUAL8 = INP_BITS == 8 && WGT_BITS == 8 && BLOCK_IN % 2 == 0;
`else
  localparam bit PACK = 1'b1;
  localparam bit DUAL8 = 1'b0;
`endif
  localparam int PAIRS = PACK ? BLOCK_OUT / 2 : 0;
  // A dot product of BLOCK_IN products fits SUM_W signed bits; summing at
  // that width and sign-extending equals the ACC_BITS wrap-around sum.
  localparam int SUM_W = S + $clog2(BLOCK_IN) + 1;

  // prod[b][o][k]: x * w as a SUM_W-bit signed number.
  logic signed [SUM_W-1:0] prod[BATCH][BLOCK_OUT][BLOCK_IN];
`ifdef TSR_ICE40
  logic signed [15:0] p8[BATCH][BLOCK_OUT][BLOCK_IN];  // DUAL8: the SB_MAC16 products
  if (DUAL8) begin : g_dual8
    for (genvar b = 0; b < BATCH; b++) begin : g_b
      for (genvar o = 0; o < BLOCK_OUT; o++) begin : g_o
        for (genvar k = 0; k < BLOCK_IN; k += 2) begin : g_k
          logic [31:0] o32;
          SB_MAC16 #(
              .MODE_8x8(1'b1),
              .A_SIGNED(1'b1),
              .B_SIGNED(1'b1),
              .TOPOUTPUT_SELECT(2'b10),  // the upper 8x8 product, unregistered
              .BOTOUTPUT_SELECT(2'b10)  // the lower one
          ) u_mac (
              .CLK(1'b0),
              .CE(1'b0),
              .C(16'd0),
              .A(inp[(b*BLOCK_IN+k)*8+:16]),
              .B(wgt[(o*BLOCK_IN+k)*8+:16]),
              .D(16'd0),
              .AHOLD(1'b0),
              .BHOLD(1'b0),
              .CHOLD(1'b0),
              .DHOLD(1'b0),
              .IRSTTOP(1'b0),
              .IRSTBOT(1'b0),
              .ORSTTOP(1'b0),
              .ORSTBOT(1'b0),
              .OLOADTOP(1'b0),
              .OLOADBOT(1'b0),
              .ADDSUBTOP(1'b0),
              .ADDSUBBOT(1'b0),
              .OHOLDTOP(1'b0),
              .OHOLDBOT(1'b0),
              .CI(1'b0),
              .ACCUMCI(1'b0),
              .SIGNEXTIN(1'b0),
              .O(o32),
              .CO(),
              .ACCUMCO(),
              .SIGNEXTOUT()
          );
          assign p8[b][o][k] = o32[15:0];
          assign p8[b][o][k+1] = o32[31:16];
        end
      end
    end
  end
`endif
  always_comb begin
    for (int b = 0; b < BATCH; b++) begin
      for (int k = 0; k < BLOCK_IN; k++) begin
        logic signed [INP_BITS-1:0] x;
        x = inp[(b*BLOCK_IN+k)*INP_BITS+:INP_BITS];
        for (int q = 0; q < PAIRS; q++) begin
          logic signed [WGT_BITS-1:0] w_lo, w_hi;
          logic signed [WGT_BITS+S:0] wsum;  // w_hi*2^S + w_lo needs one bit more
          logic signed [INP_BITS+WGT_BITS+S-1:0] p;
          logic signed [S-1:0] lo;
          logic signed [INP_BITS+WGT_BITS-1:0] hi;
          w_lo = wgt[(2*q*BLOCK_IN+k)*WGT_BITS+:WGT_BITS];
          w_hi = wgt[((2*q+1)*BLOCK_IN+k)*WGT_BITS+:WGT_BITS];
          wsum = (WGT_BITS + S + 1)'($signed({w_hi, {S{1'b0}}})) + (WGT_BITS + S + 1)'(w_lo);
          p = (INP_BITS + WGT_BITS + S)'(x) * (INP_BITS + WGT_BITS + S)'(wsum);
          lo = p[S-1:0];
          hi = (INP_BITS + WGT_BITS)'(p >>> S) + (INP_BITS + WGT_BITS)'(lo[S-1]);
          prod[b][2*q][k] = SUM_W'(lo);
          prod[b][2*q+1][k] = SUM_W'(hi);
        end
        for (int o = 2 * PAIRS; o < BLOCK_OUT; o++) begin
          logic signed [WGT_BITS-1:0] w;
          w = wgt[(o*BLOCK_IN+k)*WGT_BITS+:WGT_BITS];
`ifdef TSR_ICE40
          prod[b][o][k] = DUAL8 ? SUM_W'(p8[b][o][k]) : SUM_W'(x * w);
`else
          prod[b][o][k] = SUM_W'(x * w);
`endif
        end
      end
    end
  end

  // Dot products (dot, declared above), wrapped to ACC_BITS like isa/alu.h's
  // accumulator.
  always_comb begin
    for (int b = 0; b < BATCH; b++) begin
      for (int o = 0; o < BLOCK_OUT; o++) begin
        logic signed [SUM_W-1:0] sum;
        sum = '0;
        for (int k = 0; k < BLOCK_IN; k++) sum = sum + prod[b][o][k];
        dot[(b*BLOCK_OUT+o)*ACC_BITS+:ACC_BITS] = in_reset ? '0 : ACC_BITS'(sum);
      end
    end
  end
`endif
  // PIPE stages of products in flight (retimed by synthesis); PIPE = 0 is
  // combinational (the exec uses PIPE = P_gemm - 2: its uop and operand reads
  // take the other two cycles).
  logic [LANES*ACC_BITS-1:0] last_dot;
  if (PIPE == 0) begin : g_comb
    assign out_valid = in_valid;
    assign out_reset = in_reset;
    assign out_dst = in_dst;
    assign last_dot = dot;
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused_clk_rst;
    assign unused_clk_rst = clk ^ rst;
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : g_pipe
    logic [LANES*ACC_BITS-1:0] pipe_dot[PIPE];
    logic [PIPE-1:0] pipe_valid, pipe_reset;
    logic [IDX_W-1:0] pipe_dst[PIPE];

    always_ff @(posedge clk) begin
      pipe_dot[0] <= dot;
      pipe_dst[0] <= in_dst;
      for (int s = 1; s < PIPE; s++) begin
        pipe_dot[s] <= pipe_dot[s-1];
        pipe_dst[s] <= pipe_dst[s-1];
      end
    end

    always_ff @(posedge clk) begin
      if (rst) begin
        pipe_valid <= '0;
        pipe_reset <= '0;
      end else begin
        pipe_valid[0] <= in_valid;
        pipe_reset[0] <= in_reset;
        for (int s = 1; s < PIPE; s++) begin
          pipe_valid[s] <= pipe_valid[s-1];
          pipe_reset[s] <= pipe_reset[s-1];
        end
      end
    end

    assign out_valid = pipe_valid[PIPE-1];
    assign out_reset = pipe_reset[PIPE-1];
    assign out_dst = pipe_dst[PIPE-1];
    assign last_dot = pipe_dot[PIPE-1];
  end

  // Last stage: accumulate (or write zero for a reset iteration).
  always_comb begin
    for (int l = 0; l < LANES; l++) begin
      out_acc[l*ACC_BITS+:ACC_BITS] = out_reset ? '0 :
          acc_in[l*ACC_BITS+:ACC_BITS] + last_dot[l*ACC_BITS+:ACC_BITS];
    end
  end

`ifdef VERILATOR
  // Under Verilator, each product directly, summed at ACC_BITS: the same
  // values (the packing above is exact) in fewer operations than the packed
  // products and the product array, which it evaluates every cycle. The
  // rtl_gemm_core tests check both forms against a direct dot product.
  // (Synthesis reads the form above at its old line numbers: Yosys's LUT
  // counts move with the source lines of the cells.)
  always_comb begin
    for (int b = 0; b < BATCH; b++) begin
      for (int o = 0; o < BLOCK_OUT; o++) begin
        logic [ACC_BITS-1:0] sum;
        sum = '0;
        for (int k = 0; k < BLOCK_IN; k++) begin
          logic signed [INP_BITS-1:0] x;
          logic signed [WGT_BITS-1:0] w;
          x = inp[(b*BLOCK_IN+k)*INP_BITS+:INP_BITS];
          w = wgt[(o*BLOCK_IN+k)*WGT_BITS+:WGT_BITS];
          sum = sum + ACC_BITS'(x * w);
        end
        dot[(b*BLOCK_OUT+o)*ACC_BITS+:ACC_BITS] = in_reset ? '0 : sum;
      end
    end
  end
`endif
endmodule
