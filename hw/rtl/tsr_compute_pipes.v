// The compute module's instruction controller with two pipes, used instead
// of tsr_unit when timing.compute_overlap is 1 (docs/microarch.md "Overlap:
// the compute module's two pipes"; sim/timing.h PipesAllow): two slots share
// the command queue. Slot A (the ALU pipe) runs ALU, LOAD acc/acc8 and the
// instructions that take both pipes (LOAD uop, FINISH); slot G (the GEMM pipe) GEMM.
// Phase 2, the older slot first: a slot whose instruction ends (`end_a`,
// `end_g`) or which holds a completed one performs its pushes when every
// target queue can take a token; a younger slot's push into a queue the older
// slot (still running or holding) also pushes into waits, and a push into a
// queue the older slot pushed into in this cycle needs room for two
// (`tq_can_push2`, `tq_push2`). Phase 3: the command-queue head starts (at
// most one a cycle, dispatched in an earlier cycle, pops available, not
// `hold`) when the pipes allow: a GEMM, ALU or LOAD acc/acc8 once its own pipe
// is free and the other is free or, with `ovl`, runs one of those; LOAD uop
// and FINISH once both are free.
// Statistics (sim/timing_engine.cc Account; tsr_unit's categories): a cycle
// either pipe runs an instruction is busy, once (each slot counts its
// instruction's End - S at the end, less one for each cycle both run; for
// slot A's LOAD, those cycles come from its wait on memory first);
// otherwise wait_token while a slot holds a completed instruction or the head
// waits, else trailing wait_queue. CW, IW: as tsr_unit.
module tsr_compute_pipes (
    input  logic          clk,
    input  logic          clr,
    input  logic [CW-1:0] cyc,
    input  logic          q_valid,
    input  logic [ 127:0] q_insn,
    input  logic [IW-1:0] q_index,
    input  logic          hold,
    input  logic          end_a,
    input  logic          end_g,
    input  logic [CW-1:0] busy_part,     // slot A's LOAD: T_setup + P + beats
    input  logic          dma,           // slot A runs a LOAD
    input  logic          last,
    input  logic [   3:0] tq_can_push,
    input  logic [   3:0] tq_can_push2,
    input  logic [   3:0] tq_can_pop,
    output logic [   3:0] tq_push,
    output logic [   3:0] tq_push2,
    output logic [   3:0] tq_pop,
    output logic          start,
    output logic          start_a,
    output logic          start_g,
    output logic          busy_a,        // in an instruction at the start of the cycle
    output logic          busy_g,
    output logic          completing_a,
    output logic          completing_g,
    output logic          a_older,       // both hold an instruction: slot A's is the older
    output logic [ 127:0] insn_a,
    output logic [ 127:0] insn_g,
    output logic [IW-1:0] index_a,
    output logic [IW-1:0] index_g,
    output logic [CW-1:0] inc_busy,
    output logic [CW-1:0] inc_wait_token,
    output logic [CW-1:0] inc_wait_queue,
    output logic [CW-1:0] inc_wait_memory
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int CW = TSR_CFG_COUNTERS_BITS;
  localparam int IW = TSR_STREAM_IDX_BITS;
  localparam logic [1:0] FREE = 2'd0, BUSY = 2'd1, PUSH = 2'd2;

  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [2:0] op_of(input logic [127:0] w);
    op_of = w[TSR_MEM_OPCODE_LSB+:3];
  endfunction
  // LOAD uop and FINISH take both pipes (sim/timing.h TakesBothPipes).
  function automatic logic both_of(input logic [127:0] w);
    both_of = 32'(op_of(w)) == TSR_OP_FINISH ||
              (32'(op_of(w)) == TSR_OP_LOAD && 32'(w[TSR_MEM_MEM_LSB+:3]) == TSR_MEMTYPE_UOP);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic [1:0] st_a, st_g;
  logic [CW-1:0] s_a, s_g, trailing;

  // ---- Phase 2: the older slot (o) first, then the younger (y).
  logic try_a, try_g, try_o, try_y, ok_o, ok_y, comp_o, comp_y, held_o;
  logic [3:0] need_a, need_g, need_o, need_y, pushed_o, room_y;
  tsr_token_flags #(
      .MOD (TSR_MODULE_COMPUTE),
      .POPS(1'b0)
  ) u_need_a (
      .insn  (insn_a),
      .queues(need_a)
  );
  tsr_token_flags #(
      .MOD (TSR_MODULE_COMPUTE),
      .POPS(1'b0)
  ) u_need_g (
      .insn  (insn_g),
      .queues(need_g)
  );
  assign try_a = (st_a == BUSY && end_a) || st_a == PUSH;
  assign try_g = (st_g == BUSY && end_g) || st_g == PUSH;
  assign try_o = a_older ? try_a : try_g;
  assign try_y = a_older ? try_g : try_a;
  assign need_o = a_older ? need_a : need_g;
  assign need_y = a_older ? need_g : need_a;
  assign ok_o = (need_o & ~tq_can_push) == '0;
  assign comp_o = try_o && ok_o;
  assign held_o = (a_older ? st_a != FREE : st_g != FREE) && !comp_o;
  assign pushed_o = comp_o ? need_o : '0;
  assign room_y = (pushed_o & tq_can_push2) | (~pushed_o & tq_can_push);
  assign ok_y = !(held_o && (need_y & need_o) != '0) && (need_y & ~room_y) == '0;
  assign comp_y = try_y && ok_y;
  assign tq_push = pushed_o | (comp_y ? need_y & ~pushed_o : '0);
  assign tq_push2 = comp_y ? need_y & pushed_o : '0;
  assign completing_a = a_older ? comp_o : comp_y;
  assign completing_g = a_older ? comp_y : comp_o;

  // ---- Phase 3: what each pipe holds after phase 2; the head's start.
  logic hold_a, hold_g, a_both, h_gemm, h_both, h_ovl, allow;
  assign hold_a = st_a != FREE && !completing_a;
  assign hold_g = st_g != FREE && !completing_g;
  assign a_both = both_of(insn_a);  // slot A holds a LOAD uop or FINISH
  assign h_gemm = 32'(op_of(q_insn)) == TSR_OP_GEMM;
  assign h_both = both_of(q_insn);
  always_comb begin
    case (32'(op_of(q_insn)))
      TSR_OP_GEMM: h_ovl = q_insn[TSR_GEMM_OVL_LSB];
      TSR_OP_ALU: h_ovl = q_insn[TSR_ALU_OVL_LSB];
      default: h_ovl = q_insn[TSR_MEM_OVL_LSB];  // LOAD (FINISH: h_both)
    endcase
    if (h_both) allow = !hold_a && !hold_g;
    else if (h_gemm) allow = !hold_g && (!hold_a || (h_ovl && !a_both));
    else allow = !hold_a && (!hold_g || h_ovl);
  end
  logic [3:0] need_pop;
  tsr_token_flags #(
      .MOD (TSR_MODULE_COMPUTE),
      .POPS(1'b1)
  ) u_need_pop (
      .insn  (q_insn),
      .queues(need_pop)
  );
  assign start = q_valid && !hold && allow && (need_pop & ~tq_can_pop) == '0;
  assign start_g = start && h_gemm;
  assign start_a = start && !h_gemm;
  assign tq_pop = start ? need_pop : '0;
  assign busy_a = st_a == BUSY;
  assign busy_g = st_g == BUSY;

  // ---- Cycle categories.
  logic in_a, in_g, pend, a_load, both;
  logic [CW-1:0] len_a, len_g, ib_a, ib_g, bp_a, w_a, fw_a, beside_a;
  assign in_a = start_a || (busy_a && !end_a);
  assign in_g = start_g || (busy_g && !end_g);
  assign a_load = 32'(op_of(start_a ? q_insn : insn_a)) == TSR_OP_LOAD;
  assign both = !last && in_a && in_g;
  assign pend = (try_a && !completing_a) || (try_g && !completing_g);
  assign len_a = cyc - s_a;
  assign len_g = cyc - s_g;
  always_comb begin
    ib_a = '0;
    ib_g = '0;
    inc_wait_memory = '0;
    inc_wait_token = '0;
    inc_wait_queue = '0;
    // Slot A's LOAD: its cycles beside slot G's instruction (`beside_a`)
    // come from its wait on memory first (sim/timing.h SplitDmaCycles).
    bp_a = (dma && busy_part < len_a) ? busy_part : len_a;
    w_a = len_a - bp_a;
    fw_a = beside_a < w_a ? beside_a : w_a;
    if (busy_a && end_a) begin
      ib_a = bp_a - (beside_a - fw_a);
      inc_wait_memory = w_a - fw_a;
    end
    if (busy_g && end_g) ib_g = len_g;
    if (last) begin
      if (busy_a && !end_a) ib_a = len_a;
      if (busy_g && !end_g) ib_g = len_g;
    end else if (start) begin
      inc_wait_queue = trailing;
    end else if (!in_a && !in_g && (pend || q_valid)) begin
      inc_wait_token = CW'(1);
    end
    inc_busy = ib_a + ib_g - CW'(both && !a_load);
  end

  always_ff @(posedge clk) begin
    if (clr) begin
      st_a <= FREE;
      st_g <= FREE;
      a_older <= 1'b1;
      trailing <= '0;
      s_a <= '0;
      s_g <= '0;
      insn_a <= '0;
      insn_g <= '0;
      beside_a <= '0;
      index_a <= '0;
      index_g <= '0;
    end else begin
      if (start_a) beside_a <= CW'(both && a_load);
      else if (both && a_load) beside_a <= beside_a + CW'(1);
      if (start_a) begin
        st_a <= BUSY;
        s_a <= cyc;
        insn_a <= q_insn;
        index_a <= q_index;
        a_older <= !hold_g;
      end else if (try_a) begin
        st_a <= completing_a ? FREE : PUSH;
      end
      if (start_g) begin
        st_g <= BUSY;
        s_g <= cyc;
        insn_g <= q_insn;
        index_g <= q_index;
        a_older <= hold_a;
      end else if (try_g) begin
        st_g <= completing_g ? FREE : PUSH;
      end
      if (start) trailing <= '0;
      else if (!in_a && !in_g && !pend && !q_valid) trailing <= trailing + CW'(1);
    end
  end
endmodule
