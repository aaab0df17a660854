// Execution of GEMM and ALU instructions on the scratchpads (the compute
// module's datapath; its controller handles tokens, LOADs and FINISH).
// Semantics are sim/core.cc's: the loop nest i0 < iter_out, i1 < iter_in,
// u in uop_bgn .. uop_end-1 with dst = uop.dst + i0*dst_out + i1*dst_in (src
// and wgt alike); GEMM acc[dst] += inp[src] . wgt[wgt]^T (reset: 0); ALU
// acc[dst] = op(acc[dst], use_imm ? imm : acc[src]) (reset: 0); every acc
// write also writes out[dst], the accumulator narrowed to OUT_BITS.
// Timing is docs/microarch.md's (S = the cycle `start` is high):
//   GEMM: iteration j's uop is read in S+j, inp/wgt in S+j+1, the GEMM core
//         (P_gemm - 2 stages) takes the acc operand read in S+j+P_gemm-1 and
//         writes acc in S+j+P_gemm; `done` in End = S + I + P_gemm.
//   ALU:  iteration i owns the acc read port for c_i cycles (c_i = 2: the
//         source row, then the destination row; 1: the destination row only,
//         the source held in the operand register); the TSR_ALU_LANES lanes
//         take the row in NP = TSR_ALU_PASSES passes (E, one cycle each; the
//         next iteration's first read waits for the last: NP - 1 cycles more
//         per iteration), the row's result is written P_alu - 2 register
//         stages after the last pass; `done` in End = S + sum c_i + P_alu
//         (c_i including the NP - 1). A multiply's passes (TSR_ALU_SLOW_OPS)
//         take K = alu.mul_cycles cycles each (the lanes' shift-add
//         multiplier): NP x K cycles of E, NP x K - 1 more per iteration.
// Accumulator hazards follow ref's sequential order without stalls: a read
// that misses a write still in flight (or committed in the read's own cycle)
// takes the youngest such write's data; the operand register snoops writes.
// Needs P_gemm >= 2 and P_alu >= 2 (the uop and operand reads take a cycle
// each); scratchpads are tsr_sdp_ram (registered read, 1 cycle; a read of the
// row written in the same cycle is undefined, so every such read is forwarded).
// Indices are computed at index width with a sticky "too large" flag (the
// offsets are sums of non-negative terms: once a partial sum reaches 2^width
// every index built on it is out of range): `oob` rises (from the cycle after
// the first offending iteration's uop arrives until the next `start`) when one
// is out of range by sim/core_inl.h's rule (dst; the source when read; the
// weight for a non-reset GEMM); the controller then faults the run, so what is
// written meanwhile (at the truncated index) does not matter.
// HELD (the serial core's one command slot): `insn` stays the running
// instruction from `start` until `done`, so it is not copied.
// HAS_GEMM, HAS_ALU: both runs GEMM and ALU (one instruction at a time); one
// of them, the compute module's two pipes with timing.compute_overlap
// (docs/microarch.md "Overlap"): the other datapath is not built.
module tsr_compute_exec #(
    parameter bit HAS_GEMM = 1'b1,
    parameter bit HAS_ALU  = 1'b1,
    parameter bit HELD     = 1'b0
) (
    input  logic               clk,
    input  logic               rst,
    input  logic               start,
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats
    input  logic [ 127:0]      insn,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic               done,
    output logic               busy,
    output logic               oob,
    output logic [  63:0]      macs_inc,
    output logic               uop_re,
    output logic [UOP_AW-1:0]  uop_ra,
    input  logic [UOP_DW-1:0]  uop_rd,
    output logic               inp_re,
    output logic [INP_AW-1:0]  inp_ra,
    input  logic [INP_DW-1:0]  inp_rd,
    output logic               wgt_re,
    output logic [WGT_AW-1:0]  wgt_ra,
    input  logic [WGT_DW-1:0]  wgt_rd,
    output logic               acc_re,
    output logic [ACC_AW-1:0]  acc_ra,
    input  logic [ACC_DW-1:0]  acc_rd,
    output logic               acc_we,
    output logic [ACC_AW-1:0]  acc_wa,
    output logic [ACC_DW-1:0]  acc_wd,
    output logic               out_we,
    output logic [OUT_AW-1:0]  out_wa,
    output logic [OUT_DW-1:0]  out_wd
);
  /* verilator lint_off UNUSEDPARAM */  // the header is the whole table
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int LANES = TSR_BATCH * TSR_BLOCK_OUT;
  localparam int UOP_DW = TSR_UOP_BITS;
  localparam int INP_DW = TSR_BATCH * TSR_BLOCK_IN * TSR_INP_BITS;
  localparam int WGT_DW = TSR_BLOCK_OUT * TSR_BLOCK_IN * TSR_WGT_BITS;
  localparam int ACC_DW = LANES * TSR_ACC_BITS;
  localparam int OUT_DW = LANES * TSR_OUT_BITS;
  localparam int UOP_AW = TSR_UOP_IDX_BITS;
  localparam int INP_AW = TSR_INP_IDX_BITS;
  localparam int WGT_AW = TSR_WGT_IDX_BITS;
  localparam int ACC_AW = TSR_ACC_IDX_BITS;
  localparam int OUT_AW = TSR_ACC_IDX_BITS;  // out is the acc's narrowed shadow
  localparam int SRC_W = TSR_UOP_SRC_W;  // max(inp, acc) index bits
  localparam int IT_W = TSR_GEMM_ITER_OUT_W;
  localparam int UE_W = TSR_GEMM_UOP_END_W;
  localparam int OP_W = TSR_ALU_OP_W;
  localparam int IMM_W = TSR_ALU_IMM_W;
  localparam int AW_ = TSR_ACC_BITS;
  localparam int P_GEMM = TSR_CFG_TIMING_GEMM_PIPELINE_DEPTH;
  localparam int P_ALU = TSR_CFG_TIMING_ALU_PIPELINE_DEPTH;
  localparam int GP = P_GEMM - 2;  // GEMM core register stages
  localparam int AP = P_ALU - 2;  // ALU result register stages
  localparam int NL = TSR_ALU_LANES;  // ALU lanes (alu.lanes)
  localparam int NP = TSR_ALU_PASSES;  // passes of the lanes over a row
  localparam int K = TSR_CFG_ALU_MUL_CYCLES;  // cycles of a multiply's pass
  localparam int KS_W = K > 1 ? $clog2(K) : 1;
  localparam int GW = NL * AW_;  // one pass's elements
  localparam int PC_W = $clog2(NP * K) + 1;
  // Held rows: with no result stages and several pass cycles (NP x K > 1) the
  // operand rows stay where they are read through the passes.
  localparam bit ROWS = AP == 0 && NP * K > 1;
  localparam int CNT_W = 7 + $clog2(NP * K);  // P_gemm, P_alu <= 64 (isa/config.def), plus NP x K - 1
  // Index offsets: the index bits and a sticky flag above them (offset >= 2^bits).
  localparam int DOW = ACC_AW + 1;
  localparam int SOW = SRC_W + 1;
  localparam int WOW = WGT_AW + 1;

  // ---- Decode (only the fields of GEMM and ALU; the formats share the
  // header fields, each is read at its own format's position).
  logic d_alu, d_reset, d_use_imm;
  logic [UOP_AW-1:0] d_uop_bgn;
  logic [UE_W-1:0] d_uop_end;
  logic [IT_W-1:0] d_iter_out, d_iter_in;
  logic [ACC_AW-1:0] d_dst_out, d_dst_in;
  logic [SRC_W-1:0] d_src_out, d_src_in;
  logic [WGT_AW-1:0] d_wgt_out, d_wgt_in;
  logic [OP_W-1:0] d_op;
  logic [IMM_W-1:0] d_imm;
  always_comb begin
    d_alu = HAS_GEMM && HAS_ALU ? insn[TSR_ALU_OPCODE_LSB+:TSR_ALU_OPCODE_W] == TSR_ALU_OPCODE_W'(TSR_OP_ALU) : HAS_ALU;
    d_op = insn[TSR_ALU_OP_LSB+:TSR_ALU_OP_W];
    d_use_imm = insn[TSR_ALU_USE_IMM_LSB];
    d_imm = insn[TSR_ALU_IMM_LSB+:TSR_ALU_IMM_W];
    if (d_alu) begin
      d_reset = insn[TSR_ALU_RESET_LSB];
      d_uop_bgn = UOP_AW'(insn[TSR_ALU_UOP_BGN_LSB+:TSR_ALU_UOP_BGN_W]);
      d_uop_end = UE_W'(insn[TSR_ALU_UOP_END_LSB+:TSR_ALU_UOP_END_W]);
      d_iter_out = IT_W'(insn[TSR_ALU_ITER_OUT_LSB+:TSR_ALU_ITER_OUT_W]);
      d_iter_in = IT_W'(insn[TSR_ALU_ITER_IN_LSB+:TSR_ALU_ITER_IN_W]);
      d_dst_out = ACC_AW'(insn[TSR_ALU_DST_OUT_LSB+:TSR_ALU_DST_OUT_W]);
      d_dst_in = ACC_AW'(insn[TSR_ALU_DST_IN_LSB+:TSR_ALU_DST_IN_W]);
      d_src_out = SRC_W'(insn[TSR_ALU_SRC_OUT_LSB+:TSR_ALU_SRC_OUT_W]);
      d_src_in = SRC_W'(insn[TSR_ALU_SRC_IN_LSB+:TSR_ALU_SRC_IN_W]);
      d_wgt_out = '0;
      d_wgt_in = '0;
    end else begin
      d_reset = insn[TSR_GEMM_RESET_LSB];
      d_uop_bgn = UOP_AW'(insn[TSR_GEMM_UOP_BGN_LSB+:TSR_GEMM_UOP_BGN_W]);
      d_uop_end = UE_W'(insn[TSR_GEMM_UOP_END_LSB+:TSR_GEMM_UOP_END_W]);
      d_iter_out = IT_W'(insn[TSR_GEMM_ITER_OUT_LSB+:TSR_GEMM_ITER_OUT_W]);
      d_iter_in = IT_W'(insn[TSR_GEMM_ITER_IN_LSB+:TSR_GEMM_ITER_IN_W]);
      d_dst_out = ACC_AW'(insn[TSR_GEMM_DST_OUT_LSB+:TSR_GEMM_DST_OUT_W]);
      d_dst_in = ACC_AW'(insn[TSR_GEMM_DST_IN_LSB+:TSR_GEMM_DST_IN_W]);
      d_src_out = SRC_W'(insn[TSR_GEMM_SRC_OUT_LSB+:TSR_GEMM_SRC_OUT_W]);
      d_src_in = SRC_W'(insn[TSR_GEMM_SRC_IN_LSB+:TSR_GEMM_SRC_IN_W]);
      d_wgt_out = WGT_AW'(insn[TSR_GEMM_WGT_OUT_LSB+:TSR_GEMM_WGT_OUT_W]);
      d_wgt_in = WGT_AW'(insn[TSR_GEMM_WGT_IN_LSB+:TSR_GEMM_WGT_IN_W]);
    end
  end

  // The instruction, held from `start` on (with HELD the caller's); k_* is
  // the held one or, in the start cycle, the decoded one.
  logic q_alu, q_reset, q_use_imm;
  logic [UOP_AW-1:0] q_uop_bgn;
  logic [UE_W-1:0] q_uop_end;
  logic [IT_W-1:0] q_iter_out, q_iter_in;
  logic [ACC_AW-1:0] q_dst_out, q_dst_in;
  logic [SRC_W-1:0] q_src_out, q_src_in;
  logic [WGT_AW-1:0] q_wgt_out, q_wgt_in;
  logic [OP_W-1:0] q_op;
  logic [IMM_W-1:0] q_imm;
  if (HELD) begin : g_held
    assign {q_alu, q_reset, q_use_imm, q_uop_bgn, q_uop_end, q_iter_out, q_iter_in, q_dst_out, q_dst_in, q_src_out,
            q_src_in, q_wgt_out, q_wgt_in, q_op, q_imm} = {d_alu, d_reset, d_use_imm, d_uop_bgn, d_uop_end, d_iter_out,
                                                          d_iter_in, d_dst_out, d_dst_in, d_src_out, d_src_in,
                                                          d_wgt_out, d_wgt_in, d_op, d_imm};
  end else begin : g_copy
    always_ff @(posedge clk) begin
      if (start) begin
        q_alu <= d_alu;
        q_reset <= d_reset;
        q_use_imm <= d_use_imm;
        q_uop_bgn <= d_uop_bgn;
        q_uop_end <= d_uop_end;
        q_iter_out <= d_iter_out;
        q_iter_in <= d_iter_in;
        q_dst_out <= d_dst_out;
        q_dst_in <= d_dst_in;
        q_src_out <= d_src_out;
        q_src_in <= d_src_in;
        q_wgt_out <= d_wgt_out;
        q_wgt_in <= d_wgt_in;
        q_op <= d_op;
        q_imm <= d_imm;
      end
    end
  end
  logic [UOP_AW-1:0] k_uop_bgn;
  logic [UE_W-1:0] k_uop_end;
  logic [IT_W-1:0] k_iter_out, k_iter_in;
  logic [ACC_AW-1:0] k_dst_out, k_dst_in;
  logic [SRC_W-1:0] k_src_out, k_src_in;
  logic [WGT_AW-1:0] k_wgt_out, k_wgt_in;
  logic k_alu;
  assign k_alu = start ? d_alu : q_alu;
  assign k_uop_bgn = start ? d_uop_bgn : q_uop_bgn;
  assign k_uop_end = start ? d_uop_end : q_uop_end;
  assign k_iter_out = start ? d_iter_out : q_iter_out;
  assign k_iter_in = start ? d_iter_in : q_iter_in;
  assign k_dst_out = start ? d_dst_out : q_dst_out;
  assign k_dst_in = start ? d_dst_in : q_dst_in;
  assign k_src_out = start ? d_src_out : q_src_out;
  assign k_src_in = start ? d_src_in : q_src_in;
  assign k_wgt_out = start ? d_wgt_out : q_wgt_out;
  assign k_wgt_in = start ? d_wgt_in : q_wgt_in;

  // ---- Stage F: the uop read of the next iteration (i0, i1, u). It is
  // issued every cycle while iterations remain and advances unless stage A
  // holds the read port for a second cycle (then it is issued again).
  logic f_on;
  logic [UOP_AW-1:0] f_addr;
  logic [IT_W-1:0] f_i0, f_i1;
  logic [DOW-1:0] f_doff, f_dbase;
  logic [SOW-1:0] f_soff, f_sbase;
  logic [WOW-1:0] f_woff, f_wbase;
  logic c_on;
  logic [UOP_AW-1:0] c_addr;
  logic [IT_W-1:0] c_i0, c_i1;
  logic [DOW-1:0] c_doff, c_dbase;
  logic [SOW-1:0] c_soff, c_sbase;
  logic [WOW-1:0] c_woff, c_wbase;
  always_comb begin
    if (start) begin
      c_on = d_iter_out != '0 && d_iter_in != '0;  // uop range non-empty (validated)
      c_addr = d_uop_bgn;
      c_i0 = '0;
      c_i1 = '0;
      c_doff = '0;
      c_dbase = '0;
      c_soff = '0;
      c_sbase = '0;
      c_woff = '0;
      c_wbase = '0;
    end else begin
      c_on = f_on;
      c_addr = f_addr;
      c_i0 = f_i0;
      c_i1 = f_i1;
      c_doff = f_doff;
      c_dbase = f_dbase;
      c_soff = f_soff;
      c_sbase = f_sbase;
      c_woff = f_woff;
      c_wbase = f_wbase;
    end
  end
  logic u_wrap, i1_wrap, i0_wrap, c_last;
  assign u_wrap = UE_W'(c_addr) + UE_W'(1) == k_uop_end;
  assign i1_wrap = c_i1 + IT_W'(1) == k_iter_in;
  assign i0_wrap = c_i0 + IT_W'(1) == k_iter_out;
  assign c_last = u_wrap && i1_wrap && i0_wrap;
  assign uop_re = c_on;
  assign uop_ra = c_addr;

  // The next offsets (one adder per index): the inner step, or the outer step
  // from the base when the inner loop wraps; the flag is sticky.
  logic [DOW-1:0] o_doff, n_dsum, n_doff;
  logic [SOW-1:0] o_soff, n_ssum, n_soff;
  logic [WOW-1:0] o_woff, n_wsum, n_woff;
  assign o_doff = i1_wrap ? c_dbase : c_doff;
  assign o_soff = i1_wrap ? c_sbase : c_soff;
  assign o_woff = i1_wrap ? c_wbase : c_woff;
  logic [ACC_AW-1:0] st_d;
  logic [SRC_W-1:0] st_s;
  logic [WGT_AW-1:0] st_w;
  assign st_d = i1_wrap ? k_dst_out : k_dst_in;
  assign st_s = i1_wrap ? k_src_out : k_src_in;
  assign st_w = i1_wrap ? k_wgt_out : k_wgt_in;
  assign n_dsum = DOW'(o_doff[ACC_AW-1:0]) + DOW'(st_d);
  assign n_ssum = SOW'(o_soff[SRC_W-1:0]) + SOW'(st_s);
  assign n_wsum = WOW'(o_woff[WGT_AW-1:0]) + WOW'(st_w);
  assign n_doff = {o_doff[ACC_AW] | n_dsum[ACC_AW], n_dsum[ACC_AW-1:0]};
  assign n_soff = {o_soff[SRC_W] | n_ssum[SRC_W], n_ssum[SRC_W-1:0]};
  assign n_woff = {o_woff[WGT_AW] | n_wsum[WGT_AW], n_wsum[WGT_AW-1:0]};

  logic stall;  // stage A takes a second read cycle (ALU source row) or the lanes' passes hold it
  logic advance;
  assign advance = c_on && !stall;

  always_ff @(posedge clk) begin
    if (rst) begin
      f_on <= 1'b0;
    end else begin
      f_on <= c_on && !(advance && c_last);
    end
    f_addr <= c_addr;
    f_i0 <= c_i0;
    f_i1 <= c_i1;
    f_doff <= c_doff;
    f_dbase <= c_dbase;
    f_soff <= c_soff;
    f_sbase <= c_sbase;
    f_woff <= c_woff;
    f_wbase <= c_wbase;
    if (advance) begin
      if (!u_wrap) begin
        f_addr <= c_addr + UOP_AW'(1);
      end else begin
        f_addr <= k_uop_bgn;
        f_doff <= n_doff;
        f_soff <= n_soff;
        f_woff <= n_woff;
        if (!i1_wrap) begin
          f_i1 <= c_i1 + IT_W'(1);
        end else begin
          f_i1 <= '0;
          f_i0 <= c_i0 + IT_W'(1);
          f_dbase <= n_doff;
          f_sbase <= n_soff;
          f_wbase <= n_woff;
        end
      end
    end
  end

  // ---- Stage A: the uop arrives; the iteration's indices.
  logic a_valid, a_last;
  logic [DOW-1:0] a_doff;
  logic [SOW-1:0] a_soff;
  logic [WOW-1:0] a_woff;
  always_ff @(posedge clk) begin
    if (rst) a_valid <= 1'b0;
    else a_valid <= advance;
    a_last <= c_last;
    a_doff <= c_doff;
    a_soff <= c_soff;
    a_woff <= c_woff;
  end
  logic [ACC_AW-1:0] a_dst;
  logic [SRC_W-1:0] a_src;
  logic [WGT_AW-1:0] a_wgt;
  /* verilator lint_off UNUSEDSIGNAL */  // bits of the uop beyond its fields
  logic [UOP_DW-1:0] uop_word;
  /* verilator lint_on UNUSEDSIGNAL */
  assign uop_word = uop_rd;
  // Index = offset + uop field; its top bit (the carry) or the offset's flag: >= 2^bits.
  logic [DOW-1:0] a_dst_sum;
  logic [SOW-1:0] a_src_sum;
  logic [WOW-1:0] a_wgt_sum;
  assign a_dst_sum = DOW'(a_doff[ACC_AW-1:0]) + DOW'(uop_word[TSR_UOP_DST_LSB+:TSR_UOP_DST_W]);
  assign a_src_sum = SOW'(a_soff[SRC_W-1:0]) + SOW'(uop_word[TSR_UOP_SRC_LSB+:TSR_UOP_SRC_W]);
  assign a_wgt_sum = WOW'(a_woff[WGT_AW-1:0]) + WOW'(uop_word[TSR_UOP_WGT_LSB+:TSR_UOP_WGT_W]);
  assign a_dst = a_dst_sum[ACC_AW-1:0];
  assign a_src = a_src_sum[SRC_W-1:0];
  assign a_wgt = a_wgt_sum[WGT_AW-1:0];

  // Range check (sim/core_inl.h): sticky until the next start.
  logic a_oob, oob_q;
  always_comb begin
    a_oob = a_doff[ACC_AW] || a_dst_sum >= DOW'(TSR_ACC_ENTRIES);
    if (!q_reset && !(q_alu && q_use_imm))
      a_oob = a_oob || a_soff[SRC_W] || a_src_sum >= SOW'(q_alu ? TSR_ACC_ENTRIES : TSR_INP_ENTRIES);
    if (!q_reset && !q_alu) a_oob = a_oob || a_woff[WGT_AW] || a_wgt_sum >= WOW'(TSR_WGT_ENTRIES);
    a_oob = a_oob && a_valid;
  end
  always_ff @(posedge clk) begin
    if (rst || start) oob_q <= 1'b0;
    else if (a_oob) oob_q <= 1'b1;
  end
  assign oob = oob_q;

  // The last write (committed at the end of the previous cycle): a read issued
  // in that cycle returned undefined data (tsr_sdp_ram). wl_d keeps the row until the
  // next write; with held rows (ROWS below) a pass leaves its results in its
  // group of it (wl_v is low then: no write in the cycle before).
  logic wl_v;
  logic [ACC_AW-1:0] wl_a;
  logic [ACC_DW-1:0] wl_d;
  logic [NP-1:0] wl_pass;  // the group a pass's results go to
  logic [GW-1:0] l_res;  // the lanes' results of one pass
  always_ff @(posedge clk) begin
    if (rst) wl_v <= 1'b0;
    else wl_v <= acc_we;
    wl_a <= acc_wa;
    for (int g = 0; g < NP; g++) begin
      if (acc_we) wl_d[g*GW+:GW] <= acc_wd[g*GW+:GW];
      else if (wl_pass[g]) wl_d[g*GW+:GW] <= l_res;
    end
  end
  // A row read in the cycle before, forwarded from the last write: the one
  // mux serves the GEMM operand, the ALU's source load (A2) and destination
  // (E; ROWS: e_hold through the passes), never two in one cycle.
  logic [ACC_AW-1:0] fwd_a;
  logic [ACC_DW-1:0] row_fwd;
  logic e_hold;
  assign row_fwd = ((wl_v && wl_a == fwd_a) || e_hold) ? wl_d : acc_rd;

  // ---- GEMM: inp/wgt read in A, the core, the acc operand read one cycle
  // before the core's result leaves (A + GP), forwarded from the last write.
  logic g_valid;
  logic [ACC_AW-1:0] g_dst;
  always_ff @(posedge clk) begin
    if (rst) g_valid <= 1'b0;
    else g_valid <= a_valid && !q_alu;
    g_dst <= a_dst;
  end
  logic g_rd_en;  // the acc operand read of the iteration leaving next cycle
  logic [ACC_AW-1:0] g_rd_addr;
  if (GP == 0) begin : g_rd0
    assign g_rd_en = a_valid && !q_alu;
    assign g_rd_addr = a_dst;
  end else begin : g_rdn
    logic [GP-1:0] dl_v;
    logic [ACC_AW-1:0] dl_a[GP];
    always_ff @(posedge clk) begin
      if (rst) dl_v <= '0;
      else dl_v[0] <= a_valid && !q_alu;
      dl_a[0] <= a_dst;
      for (int s = 1; s < GP; s++) begin
        if (!rst) dl_v[s] <= dl_v[s-1];
        dl_a[s] <= dl_a[s-1];
      end
    end
    assign g_rd_en = dl_v[GP-1];
    assign g_rd_addr = dl_a[GP-1];
  end

  logic gc_valid, gc_reset;
  logic [ACC_AW-1:0] gc_dst;
  logic [ACC_DW-1:0] gc_acc_in, gc_out;
  assign gc_acc_in = row_fwd;
  if (HAS_GEMM) begin : g_core
    tsr_gemm_core #(
        .BATCH(TSR_BATCH),
        .BLOCK_IN(TSR_BLOCK_IN),
        .BLOCK_OUT(TSR_BLOCK_OUT),
        .INP_BITS(TSR_INP_BITS),
        .WGT_BITS(TSR_WGT_BITS),
        .ACC_BITS(TSR_ACC_BITS),
        .PIPE(GP),
        .IDX_W(ACC_AW)
    ) u_gemm (
        .clk(clk),
        .rst(rst),
        .in_valid(g_valid),
        .in_reset(q_reset),
        .in_dst(g_dst),
        .inp(inp_rd),
        .wgt(wgt_rd),
        .out_valid(gc_valid),
        .out_reset(gc_reset),
        .out_dst(gc_dst),
        .acc_in(gc_acc_in),
        .out_acc(gc_out)
    );
  end else begin : g_no_core
    assign gc_valid = 1'b0;
    assign gc_reset = 1'b0;
    assign gc_dst = '0;
    assign gc_out = '0;
    /* verilator lint_off UNUSEDSIGNAL */  // the GEMM operands of the pipe not built
    logic unused;
    assign unused = ^{inp_rd, wgt_rd, g_valid, g_dst, gc_acc_in};
    /* verilator lint_on UNUSEDSIGNAL */
  end
  assign inp_re = a_valid && !q_alu && !q_reset;
  assign inp_ra = INP_AW'(a_src);
  assign wgt_re = a_valid && !q_alu && !q_reset;
  assign wgt_ra = a_wgt;

  // ---- ALU: stage A reads the source row (when it differs from the
  // previous iteration's) then the destination row; E applies the lanes.
  logic reads_src;
  assign reads_src = !q_reset && !q_use_imm;
  logic p_v;  // p_src is the previous iteration's source entry
  logic [SRC_W-1:0] p_src;
  logic need2;
  assign need2 = a_valid && q_alu && reads_src && !(p_v && p_src == a_src);
  logic rd_last;  // an ALU iteration reads its destination row: E starts next cycle
  assign rd_last = (a_valid && q_alu && !need2) || a2_valid;
  // With NPC cycles of passes (NP, or NP x K for a multiply) the next
  // iteration reaches A NPC cycles after rd_last: the uop read is held for
  // NPC - 1 cycles from rd_last on.
  logic q_mul;  // a multiply with K > 1
  logic [PC_W-1:0] npc;
  assign q_mul = K > 1 && TSR_ALU_SLOW_OPS[q_op];
  assign npc = q_mul ? PC_W'(NP * K) : PC_W'(NP);
  logic pass_stall;
  if (NP == 1 && K == 1) begin : g_one_pass
    assign pass_stall = 1'b0;
  end else begin : g_pass_stall
    logic [PC_W-1:0] hold;
    always_ff @(posedge clk) begin
      if (rst) hold <= '0;
      else if (rd_last) hold <= npc == PC_W'(1) ? '0 : npc - PC_W'(2);
      else if (hold != '0) hold <= hold - PC_W'(1);
    end
    assign pass_stall = (rd_last && npc != PC_W'(1)) || hold != '0;
  end
  assign stall = need2 || pass_stall;

  logic a2_valid, a2_last;
  logic [ACC_AW-1:0] a2_dst;
  logic e_valid;
  logic [ACC_AW-1:0] e_dst;
  always_ff @(posedge clk) begin
    if (rst || start) p_v <= 1'b0;
    else if (a_valid && q_alu) p_v <= 1'b1;
    if (a_valid && q_alu) p_src <= a_src;
    if (rst) begin
      a2_valid <= 1'b0;
      e_valid <= 1'b0;
    end else begin
      a2_valid <= need2;
      e_valid <= rd_last;
    end
    a2_dst <= a_dst;
    a2_last <= a_last;
    if ((NP == 1 && K == 1) || rd_last) e_dst <= a2_valid ? a2_dst : a_dst;  // held through the passes
  end

  // The operand register: the source row as of the last commit.
  logic [ACC_DW-1:0] op_q;
  logic [ACC_AW-1:0] op_a;
  logic [ACC_AW-1:0] ld_a;  // the source row read in the A cycle before A2
  always_ff @(posedge clk) begin
    if (need2) ld_a <= ACC_AW'(a_src);
    if (a2_valid) begin
      op_a <= ld_a;
      if (!ROWS && acc_we && acc_wa == ld_a) op_q <= acc_wd;  // (ROWS: no write in A2)
      else op_q <= row_fwd;
    end else if (acc_we && acc_wa == op_a) begin
      op_q <= acc_wd;
    end
  end
  assign fwd_a = a2_valid ? ld_a : gc_valid ? gc_dst : e_dst;

  // E (NPC cycles of passes; e_valid marks the first, e_fin the last) and AP result
  // stages s[0..AP-1] (s[0] youngest) of whole rows; the write leaves the
  // last stage (or E's last pass when AP = 0). The operands are forwarded in
  // the first pass (e_dv, e_b) and held for the others (ROWS: e_hold keeps
  // the first pass's forwarding of the destination row).
  logic [ACC_DW-1:0] e_dv, e_ov, e_b, e_res;
  logic e_fin;
  logic [ACC_DW-1:0] imm_row;
  for (genvar l = 0; l < LANES; l++) begin : g_imm
    assign imm_row[l*AW_+:AW_] = AW_'($signed(q_imm));
  end

  logic [ACC_DW-1:0] alu_wd;
  logic [ACC_AW-1:0] alu_wa;
  logic alu_we;
  if (AP == 0) begin : g_ap0
    always_comb begin
      e_dv = row_fwd;
      e_ov = op_q;
    end
    assign alu_we = e_fin;
    assign alu_wa = e_dst;
    assign alu_wd = e_res;
  end else begin : g_apn
    logic [AP-1:0] s_v;
    logic [ACC_AW-1:0] s_a[AP];
    logic [ACC_DW-1:0] s_d[AP];
    always_ff @(posedge clk) begin
      if (rst) s_v <= '0;
      else s_v[0] <= e_fin;
      s_a[0] <= e_dst;
      s_d[0] <= e_res;
      for (int s = 1; s < AP; s++) begin
        if (!rst) s_v[s] <= s_v[s-1];
        s_a[s] <= s_a[s-1];
        s_d[s] <= s_d[s-1];
      end
    end
    always_comb begin
      e_dv = row_fwd;
      e_ov = op_q;
      for (int s = AP - 1; s >= 0; s--) begin
        if (s_v[s] && s_a[s] == e_dst) e_dv = s_d[s];
        if (s_v[s] && s_a[s] == op_a) e_ov = s_d[s];
      end
    end
    assign alu_we = s_v[AP-1];
    assign alu_wa = s_a[AP-1];
    assign alu_wd = s_d[AP-1];
  end

  // The lanes' operands and results of one pass (group p: elements p*NL ..).
  logic [GW-1:0] l_dv, l_b;
  logic [KS_W-1:0] mstep;  // a multiply's step in its pass (0 for other ops)
  if (ROWS) begin : g_held_rows
    // The rows stay put through the passes: the destination in acc_rd (no
    // read comes before the last pass) or, forwarded, in wl_d (no write comes
    // before the last pass's), the source in op_q. Pass p takes their group p
    // and leaves its results in group p of wl_d; the last pass writes the row.
    localparam int PW = NP > 1 ? $clog2(NP) : 1;
    logic e_on, e_hit, pass_end;  // E after its first cycle; its forwarding
    logic [PW-1:0] pass, pq;
    if (K > 1) begin : g_ms
      logic [KS_W-1:0] ms_q;
      assign mstep = e_valid ? '0 : ms_q;
      always_ff @(posedge clk) ms_q <= pass_end ? '0 : mstep + KS_W'(1);
    end else begin : g_ms1
      assign mstep = '0;
    end
    assign pass_end = !q_mul || mstep == KS_W'(K - 1);
    assign pass = e_valid ? '0 : pq;
    assign e_fin = (e_valid || e_on) && pass_end && pass == PW'(NP - 1);
    assign e_hold = e_on && e_hit;
    always_ff @(posedge clk) begin
      if (rst) e_on <= 1'b0;
      else e_on <= (e_valid || e_on) && !e_fin;
      if (e_valid) e_hit <= wl_v && wl_a == e_dst;
      if (e_valid || pass_end) pq <= pass_end ? pass + PW'(1) : pass;
    end
    for (genvar g = 0; g < NP; g++) begin : g_wl
      assign wl_pass[g] = (e_valid || e_on) && pass_end && pass == PW'(g);
    end
    assign e_b = q_use_imm ? imm_row : e_ov;
    assign l_dv = e_dv[pass*GW+:GW];
    assign l_b = e_b[pass*GW+:GW];
    if (NP == 1) begin : g_row
      assign e_res = l_res;
    end else begin : g_rest
      assign e_res = {l_res, wl_d[ACC_DW-GW-1:0]};
    end
  end else if (K > 1) begin : g_steps
    // Passes of K cycles (a multiply) or 1: the whole row's operands are
    // held, the current group at the bottom, shifted down after each pass.
    logic [PC_W-1:0] left;  // cycles left after this one, from the second on
    logic [KS_W-1:0] ms_q;
    logic [ACC_DW-1:0] x_dv, x_b;
    logic pass_end;
    assign e_b = q_use_imm ? imm_row : e_ov;
    assign e_hold = 1'b0;
    assign wl_pass = '0;
    assign mstep = e_valid ? '0 : ms_q;
    assign pass_end = !q_mul || mstep == KS_W'(K - 1);
    always_ff @(posedge clk) begin
      if (rst) left <= '0;
      else if (e_valid) left <= npc - PC_W'(1);
      else if (left != '0) left <= left - PC_W'(1);
      ms_q <= pass_end ? '0 : mstep + KS_W'(1);
      if (e_valid || pass_end) x_dv <= ACC_DW'((e_valid ? e_dv : x_dv) >> (pass_end ? GW : 0));
      if (e_valid || pass_end) x_b <= ACC_DW'((e_valid ? e_b : x_b) >> (pass_end ? GW : 0));
    end
    assign e_fin = npc == PC_W'(1) ? e_valid : left == PC_W'(1);
    assign l_dv = e_valid ? e_dv[GW-1:0] : x_dv[GW-1:0];
    assign l_b = e_valid ? e_b[GW-1:0] : x_b[GW-1:0];
    if (NP == 1) begin : g_row
      assign e_res = l_res;
    end else begin : g_rows
      logic [ACC_DW-GW-1:0] x_res;
      always_ff @(posedge clk)
        if (pass_end) x_res <= (ACC_DW - GW)'({l_res, x_res} >> GW);
      assign e_res = {l_res, x_res};
    end
  end else if (NP == 1) begin : g_full
    assign e_b = q_use_imm ? imm_row : e_ov;
    assign e_hold = 1'b0;
    assign wl_pass = '0;
    assign mstep = '0;
    assign e_fin = e_valid;
    assign l_dv = e_dv;
    assign l_b = e_b;
    assign e_res = l_res;
  end else begin : g_shared
    localparam int RW = ACC_DW - GW;  // the groups after the first
    assign e_b = q_use_imm ? imm_row : e_ov;
    assign e_hold = 1'b0;
    assign wl_pass = '0;
    assign mstep = '0;
    logic [PC_W-1:0] left;  // passes left after this one, from the second pass on
    logic [RW-1:0] x_dv, x_b, x_res;
    always_ff @(posedge clk) begin
      if (rst) left <= '0;
      else if (e_valid) left <= PC_W'(NP - 1);
      else if (left != '0) left <= left - PC_W'(1);
      // Operand groups shift down (the next pass's at the bottom), results in at the top.
      x_dv <= e_valid ? e_dv[ACC_DW-1:GW] : RW'(x_dv >> GW);
      x_b <= e_valid ? e_b[ACC_DW-1:GW] : RW'(x_b >> GW);
      x_res <= RW'({l_res, x_res} >> GW);
    end
    assign e_fin = left == PC_W'(1);
    assign l_dv = e_valid ? e_dv[GW-1:0] : x_dv[GW-1:0];
    assign l_b = e_valid ? e_b[GW-1:0] : x_b[GW-1:0];
    assign e_res = {l_res, x_res};
  end
  if (HAS_ALU) begin : g_lanes
    for (genvar l = 0; l < NL; l++) begin : g_lane
      logic [AW_-1:0] r;
      tsr_alu_lane #(
          .W(AW_),
          .K(K),
          .OP_W(OP_W),
          .OP_MIN(OP_W'(TSR_ALU_MIN)),
          .OP_MAX(OP_W'(TSR_ALU_MAX)),
          .OP_ADD(OP_W'(TSR_ALU_ADD)),
          .OP_SHR(OP_W'(TSR_ALU_SHR)),
          .OP_MUL(OP_W'(TSR_ALU_MUL)),
          .OP_MULSHR(OP_W'(TSR_ALU_MULSHR)),
          .OP_CLIP(OP_W'(TSR_ALU_CLIP)),
          .OP_MULSHRC(OP_W'(TSR_ALU_MULSHRC))
      ) u_lane (
          .clk(clk),
          .mstep(mstep),
          .op(q_op),
          .dst(l_dv[l*AW_+:AW_]),
          .b(l_b[l*AW_+:AW_]),
          .shamt(q_imm[TSR_ALU_IMM_SHIFT_LSB+:TSR_ALU_IMM_SHIFT_W]),
          .clip({q_imm[TSR_ALU_IMM_RELU_LSB], q_imm[TSR_ALU_IMM_C_LSB+:TSR_ALU_IMM_C_W]}),
          .result(r)
      );
      assign l_res[l*AW_+:AW_] = q_reset ? '0 : r;
    end
  end else begin : g_no_lanes
    assign l_res = '0;
    /* verilator lint_off UNUSEDSIGNAL */  // the ALU operands of the pipe not built
    logic unused;
    assign unused = ^{q_op, l_dv, l_b, mstep};
    /* verilator lint_on UNUSEDSIGNAL */
  end

  // ---- The acc read port: ALU stage A (source, then destination) or the
  // GEMM operand read; never both (one instruction at a time).
  always_comb begin
    acc_re = 1'b0;
    acc_ra = a_dst;
    if (a2_valid) begin
      acc_re = 1'b1;
      acc_ra = a2_dst;
    end else if (a_valid && q_alu) begin
      acc_re = !q_reset;
      acc_ra = need2 ? ACC_AW'(a_src) : a_dst;
    end else if (g_rd_en) begin
      acc_re = !q_reset;
      acc_ra = g_rd_addr;
    end
  end

  // ---- The write port: acc and its narrowed shadow out.
  assign acc_we = gc_valid || alu_we;
  assign acc_wa = gc_valid ? gc_dst : alu_wa;
  assign acc_wd = gc_valid ? gc_out : alu_wd;
  assign out_we = acc_we;
  assign out_wa = acc_wa;
  for (genvar l = 0; l < LANES; l++) begin : g_out
    assign out_wd[l*TSR_OUT_BITS+:TSR_OUT_BITS] = acc_wd[l*AW_+:TSR_OUT_BITS];
  end
  assign macs_inc = (gc_valid && !gc_reset) ? 64'(TSR_MACS_PER_CYCLE) : 64'd0;

  // ---- End: P cycles after the last iteration's A stage (or after S when
  // the loop is empty).
  logic tail_ev;
  assign tail_ev = (start && !c_on) || (a_valid && a_last && !need2) || (a2_valid && a2_last);
  logic tail_on;
  logic [CNT_W-1:0] tail_cnt;
  always_ff @(posedge clk) begin
    if (rst) begin
      tail_on <= 1'b0;
    end else if (tail_ev) begin
      tail_on <= 1'b1;
      // An ALU's last iteration: its NPC - 1 further pass cycles too (none when the loop is empty).
      tail_cnt <= !k_alu ? CNT_W'(P_GEMM - 1) : (start && !c_on) ? CNT_W'(P_ALU - 1) : CNT_W'(P_ALU - 2) + CNT_W'(npc);
    end else if (tail_on) begin
      tail_on <= tail_cnt != '0;
      tail_cnt <= tail_cnt - CNT_W'(1);
    end
  end
  assign done = tail_on && tail_cnt == '0;

  logic act;
  always_ff @(posedge clk) begin
    if (rst) act <= 1'b0;
    else if (start) act <= 1'b1;
    else if (done) act <= 1'b0;
  end
  assign busy = start || (act && !done);
endmodule
