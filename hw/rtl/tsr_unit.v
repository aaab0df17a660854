// One module's instruction controller (load, compute or store; on the
// serial core the three modules' one, SERIAL below): phases 2 and 3 of docs/microarch.md "The cycle" and the module's cycle categories.
// Phase 2: an instruction whose end is signalled (`end_now`), or one already
// held because a push did not fit, performs all its pushes when every target
// token queue can take one (`tq_can_push`, counts at the start of the cycle);
// the module is then free. Phase 3: a free module whose command-queue head
// was dispatched in an earlier cycle (`q_valid`: the queue held it at the
// start of the cycle) and whose pops are available (`tq_can_pop`, which sees
// this cycle's pushes) starts it unless `hold` (run stopping).
// Statistics (sim/timing_engine.cc Account/Complete/Finish): at an end,
// min(End - S, busy_part) cycles are busy and the rest wait_memory; a cycle
// outside an instruction is wait_token when holding a completed instruction
// or a head waiting for pops, else it is kept as trailing wait_queue, added
// at the next start and dropped (idle) at the run's end. In the `last` cycle
// (FINISH's end) no category is counted for the cycle itself and a module
// still in an instruction counts its cycles so far as busy.
// Token queue bits: TSR_TQ_* order. MOD: this module's TSR_MODULE_* value.
// SERIAL (queues.serial, docs/microarch.md "Serial"): one unit serves the
// three modules (at most one instruction is queued, running or pushing):
// q_mod names the module of q_insn, whose one command slot holds it from
// dispatch until it completes (q_valid: not yet started), so the unit keeps
// no copy of it; the category outputs are per module (module m's at
// [m*CW +: CW]), each with its own trailing count. Otherwise MOD's, CW wide.
// Widths: cycle numbers and increments are CW = counters.bits wide (the
// counters they feed wrap at 2^CW, so only min(busy_part, End - S) needs the
// true length: exact while an instruction lasts under 2^CW cycles, which on
// the 32-bit configs' small DRAMs is minutes); stream indices IW bits.
module tsr_unit #(
    parameter int MOD = 0,
    parameter bit SERIAL = 1'b0
) (
    input  logic         clk,
    input  logic         clr,          // synchronous: the START edge (or reset)
    input  logic [CW-1:0] cyc,         // the current cycle number t (mod 2^CW)
    input  logic         q_valid,
    input  logic [127:0] q_insn,
    input  logic [IW-1:0] q_index,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [  1:0] q_mod,        // SERIAL: q_insn's TSR_MODULE_* (else unused)
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic         hold,         // no start in this cycle
    input  logic         end_now,      // the running instruction ends in this cycle
    input  logic [CW-1:0] busy_part,   // DMA: T_setup + P + beats; others: ignored (all busy)
    input  logic         dma,          // the running instruction is a LOAD/STORE
    input  logic         last,         // this cycle is the run's last (no categories)
    input  logic [  3:0] tq_can_push,
    input  logic [  3:0] tq_can_pop,
    output logic [  3:0] tq_push,
    output logic [  3:0] tq_pop,
    output logic         start,
    output logic         busy,         // in an instruction at the start of the cycle
    output logic         completing,   // end_now and all pushes done in this cycle
    output logic         free,         // no instruction held after phase 2 (before a start)
    output logic [127:0] cur_insn,
    output logic [IW-1:0] cur_index,
    output logic [NT*CW-1:0] inc_busy,
    output logic [NT*CW-1:0] inc_wait_token,
    output logic [NT*CW-1:0] inc_wait_queue,
    output logic [NT*CW-1:0] inc_wait_memory
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int CW = TSR_CFG_COUNTERS_BITS;
  localparam int IW = TSR_STREAM_IDX_BITS;
  localparam int NT = SERIAL ? 3 : 1;  // modules served

  localparam logic [1:0] FREE = 2'd0, BUSY = 2'd1, PUSH = 2'd2;
  logic [1:0] st;
  logic [CW-1:0] s_cycle;
  logic [CW-1:0] trailing[NT];

  logic [3:0] need_push, need_pop;
  logic [3:0] push_of[NT], pop_of[NT];
  logic [NT-1:0] own;  // module k's instruction is the unit's (running) or q_insn
  logic try_push, push_ok, free2;
  logic [CW-1:0] len;
  assign busy = st == BUSY;
  for (genvar k = 0; k < NT; k++) begin : g_mod
    tsr_token_flags #(
        .MOD (SERIAL ? k : MOD),
        .POPS(1'b0)
    ) u_need_push (
        .insn  (cur_insn),
        .queues(push_of[k])
    );
    tsr_token_flags #(
        .MOD (SERIAL ? k : MOD),
        .POPS(1'b1)
    ) u_need_pop (
        .insn  (q_insn),
        .queues(pop_of[k])
    );
    assign own[k] = !SERIAL || 32'(q_mod) == k;
  end
  if (SERIAL) begin : g_sel
    assign need_push = push_of[q_mod];
    assign need_pop = pop_of[q_mod];
  end else begin : g_one
    assign need_push = push_of[0];
    assign need_pop = pop_of[0];
  end
  assign try_push = (busy && end_now) || st == PUSH;
  assign push_ok = (need_push & ~tq_can_push) == '0;
  assign tq_push = (try_push && push_ok) ? need_push : '0;
  assign completing = try_push && push_ok;
  assign free2 = st == FREE || completing;
  assign free = free2;
  assign start = free2 && q_valid && !hold && (need_pop & ~tq_can_pop) == '0;
  assign tq_pop = start ? need_pop : '0;
  assign len = cyc - s_cycle;

  // Module k's view: free unless it owns the unit's instruction, its head
  // queued only when it owns q_insn.
  for (genvar k = 0; k < NT; k++) begin : g_cat
    logic free_k, q_valid_k, start_k;
    assign free_k = free2 || !own[k];
    assign q_valid_k = q_valid && own[k];
    assign start_k = start && own[k];
    always_comb begin
      inc_busy[k*CW+:CW] = '0;
      inc_wait_token[k*CW+:CW] = '0;
      inc_wait_queue[k*CW+:CW] = '0;
      inc_wait_memory[k*CW+:CW] = '0;
      if (own[k] && busy && end_now) begin
        inc_busy[k*CW+:CW] = (dma && busy_part < len) ? busy_part : len;
        inc_wait_memory[k*CW+:CW] = len - inc_busy[k*CW+:CW];
      end
      if (last) begin
        if (own[k] && busy && !end_now) inc_busy[k*CW+:CW] = len;
      end else if (start_k) begin
        inc_wait_queue[k*CW+:CW] = trailing[k];
      end else if (own[k] && try_push && !push_ok) begin
        inc_wait_token[k*CW+:CW] = CW'(1);
      end else if (free_k && q_valid_k) begin
        inc_wait_token[k*CW+:CW] = CW'(1);
      end
    end
    always_ff @(posedge clk) begin
      if (clr || start_k) trailing[k] <= '0;
      else if (free_k && !q_valid_k) trailing[k] <= trailing[k] + CW'(1);
    end
  end

  always_ff @(posedge clk) begin
    if (clr) begin
      st <= FREE;
      s_cycle <= '0;
    end else begin
      if (start) begin
        st <= BUSY;
        s_cycle <= cyc;
      end else if (try_push) st <= push_ok ? FREE : PUSH;
    end
  end
  if (SERIAL) begin : g_held
    assign cur_insn = q_insn;
    assign cur_index = q_index;
  end else begin : g_copy
    always_ff @(posedge clk) begin
      if (clr) begin
        cur_insn <= '0;
        cur_index <= '0;
      end else if (start) begin
        cur_insn <= q_insn;
        cur_index <= q_index;
      end
    end
  end
endmodule
