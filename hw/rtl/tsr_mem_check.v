// The range check of a LOAD/STORE at its start (sim/core.cc CheckMem): the
// scratchpad entries [sram, sram + n) (LOAD: rows * cols, padding included;
// STORE: y_size * x_size) must exist, and the DRAM bytes of the transfer
// (STORE: padding included) must lie inside the DRAM window. Combinational.
// Element sizes are powers of two, so the DRAM test compares the element
// index of the end, dram + (rs-1)*stride + cs, with floor(DRAM size / E)
// (x * E > D exactly when x > floor(D / E)). The two products (n, and the
// last row's offset (rs-1) * stride) are shift-add sums in LUTs (no DSP)
// saturating at 2^W: any product of 2^W or more faults whatever the other
// terms, W the bits of the largest limit (entries; DRAM elements), so the
// decision is exactly the full-width one.
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
  localparam int RW = $clog2((1 << YW) + 2 * (1 << PW) - 2);  // rows, padding included (at most 2^YW - 1 + 2 (2^PW - 1))
  localparam int CW = $clog2((1 << XW) + 2 * (1 << PW) - 2);  // columns, padding included
  localparam logic [63:0] DSIZE = 64'(TSR_CFG_DRAM_SIZE_BYTES);
  function automatic logic [63:0] dram_elems(input int e);  // floor(DRAM size / e)
    dram_elems = DSIZE / 64'(e);
  endfunction
  function automatic int max2(input int a, input int b);
    max2 = a > b ? a : b;
  endfunction
  localparam int EMAX = max2(max2(TSR_UOP_ENTRIES, TSR_WGT_ENTRIES), max2(TSR_INP_ENTRIES, TSR_ACC_ENTRIES));
  localparam int NW = $clog2(EMAX + 1);  // 2^NW > every scratchpad's entries
  localparam int MW = $clog2(dram_elems(TSR_ELEM_BYTES_MIN) + 1);  // 2^MW > every memory type's DRAM elements
  localparam int BW = max2(CW, SW);  // the second factor: columns or the stride
  localparam int SUMW = max2(max2(TSR_MEM_SRAM_W, NW), max2(TSR_MEM_DRAM_W, max2(MW, CW))) + 2;

  logic [YW-1:0] ys;
  logic [XW-1:0] xs;
  logic [SW-1:0] stride;
  logic [PW-1:0] yp0, yp1, xp0, xp1;
  logic [RW-1:0] rows, rs, nr, rs1;
  logic [CW-1:0] cols, cs, nc;
  logic [SUMW-1:0] n, entries, last, elems;
  localparam int PWMAX = NW > MW ? NW : MW;
  logic [RW-1:0] pa[2];
  logic [BW-1:0] pb[2];
  logic [PWMAX:0] pq[2];  // the saturated products
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
    case (32'(insn[TSR_MEM_MEM_LSB+:TSR_MEM_MEM_W]))
      TSR_MEMTYPE_UOP: begin
        entries = SUMW'(TSR_UOP_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_UOP));
      end
      TSR_MEMTYPE_WGT: begin
        entries = SUMW'(TSR_WGT_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_WGT));
      end
      TSR_MEMTYPE_INP: begin
        entries = SUMW'(TSR_INP_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_INP));
      end
      TSR_MEMTYPE_ACC: begin
        entries = SUMW'(TSR_ACC_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_ACC));
      end
      TSR_MEMTYPE_ACC8: begin
        entries = SUMW'(TSR_ACC_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_ACC8));
      end
      default: begin  // out
        entries = SUMW'(TSR_ACC_ENTRIES);
        elems = SUMW'(dram_elems(TSR_ELEM_BYTES_OUT));
      end
    endcase
    rs1 = rs - 1'b1;
  end

  // The products, min(a * b, 2^W): row i adds b's low W - i bits into bits
  // [W-1:i] of the sum (W - i wide); b's higher bits or a carry out of bit
  // W - 1 set the sticky `over`. 0: n = nr * nc, W = NW; 1: (rs-1) * stride, W = MW.
  assign pa[0] = nr;
  assign pb[0] = BW'(nc);
  assign pa[1] = rs1;
  assign pb[1] = BW'(stride);
  for (genvar k = 0; k < 2; k++) begin : g_prod
    localparam int W = k == 0 ? NW : MW;
    localparam int XB = (BW > W ? BW : W) + 1;
    logic [XB-1:0] bx;
    assign bx = XB'(pb[k]);
    for (genvar i = 0; i < RW; i++) begin : g_row
      logic [W-1:0] acc_i, acc_o;  // the sum before and after row i
      logic over_i, over_o;
      if (i == 0) begin : g_first
        assign acc_i = '0;
        assign over_i = 1'b0;
      end else begin : g_next
        assign acc_i = g_row[i-1].acc_o;
        assign over_i = g_row[i-1].over_o;
      end
      if (i < W) begin : g_add
        logic [W-i:0] t;
        assign t = (W - i + 1)'(W'(acc_i >> i)) + (W - i + 1)'(bx[W-i-1:0]);
        assign acc_o = pa[k][i] ? (W'(t) << i) | (acc_i & W'((64'd1 << i) - 1)) : acc_i;
        assign over_o = over_i || (pa[k][i] && (t[W-i] || (bx >> (W - i)) != 0));
      end else begin : g_over
        assign acc_o = acc_i;
        assign over_o = over_i || (pa[k][i] && bx != 0);
      end
    end
    assign pq[k] = g_row[RW-1].over_o ? (PWMAX + 1)'(1) << W : (PWMAX + 1)'(g_row[RW-1].acc_o);
  end
  assign n = SUMW'(pq[0]);
  assign last = SUMW'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]) + SUMW'(pq[1]) + SUMW'(cs);
  assign fault = SUMW'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]) + n > entries || (rs != 0 && cs != 0 && last > elems);
endmodule
