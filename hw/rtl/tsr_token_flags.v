// The dependency-token queues an instruction of module MOD (TSR_MODULE_*)
// pops (POPS = 1: its pop_prev/pop_next flags) or pushes (POPS = 0: its
// push_prev/push_next flags), one bit per queue in TSR_TQ_* order: the
// neighbour before MOD is load -> compute -> store's previous module, the
// one after it the next (isa.def TSR_TOKEN_QUEUE). Combinational.
module tsr_token_flags #(
    parameter int MOD  = 0,
    parameter bit POPS = 1'b0
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [127:0] insn,  // only the four flag bits are read
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [  3:0] queues
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */

  logic prev, next;
  assign prev = POPS ? insn[TSR_MEM_POP_PREV_LSB] : insn[TSR_MEM_PUSH_PREV_LSB];
  assign next = POPS ? insn[TSR_MEM_POP_NEXT_LSB] : insn[TSR_MEM_PUSH_NEXT_LSB];
  always_comb begin
    queues = '0;
    if (MOD == TSR_MODULE_LOAD) begin
      if (POPS && next) queues[TSR_TQ_COMPUTE_TO_LOAD] = 1'b1;
      if (!POPS && next) queues[TSR_TQ_LOAD_TO_COMPUTE] = 1'b1;
    end else if (MOD == TSR_MODULE_COMPUTE) begin
      if (POPS && prev) queues[TSR_TQ_LOAD_TO_COMPUTE] = 1'b1;
      if (POPS && next) queues[TSR_TQ_STORE_TO_COMPUTE] = 1'b1;
      if (!POPS && prev) queues[TSR_TQ_COMPUTE_TO_LOAD] = 1'b1;
      if (!POPS && next) queues[TSR_TQ_COMPUTE_TO_STORE] = 1'b1;
    end else begin
      if (POPS && prev) queues[TSR_TQ_COMPUTE_TO_STORE] = 1'b1;
      if (!POPS && prev) queues[TSR_TQ_STORE_TO_COMPUTE] = 1'b1;
    end
  end
endmodule
