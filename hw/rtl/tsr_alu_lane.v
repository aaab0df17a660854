// One lane of the tensor ALU: combinational (but a K > 1 multiply), bit-exact with isa/alu.h
// (tessera::alu::Apply) for an accumulator width W of 16 or 32.
// Contract: dst and b are W-bit two's-complement values; shamt is MULSHR's
// shift (0..63, validated at decode); clip is {relu, c} of MULSHRC's
// immediate (isa.def TSR_ALU_IMM_FIELD); op is the ISA's opcode (TSR_ALU_*).
// MIN/MAX/CLIP/MOV cannot overflow; ADD/MUL/SHR-left wrap to W bits;
// SHR right rounds half up; MULSHR rounds the 2W-bit product and saturates;
// MULSHRC clamps MULSHR's result to [relu ? 0 : -2^c, 2^c - 1].
// K (alu.mul_cycles): 1, the 2W-bit product in one multiplier (DSPs); K > 1,
// a shift-add multiplier in LUTs taking W / K bits of b a cycle: the caller
// holds dst and b for K cycles with mstep 0, 1, .., K-1 and takes the result
// of a multiply in the last (other ops' results do not depend on mstep).
// Area: SHR (both directions) and MULSHR share one arithmetic right shifter
// of a (2W+1)-bit word and one rounding adder (docs/fpga.md):
//   x = {v, 0} >>> s;  round(v >>> s) = x[2W:1] + x[0]  (x[0] = bit s-1 of v)
//   SHR, |b| < W: x = {dst, (W+1)'0} >>> (W + b), both directions (for b < 0
//   the low W bits of x[2W:1] are dst << -b, x[0] = 0); |b| >= W gives 0.
module tsr_alu_lane #(
    parameter int W = 32,
    parameter int K = 1,
    parameter int OP_W = 4,
    parameter logic [OP_W-1:0] OP_MIN = OP_W'(0),
    parameter logic [OP_W-1:0] OP_MAX = OP_W'(1),
    parameter logic [OP_W-1:0] OP_ADD = OP_W'(2),
    parameter logic [OP_W-1:0] OP_SHR = OP_W'(3),
    parameter logic [OP_W-1:0] OP_MUL = OP_W'(4),
    parameter logic [OP_W-1:0] OP_MULSHR = OP_W'(5),
    parameter logic [OP_W-1:0] OP_CLIP = OP_W'(6),
    parameter logic [OP_W-1:0] OP_MULSHRC = OP_W'(8),
    parameter int KS_W = K > 1 ? $clog2(K) : 1  // mstep bits (not set by callers)
) (
    /* verilator lint_off UNUSEDSIGNAL */  // K = 1: combinational
    input  logic             clk,
    input  logic [KS_W-1:0]  mstep,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [ OP_W-1:0] op,
    input  logic [W-1:0]   dst,
    input  logic [W-1:0]   b,
    input  logic [    5:0] shamt,
    input  logic [    4:0] clip,
    output logic [W-1:0]   result
);
  localparam int PW = 2 * W;  // exact product width
  localparam int SW = PW + 1;  // shifter width: the value and a round bit below it

  logic signed [W-1:0] sd, sb, nb;
  assign sd = dst;
  assign sb = b;
  assign nb = ~b;  // -b - 1, always representable

  // MIN, MAX and CLIP share one comparison (equal operands give the same
  // value). CLIP = min(max(dst, -b - 1), b) is b when b < 0 or dst >= b,
  // else max(dst, -b - 1): a second comparison, with -b - 1.
  logic lt, lt_nb;
  assign lt = sd < sb;
  assign lt_nb = sd < nb;
  logic signed [PW-1:0] prod;
  if (K == 1) begin : g_mul
    assign prod = PW'(sd) * PW'(sb);
  end else begin : g_shift_add
    // Step j adds dst x (bits jM .. jM+M-1 of b) to the running sum, held as
    // its high part h_q (the sum >>> jM) and its settled low bits lo_q (each
    // step's M arriving at the top); b's top chunk counts its top bit
    // negatively. The last step's sum above lo_q is the product.
    localparam int M = W / K;
    localparam int HW = W + M + 1;
    logic [M-1:0] c;
    logic top;
    logic signed [HW-1:0] h_q, pp, sum;
    logic [W-M-1:0] lo_q;
    assign c = b[32'(mstep)*M+:M];
    assign top = mstep == KS_W'(K - 1);
    always_comb begin
      pp = '0;
      for (int t = 0; t < M; t++) begin
        if (c[t]) begin
          if (top && t == M - 1) pp = pp - (HW'(sd) <<< t);
          else pp = pp + (HW'(sd) <<< t);
        end
      end
    end
    assign sum = (mstep == '0 ? '0 : h_q) + pp;
    always_ff @(posedge clk) begin
      h_q <= sum >>> M;
      lo_q <= (W - M)'({sum[M-1:0], lo_q} >> M);
    end
    assign prod = {sum[W+M-1:0], lo_q};
  end

  // The shared shifter: MULSHR rounds prod right by shamt; SHR shifts dst,
  // placed in the top half, right by W + b (6-bit wrap; see above).
  localparam int LW = $clog2(W);
  logic ms, shr_out;
  assign ms = op == OP_MULSHR || op == OP_MULSHRC;
  assign shr_out = b[W-1:LW] != '0 && b[W-1:LW] != '1;  // b outside [-W, W) (-W: shifted by 0, low half 0)
  logic signed [SW-1:0] sh_in, sh_x;
  logic [5:0] sh_amt;
  assign sh_in = ms ? {prod, 1'b0} : {dst, {(W + 1) {1'b0}}};
  assign sh_amt = ms ? shamt : 6'(W) + b[5:0];
`ifndef VERILATOR  // (Verilated models: the form at the end of the module)
  assign sh_x = sh_in >>> sh_amt;
`endif
  logic signed [PW-1:0] rnd;
  assign rnd = sh_x[SW-1:1] + {{(PW - 1) {1'b0}}, sh_x[0]};
  // MULSHR saturates the rounded product to W bits.
  logic sat_hi, sat_lo;
  assign sat_hi = !rnd[PW-1] && (|rnd[PW-2:W-1]);
  assign sat_lo = rnd[PW-1] && !(&rnd[PW-2:W-1]);
  logic [W-1:0] msr;
  assign msr = sat_hi ? {1'b0, {(W - 1) {1'b1}}} : (sat_lo ? {1'b1, {(W - 1) {1'b0}}} : rnd[W-1:0]);
  // MULSHRC's clamp: `above` marks bits c and up; msr is in range when they
  // are all equal to its sign.
  logic [W-1:0] above, msc;
  assign above = {W{1'b1}} << clip[3:0];
  always_comb begin
    if (clip[4] && msr[W-1]) msc = '0;
    else if (!msr[W-1] && (msr & above) != '0) msc = ~above;
    else if (msr[W-1] && (msr & above) != above) msc = above;
    else msc = msr;
  end

  always_comb begin
    unique case (op)
      OP_MIN: result = lt ? dst : b;
      OP_MAX: result = lt ? b : dst;
      OP_ADD: result = dst + b;
      OP_SHR: result = shr_out ? '0 : rnd[W-1:0];
      OP_MUL: result = W'(prod);
      OP_MULSHR: result = msr;
      OP_CLIP: result = (sb[W-1] || !lt) ? b : (lt_nb ? nb : dst);
      OP_MULSHRC: result = msc;
      default: result = b;  // MOV (validated at decode: no other opcode)
    endcase
  end

`ifdef VERILATOR
  // Under Verilator, sh_x = sh_in >>> sh_amt in 2W-bit words, which it
  // evaluates as native integers (a (2W+1)-bit shift is a multi-word library
  // call, and the lane runs every cycle): the logarithmic shifter synthesis
  // builds, with the round bit x[0] (the last bit shifted out) kept apart.
  // The rtl_alu_lane tests check both forms against isa/alu.h. (Synthesis
  // reads the line above at its old line number: Yosys's LUT count of this
  // module moves by up to 8% with the source lines of its cells.)
  always_comb begin
    logic signed [PW-1:0] q;
    logic rb;
    q = sh_in[SW-1:1];
    rb = sh_in[0];
    for (int i = 0; i < 6; i++) begin
      if (sh_amt[i]) begin
        rb = q[(1<<i)-1];
        q  = q >>> (1 << i);
      end
    end
    sh_x = {q, rb};
  end
`endif
endmodule
