// The range check of a LOAD/STORE at its start (sim/core.cc CheckMem): the
// scratchpad entries [sram, sram + n) (LOAD: rows * cols, padding included;
// STORE: y_size * x_size) must exist, and the DRAM bytes of the transfer
// (STORE: padding included) must lie inside the DRAM window. Combinational.
module tsr_mem_check (
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats
    input  logic [127:0] insn,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic         fault
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  logic [63:0] ys, xs, stride, yp0, yp1, xp0, xp1, sram, dram, rows, cols, n, entries, eb, rs, cs, last;
  logic store;
  always_comb begin
    store = 32'(insn[TSR_MEM_OPCODE_LSB+:TSR_MEM_OPCODE_W]) == TSR_OP_STORE;
    sram = 64'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]);
    dram = 64'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]);
    ys = 64'(insn[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W]);
    xs = 64'(insn[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W]);
    stride = 64'(insn[TSR_MEM_X_STRIDE_LSB+:TSR_MEM_X_STRIDE_W]);
    yp0 = 64'(insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W]);
    yp1 = 64'(insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W]);
    xp0 = 64'(insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W]);
    xp1 = 64'(insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W]);
    rows = yp0 + ys + yp1;
    cols = xp0 + xs + xp1;
    n = store ? ys * xs : rows * cols;
    case (32'(insn[TSR_MEM_MEM_LSB+:TSR_MEM_MEM_W]))
      TSR_MEMTYPE_UOP: begin
        entries = 64'(TSR_UOP_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_UOP);
      end
      TSR_MEMTYPE_WGT: begin
        entries = 64'(TSR_WGT_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_WGT);
      end
      TSR_MEMTYPE_INP: begin
        entries = 64'(TSR_INP_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_INP);
      end
      TSR_MEMTYPE_ACC: begin
        entries = 64'(TSR_ACC_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_ACC);
      end
      TSR_MEMTYPE_ACC8: begin
        entries = 64'(TSR_ACC_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_ACC8);
      end
      default: begin  // out
        entries = 64'(TSR_ACC_ENTRIES);
        eb = 64'(TSR_ELEM_BYTES_OUT);
      end
    endcase
    rs = store ? rows : ys;
    cs = store ? cols : xs;
    last = (dram + (rs - 1) * stride + cs) * eb;
    fault = sram + n > entries || (rs != 0 && cs != 0 && last > 64'(TSR_CFG_DRAM_SIZE_BYTES));
  end
endmodule
