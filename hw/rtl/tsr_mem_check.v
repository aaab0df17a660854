// The range check of a LOAD/STORE at its start (sim/core.cc CheckMem): the
// scratchpad entries [sram, sram + n) (LOAD: rows * cols, padding included;
// STORE: y_size * x_size) must exist, and the DRAM bytes of the transfer
// (STORE: padding included) must lie inside the DRAM window. Combinational.
// Two products at the fields' widths (n, and the last row's offset rs-1
// times the stride); element sizes are powers of two, so the DRAM test
// compares the element index of the end, dram + (rs-1)*stride + cs, with
// floor(DRAM size / E) (x * E > D exactly when x > floor(D / E)).
module tsr_mem_check (
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats
    input  logic [127:0] insn,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic         fault
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int XW = TSR_MEM_X_SIZE_W, YW = TSR_MEM_Y_SIZE_W, PW = TSR_MEM_Y_PAD0_W, SW = TSR_MEM_X_STRIDE_W;
  localparam int RW = (YW > PW ? YW : PW) + 2;  // rows, padding included
  localparam int CW = (XW > PW ? XW : PW) + 2;  // columns, padding included
  localparam int NW = RW + CW + 1;  // sram + n
  localparam int DW = (TSR_MEM_DRAM_W > RW + SW ? TSR_MEM_DRAM_W : RW + SW) + 2;  // the end's element index
  localparam logic [63:0] DSIZE = 64'(TSR_CFG_DRAM_SIZE_BYTES);
  function automatic logic [63:0] dram_elems(input int e);  // floor(DRAM size / e)
    dram_elems = DSIZE / 64'(e);
  endfunction

  logic [YW-1:0] ys;
  logic [XW-1:0] xs;
  logic [SW-1:0] stride;
  logic [PW-1:0] yp0, yp1, xp0, xp1;
  logic [RW-1:0] rows, rs, nr, rs1;
  logic [CW-1:0] cols, cs, nc;
  logic [NW-1:0] n, entries;
  logic [DW-1:0] last, elems;
  logic store;
  always_comb begin
    store = 32'(insn[TSR_MEM_OPCODE_LSB+:TSR_MEM_OPCODE_W]) == TSR_OP_STORE;
    ys = insn[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W];
    xs = insn[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W];
    stride = insn[TSR_MEM_X_STRIDE_LSB+:TSR_MEM_X_STRIDE_W];
    yp0 = insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W];
    yp1 = insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W];
    xp0 = insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W];
    xp1 = insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W];
    rows = RW'(yp0) + RW'(ys) + RW'(yp1);
    cols = CW'(xp0) + CW'(xs) + CW'(xp1);
    // DRAM extent: STORE rows x cols (padding written), LOAD ys x xs.
    rs = store ? rows : RW'(ys);
    cs = store ? cols : CW'(xs);
    // Scratchpad entries: STORE ys * xs, LOAD rows * cols.
    nr = store ? RW'(ys) : rows;
    nc = store ? CW'(xs) : cols;
    n = NW'(nr) * NW'(nc);
    case (32'(insn[TSR_MEM_MEM_LSB+:TSR_MEM_MEM_W]))
      TSR_MEMTYPE_UOP: begin
        entries = NW'(TSR_UOP_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_UOP));
      end
      TSR_MEMTYPE_WGT: begin
        entries = NW'(TSR_WGT_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_WGT));
      end
      TSR_MEMTYPE_INP: begin
        entries = NW'(TSR_INP_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_INP));
      end
      TSR_MEMTYPE_ACC: begin
        entries = NW'(TSR_ACC_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_ACC));
      end
      TSR_MEMTYPE_ACC8: begin
        entries = NW'(TSR_ACC_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_ACC8));
      end
      default: begin  // out
        entries = NW'(TSR_ACC_ENTRIES);
        elems = DW'(dram_elems(TSR_ELEM_BYTES_OUT));
      end
    endcase
    rs1 = rs - 1'b1;
    last = DW'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]) + DW'(rs1) * DW'(stride) + DW'(cs);
    fault = NW'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]) + n > entries || (rs != 0 && cs != 0 && last > elems);
  end
endmodule
