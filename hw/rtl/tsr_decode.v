// Instruction decode and legality (docs/isa.md "Illegal instructions",
// isa/encoding.cc Decode + sim/core.cc CheckFinishPlacement), combinational.
// Contract: `illegal` is high when the word does not decode for this config
// or breaks the stream rule (the last instruction of a `count`-instruction
// stream is its only FINISH); `module_id` is the executing module
// (TSR_MODULE_*), valid when !illegal. Field ranges need no check: a decoded
// field always fits its width.
module tsr_decode (
    input  logic [127:0] insn,
    input  logic [ 31:0] index,
    input  logic [ 31:0] count,
    output logic         illegal,
    output logic [  1:0] module_id
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */

  logic [2:0] op, mem;
  logic pop_prev, pop_next, push_prev, push_next;
  logic bad_fmt;
  logic [15:0] alu_imm_max;
  always_comb begin
    op = insn[TSR_MEM_OPCODE_LSB+:3];
    mem = insn[TSR_MEM_MEM_LSB+:3];
    pop_prev = insn[TSR_MEM_POP_PREV_LSB];
    pop_next = insn[TSR_MEM_POP_NEXT_LSB];
    push_prev = insn[TSR_MEM_PUSH_PREV_LSB];
    push_next = insn[TSR_MEM_PUSH_NEXT_LSB];
    bad_fmt = 1'b0;
    alu_imm_max = '0;
    module_id = 2'(TSR_MODULE_COMPUTE);
    case (32'(op))
      TSR_OP_LOAD, TSR_OP_STORE: begin
        if ((insn >> TSR_MEM_BITS_USED) != '0) bad_fmt = 1'b1;
        if (32'(mem) >= TSR_NUM_MEMTYPES) bad_fmt = 1'b1;
        if (32'(op) == TSR_OP_LOAD && 32'(mem) == TSR_MEMTYPE_OUT) bad_fmt = 1'b1;
        if (32'(op) == TSR_OP_STORE && 32'(mem) != TSR_MEMTYPE_OUT) bad_fmt = 1'b1;
        if (32'(mem) == TSR_MEMTYPE_UOP &&
            (insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W] != '0 || insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W] != '0 ||
             insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W] != '0 || insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W] != '0 ||
             insn[TSR_MEM_PAD_LSB+:TSR_MEM_PAD_W] != '0))
          bad_fmt = 1'b1;
        // ovl: only a LOAD of acc/acc8 (the compute module's ALU pipe) may overlap.
        if (insn[TSR_MEM_OVL_LSB] && !(32'(op) == TSR_OP_LOAD &&
                                       (32'(mem) == TSR_MEMTYPE_ACC || 32'(mem) == TSR_MEMTYPE_ACC8)))
          bad_fmt = 1'b1;
        if (32'(op) == TSR_OP_STORE) module_id = 2'(TSR_MODULE_STORE);
        else if (32'(mem) == TSR_MEMTYPE_WGT || 32'(mem) == TSR_MEMTYPE_INP) module_id = 2'(TSR_MODULE_LOAD);
      end
      TSR_OP_GEMM: begin
        if ((insn >> TSR_GEMM_BITS_USED) != '0) bad_fmt = 1'b1;
        if (32'(insn[TSR_GEMM_UOP_BGN_LSB+:TSR_GEMM_UOP_BGN_W]) >= 32'(insn[TSR_GEMM_UOP_END_LSB+:TSR_GEMM_UOP_END_W]))
          bad_fmt = 1'b1;
        if (32'(insn[TSR_GEMM_UOP_END_LSB+:TSR_GEMM_UOP_END_W]) > TSR_UOP_ENTRIES) bad_fmt = 1'b1;
      end
      TSR_OP_ALU: begin
        if ((insn >> TSR_ALU_BITS_USED) != '0) bad_fmt = 1'b1;
        if (32'(insn[TSR_ALU_UOP_BGN_LSB+:TSR_ALU_UOP_BGN_W]) >= 32'(insn[TSR_ALU_UOP_END_LSB+:TSR_ALU_UOP_END_W]))
          bad_fmt = 1'b1;
        if (32'(insn[TSR_ALU_UOP_END_LSB+:TSR_ALU_UOP_END_W]) > TSR_UOP_ENTRIES) bad_fmt = 1'b1;
        if (32'(insn[TSR_ALU_OP_LSB+:TSR_ALU_OP_W]) >= TSR_NUM_ALU_OPS) bad_fmt = 1'b1;
        else alu_imm_max = TSR_ALU_IMM_MAX_BY_OP[16*32'(insn[TSR_ALU_OP_LSB+:TSR_ALU_OP_W])+:16];
        // Vector-and-imm operations (a non-zero IMM_MAX): no use_imm, imm in [0, IMM_MAX].
        if (alu_imm_max != '0 && (insn[TSR_ALU_USE_IMM_LSB] || insn[TSR_ALU_IMM_LSB+TSR_ALU_IMM_W-1] ||
                                  32'(insn[TSR_ALU_IMM_LSB+:TSR_ALU_IMM_W]) > 32'(alu_imm_max)))
          bad_fmt = 1'b1;
      end
      TSR_OP_FINISH: if ((insn >> TSR_FINISH_BITS_USED) != '0) bad_fmt = 1'b1;
      default: bad_fmt = 1'b1;
    endcase
    // Dependency flags towards a missing neighbour.
    if (32'(module_id) == TSR_MODULE_LOAD && (pop_prev || push_prev)) bad_fmt = 1'b1;
    if (32'(module_id) == TSR_MODULE_STORE && (pop_next || push_next)) bad_fmt = 1'b1;
    illegal = bad_fmt || ((32'(op) == TSR_OP_FINISH) != (index == count - 1));
  end
endmodule
