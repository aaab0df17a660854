// One lane of the tensor ALU: combinational, bit-exact with isa/alu.h
// (tessera::alu::Apply) for an accumulator width W of 16 or 32.
// Contract: dst and b are W-bit two's-complement values; shamt is MULSHR's
// shift (0..63, validated at decode); op is the ISA's ALU opcode (TSR_ALU_*).
// MIN/MAX/CLIP/MOV cannot overflow; ADD/MUL/SHR-left wrap to W bits;
// SHR right rounds half up; MULSHR rounds the 2W-bit product and saturates.
module tsr_alu_lane #(
    parameter int W = 32,
    parameter int OP_W = 4,
    parameter logic [OP_W-1:0] OP_MIN = OP_W'(0),
    parameter logic [OP_W-1:0] OP_MAX = OP_W'(1),
    parameter logic [OP_W-1:0] OP_ADD = OP_W'(2),
    parameter logic [OP_W-1:0] OP_SHR = OP_W'(3),
    parameter logic [OP_W-1:0] OP_MUL = OP_W'(4),
    parameter logic [OP_W-1:0] OP_MULSHR = OP_W'(5),
    parameter logic [OP_W-1:0] OP_CLIP = OP_W'(6)
) (
    input  logic [ OP_W-1:0] op,
    input  logic [W-1:0]   dst,
    input  logic [W-1:0]   b,
    input  logic [    5:0] shamt,
    output logic [W-1:0]   result
);
  localparam int PW = 2 * W;  // exact product width

  logic signed [W-1:0] sd, sb, nb;
  assign sd = dst;
  assign sb = b;
  assign nb = ~b;  // -b - 1, always representable

  // CLIP: min(max(dst, -b - 1), b), in that order (b < 0 gives b).
  logic signed [W-1:0] clip_lo;
  assign clip_lo = (sd > nb) ? sd : nb;

  // SHR right by s = min(b, 63): floor(dst / 2^s + 1/2).
  logic [5:0] rs;
  logic signed [W-1:0] shr_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [W-1:0] shr_rbv;  // only bit 0 (the round bit) is used
  /* verilator lint_on UNUSEDSIGNAL */
  logic shr_rb;
  logic signed [W-1:0] shr_right;
  assign rs = (sb > $signed(W'(63))) ? 6'd63 : sb[5:0];
  assign shr_q = sd >>> rs;
  assign shr_rbv = sd >>> (rs - 6'd1);
  assign shr_rb = (rs != 6'd0) && shr_rbv[0];
  assign shr_right = shr_q + {{(W - 1) {1'b0}}, shr_rb};

  // SHR left by l = -b, wrapped to W bits (0 once l >= W).
  logic [W-1:0] l;
  logic [W-1:0] shr_left;
  assign l = -b;
  assign shr_left = (l >= W'(W)) ? '0 : (dst << l[5:0]);

  // MUL wraps; MULSHR rounds the exact product right and saturates.
  logic signed [PW-1:0] prod;
  logic signed [PW-1:0] ms_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic signed [PW-1:0] ms_rbv;  // only bit 0 (the round bit) is used
  /* verilator lint_on UNUSEDSIGNAL */
  logic ms_rb;
  logic signed [PW-1:0] ms_r;
  logic signed [PW-1:0] hi, lo;
  assign prod = PW'(sd) * PW'(sb);
  assign ms_q = prod >>> shamt;
  assign ms_rbv = prod >>> (shamt - 6'd1);
  assign ms_rb = (shamt != 6'd0) && ms_rbv[0];
  assign ms_r = ms_q + {{(PW - 1) {1'b0}}, ms_rb};
  assign hi = {{(W + 1) {1'b0}}, {(W - 1) {1'b1}}};
  assign lo = ~hi;

  always_comb begin
    unique case (op)
      OP_MIN: result = (sd < sb) ? dst : b;
      OP_MAX: result = (sd > sb) ? dst : b;
      OP_ADD: result = dst + b;
      OP_SHR: result = sb[W-1] ? shr_left : shr_right;
      OP_MUL: result = W'(prod);
      OP_MULSHR: result = (ms_r > hi) ? hi[W-1:0] : ((ms_r < lo) ? lo[W-1:0] : ms_r[W-1:0]);
      OP_CLIP: result = (clip_lo > sb) ? b : clip_lo;
      default: result = b;  // MOV (the only opcode left)
    endcase
  end
endmodule
