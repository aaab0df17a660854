// The DMA read engine of a LOAD (docs/microarch.md "LOAD"): from the start
// cycle S it waits T_setup cycles, writes the P padding entries one a cycle
// (row-major order, `pw_*`), then from R0 = S + T_setup + P requests the data
// rows' bursts in address order (split at 4 KiB and 256 beats, one request a
// cycle) and turns the returning beats into scratchpad writes (`dw_*`): one
// whole element a write when E >= B (E a multiple of B), else (uops) `dw_n`
// consecutive elements of one beat, shifted to the bottom of `dw_data`.
// `ended` is high in End = max(S + 1, R0, completion of the last burst);
// `busy_part` = T_setup + P + beats of the bursts requested so far (read at
// End only: counted as the pads are written and the bursts granted).
// Datapath (no multiplier but one, no divider): every address and entry is
// a running sum stepped along the row/column loops; element sizes are powers
// of two, so x * E is a shift; beats are assembled in place (slot k of the
// element register written by beat k, the last beat passed through), a
// sub-beat uop group is moved down by a log-depth shifter. Addresses are
// kept modulo 2^AW (AW bits cover the DRAM: the range check faults any LOAD
// reaching past it before a request), entries modulo 2^TSR_MEM_SRAM_W.
// The one product: the first entry after the data rows, needed when a LOAD
// has padding rows but no padding columns (ysize * xsize, from S + T_setup).
// Contract: T_setup >= 1; a new `start` only after `ended`; `elem_bytes` is
// a power of two, one of the header's TSR_ELEM_BYTES_*, at most MAXE; the beats
// of this requester arrive in request order (`beat_valid`) and `cpl` is high
// in the completion cycle of each of its bursts. HELD (the serial core's one
// command slot): `insn` stays the running LOAD's from its start to its end,
// so the engine reads its sizes and padding there instead of holding copies
// (the element size and the shifted pitch stay registered: measured cheaper).
module tsr_dma_rd #(
    parameter int MAXE = 64,  // largest element (bytes) of the memory types served
    parameter bit HELD = 1'b0
) (
    input  logic                clk,
    input  logic                clr,
    input  logic                run,
    input  logic                start,
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats; elem_bytes: one bit set
    input  logic [       127:0] insn,
    input  logic [        31:0] elem_bytes,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                active,
    output logic                pw_valid,
    output logic [        31:0] pw_entry,
    output logic                dw_valid,
    output logic [        31:0] dw_entry,
    output logic [        31:0] dw_n,
    output logic [    8*WD-1:0] dw_data,
    output logic                req,
    output logic [      AW-1:0] req_addr,
    output logic [        12:0] req_bytes,
    input  logic                grant,
    input  logic                beat_valid,
    input  logic [8*BEAT_B-1:0] beat_data,
    input  logic                cpl,
    output logic                ended,
    output logic [CTR_W-1:0]    busy_part  // counters.bits wide (the counters wrap at it)
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int WD = MAXE > BEAT_B ? MAXE : BEAT_B;
  localparam int T_SETUP = TSR_CFG_TIMING_DMA_SETUP_CYCLES;
  localparam int LOGB = $clog2(BEAT_B);
  localparam int LB_W = LOGB > 0 ? LOGB : 1;
  localparam int NBEAT = WD / BEAT_B;  // beat slots of an element
  localparam int BI_W = NBEAT > 1 ? $clog2(NBEAT) : 1;
  localparam int LE_W = $clog2($clog2(WD) + 1);  // log2(E) <= log2(WD)
  // The smallest element: sub-beat groups start at multiples of it.
  localparam int G = TSR_ELEM_BYTES_MIN;
  localparam int NG = BEAT_B > G ? BEAT_B / G : 1;  // sub-beat shift positions
  localparam int NG_W = NG > 1 ? $clog2(NG) : 1;
  localparam int LOGG = $clog2(G);
  localparam int AW = TSR_DEV_ADDR_BITS;
  localparam int CTR_W = TSR_CFG_COUNTERS_BITS;
  localparam int EW = TSR_MEM_SRAM_W;
  localparam int XW = TSR_MEM_X_SIZE_W, YW = TSR_MEM_Y_SIZE_W, PW = TSR_MEM_Y_PAD0_W, SW = TSR_MEM_X_STRIDE_W;
  localparam int RW = (YW > PW ? YW : PW) + 2;  // rows, padding included
  localparam int CW = (XW > PW ? XW : PW) + 2;  // columns, padding included
  localparam int RBW = XW + $clog2(WD) + 1;  // bytes of a data row
  localparam int OW = $clog2(TSR_CFG_DRAM_MAX_OUTSTANDING + 2);
  localparam int WC_W = $clog2(T_SETUP + 1) + 1;
  // Sub-beat elements (smaller than a beat) only if the config has one;
  // without them every address is B-aligned and a beat is at most one element.
  localparam bit SUBOK = G < BEAT_B;
  // log2(E) of the memory types: x << log2(E) multiplexes only the shift
  // bits in which they differ (DM) above the smallest (LMIN).
  localparam int L0 = $clog2(TSR_ELEM_BYTES_UOP), L1 = $clog2(TSR_ELEM_BYTES_WGT), L2 = $clog2(TSR_ELEM_BYTES_INP);
  localparam int L3 = $clog2(TSR_ELEM_BYTES_ACC), L4 = $clog2(TSR_ELEM_BYTES_ACC8);
  localparam int LMIN = $clog2(G);
  localparam int DM = (L0 - LMIN) | (L1 - LMIN) | (L2 - LMIN) | (L3 - LMIN) | (L4 - LMIN);

  // log2(elem_bytes): a power of two of at most WD bytes.
  logic [LE_W-1:0] f_le;
  always_comb begin
    f_le = '0;
    for (int i = 0; i < (1 << LE_W) && i < 32; i++) if (elem_bytes[i]) f_le = LE_W'(i);
  end

  function automatic logic [63:0] shl_e(input logic [63:0] x, input logic [LE_W-1:0] l);
    logic [LE_W-1:0] d;
    d = l - LE_W'(LMIN);
    shl_e = x << LMIN;
    for (int b = 0; b < LE_W; b++) if (DM[b] && d[b]) shl_e = shl_e << (1 << b);
  endfunction

  // Instruction fields.
  logic [EW-1:0] f_sram;
  logic [AW-1:0] f_dram;
  logic [YW-1:0] f_ysize;
  logic [XW-1:0] f_xsize;
  logic [SW-1:0] f_stride;
  logic [PW-1:0] f_yp0, f_yp1, f_xp0, f_xp1;
  logic [CW-1:0] f_cols;
  logic [RW-1:0] f_yend;
  logic f_nx;
  always_comb begin
    f_sram = EW'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]);
    f_dram = AW'(shl_e(64'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]), f_le));
    f_ysize = insn[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W];
    f_xsize = insn[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W];
    f_stride = insn[TSR_MEM_X_STRIDE_LSB+:TSR_MEM_X_STRIDE_W];
    f_yp0 = insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W];
    f_yp1 = insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W];
    f_xp0 = insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W];
    f_xp1 = insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W];
    f_cols = CW'(f_xp0) + CW'(f_xsize) + CW'(f_xp1);
    f_yend = RW'(f_yp0) + RW'(f_ysize);
    f_nx = f_xp0 == 0 && f_xp1 == 0;
  end
  // yp0 * c: shift-add over the few bits of the padding field.
  function automatic logic [EW-1:0] pad_times(input logic [PW-1:0] p, input logic [EW-1:0] c);
    logic [EW-1:0] s;
    s = '0;
    for (int i = 0; i < PW; i++) if (p[i]) s = s + (c << i);
    pad_times = s;
  endfunction

  // Held copies (from the start edge on; with HELD the instruction's own).
  logic [YW-1:0] rows_data, rq_row;
  logic [XW-1:0] xsize, rx_elem;
  logic [PW-1:0] xp0;
  logic [RW-1:0] yp0, yend, rows;
  logic [CW-1:0] cols;
  logic [LE_W-1:0] le;
  logic sub, pads_on, no_xpad;
  logic [BI_W-1:0] last_beat;  // beats per element - 1
  logic [AW-1:0] pitch;
  logic [RBW-1:0] row_bytes;
  logic [WC_W-1:0] wait_cnt;
  logic [CTR_W-1:0] busy_cnt;
  logic [OW-1:0] own_out;

  // Padding enumerator: position (pr, pc) and the entry of (pr, 0).
  logic [RW-1:0] pr;
  logic [CW-1:0] pc;
  logic [EW-1:0] pbase, post_base;  // post_base: the entry after the data rows (no padding columns)
  logic pad_left;
  function automatic logic is_data_row(input logic [RW-1:0] r, input logic [RW-1:0] p0, input logic [RW-1:0] pe);
    is_data_row = r >= p0 && r < pe;
  endfunction
  assign pad_left = pads_on && pr < rows;

  logic [RW-1:0] nxt_r;
  logic [CW-1:0] nxt_c;
  logic [EW-1:0] nxt_base;
  always_comb begin
    logic [RW-1:0] r1;
    r1 = pr + 1'b1;
    nxt_r = pr;
    nxt_c = pc + 1'b1;
    nxt_base = pbase;
    if (is_data_row(pr, yp0, yend) && nxt_c == CW'(xp0)) nxt_c = CW'(xp0) + CW'(xsize);
    if (nxt_c >= cols) begin  // the first padding position in row pr + 1 or later
      nxt_r = r1;
      nxt_base = pbase + EW'(cols);
      if (is_data_row(r1, yp0, yend) && no_xpad) begin
        nxt_r = yend;
        nxt_base = post_base;
      end
      nxt_c = (is_data_row(nxt_r, yp0, yend) && xp0 == 0) ? CW'(xsize) : '0;
    end
  end

  // Requests: the running address, the row's address and the bytes left in the row.
  logic [AW-1:0] rq_addr, rq_row_addr;
  logic [RBW-1:0] rq_left;
  logic [12:0] bytes;
  logic [13:0] rq_span, rq_beats;
  tsr_burst_len #(
      .LW(RBW)
  ) u_len (
      .lo(rq_addr[11:0]),
      .left(rq_left),
      .bytes(bytes)
  );
  always_comb begin
    rq_span = SUBOK ? 14'(rq_addr % AW'(BEAT_B)) + 14'(bytes) + 14'(BEAT_B - 1) : 14'(bytes);
    rq_beats = rq_span >> LOGB;
  end
  assign req = active && run && wait_cnt == 0 && !pad_left && rq_row != rows_data;
  assign req_addr = rq_addr;
  assign req_bytes = bytes;

  assign pw_valid = active && wait_cnt == 0 && pad_left;
  logic [EW-1:0] pentry;
  assign pentry = pbase + EW'(pc);
  assign pw_entry = 32'(pentry);

  assign ended = active && wait_cnt == 0 && !pad_left && rq_row == rows_data && own_out == OW'(cpl);
  assign busy_part = busy_cnt;

  // Receiving: element slot k holds beat k; the element's last beat is passed
  // through. Sub-beat: rx_lo is the byte offset of the next element in its beat.
  logic [EW-1:0] rx_entry, rx_base;
  logic [LB_W-1:0] rx_lo, rx_row_lo;
  logic [BI_W-1:0] rx_beat;
  logic [8*BEAT_B-1:0] asm_q[NBEAT];
  logic [8*BEAT_B-1:0] sub_data;
  logic [XW:0] n_now;
  logic row_done, beat_last;
  always_comb begin
    logic [LB_W:0] room;
    logic [NG_W-1:0] sh;
    room = (LB_W + 1)'(BEAT_B) - (LB_W + 1)'(rx_lo);
    room = room >> le;
    n_now = sub ? (XW + 1)'(room) : (XW + 1)'(1);
    if (SUBOK && n_now > (XW + 1)'(xsize - rx_elem)) n_now = (XW + 1)'(xsize - rx_elem);
    beat_last = sub || rx_beat == last_beat;
    dw_valid = beat_valid && beat_last;
    dw_entry = 32'(rx_entry);
    dw_n = 32'(n_now);
    sh = NG_W'(rx_lo >> LOGG);
    sub_data = beat_data;
    for (int s = 0; s < NG_W; s++) if (NG > 1 && sh[s]) sub_data = sub_data >> (8 * G << s);
    row_done = dw_valid && XW'(rx_elem + XW'(n_now)) == xsize;
  end
  for (genvar k = 0; k < NBEAT; k++) begin : g_slot
    // Can beat k be the last of an element of this config?
    localparam bit LASTOK = (k + 1) * BEAT_B == TSR_ELEM_BYTES_INP || (k + 1) * BEAT_B == TSR_ELEM_BYTES_WGT ||
        (k + 1) * BEAT_B == TSR_ELEM_BYTES_ACC || (k + 1) * BEAT_B == TSR_ELEM_BYTES_ACC8 ||
        (k + 1) * BEAT_B == TSR_ELEM_BYTES_UOP || k == 0;
    if (k == 0) begin : g_bottom
      assign dw_data[0+:8*BEAT_B] = sub ? sub_data : (rx_beat == 0 ? beat_data : asm_q[0]);
    end else if (k == NBEAT - 1) begin : g_top  // only an element of NBEAT beats ends here
      assign dw_data[k*8*BEAT_B+:8*BEAT_B] = beat_data;
    end else if (LASTOK) begin : g_last
      assign dw_data[k*8*BEAT_B+:8*BEAT_B] = rx_beat == BI_W'(k) ? beat_data : asm_q[k];
    end else begin : g_mid
      assign dw_data[k*8*BEAT_B+:8*BEAT_B] = asm_q[k];
    end
    if (k == 0 || k < NBEAT - 1) begin : g_reg
      always_ff @(posedge clk) if (beat_valid && rx_beat == BI_W'(k)) asm_q[k] <= beat_data;
    end
  end

  logic [RW-1:0] f_rows;
  logic [YW-1:0] f_rows_data;
  assign f_rows = f_yend + RW'(f_yp1);
  assign f_rows_data = f_xsize != 0 ? f_ysize : '0;
  if (HELD) begin : g_held
    assign xsize = f_xsize;
    assign yp0 = RW'(f_yp0);
    assign yend = f_yend;
    assign rows = f_rows;
    assign xp0 = f_xp0;
    assign cols = f_cols;
    assign no_xpad = f_nx;
    assign pads_on = f_cols != 0;
    assign rows_data = f_rows_data;
  end else begin : g_copy
    always_ff @(posedge clk) begin
      if (clr) begin
        pads_on <= 1'b0;
        rows_data <= '0;
      end else if (start) begin
        xsize <= f_xsize;
        yp0 <= RW'(f_yp0);
        yend <= f_yend;
        rows <= f_rows;
        xp0 <= f_xp0;
        cols <= f_cols;
        no_xpad <= f_nx;
        pads_on <= f_cols != 0;
        rows_data <= f_rows_data;
      end
    end
  end
  always_ff @(posedge clk) begin
    if (!clr && start) begin
      le <= f_le;
      sub <= SUBOK && 32'(elem_bytes) < BEAT_B;
      last_beat <= BI_W'((elem_bytes >> LOGB) - 1);
      pitch <= AW'(shl_e(64'(f_stride), f_le));
      row_bytes <= RBW'(shl_e(64'(f_xsize), f_le));
    end
  end

  always_ff @(posedge clk) begin
    if (clr) begin
      active <= 1'b0;
      wait_cnt <= '0;
      rq_row <= '0;
      own_out <= '0;
    end else begin
      own_out <= own_out + OW'(grant) - OW'(cpl);
      if (start) begin
        logic [EW-1:0] rb, pb;
        logic skip0;
        rb = f_sram + pad_times(f_yp0, EW'(f_cols)) + EW'(f_xp0);
        pb = rb + EW'(EW'(f_ysize) * EW'(f_xsize));  // the entry after the data rows
        active <= 1'b1;
        wait_cnt <= WC_W'(T_SETUP - 1);
        busy_cnt <= CTR_W'(T_SETUP);
        // enter_row(0): with no padding columns and data from row 0 the
        // padding starts after the data rows (its entry is post_base then).
        skip0 = f_yp0 == 0 && f_ysize != 0 && f_nx;
        pr <= skip0 ? f_yend : '0;
        pc <= (!skip0 && f_yp0 == 0 && f_ysize != 0 && f_xp0 == 0) ? CW'(f_xsize) : '0;
        post_base <= pb;
        pbase <= skip0 ? pb : f_sram;
        rq_row <= '0;
        rq_row_addr <= f_dram;
        rq_addr <= f_dram;
        rq_left <= RBW'(shl_e(64'(f_xsize), f_le));
        rx_base <= rb;
        rx_entry <= rb;
        rx_elem <= '0;
        rx_beat <= '0;
        rx_lo <= LB_W'(f_dram % AW'(BEAT_B));
        rx_row_lo <= LB_W'(f_dram % AW'(BEAT_B));
      end else begin
        if (ended) active <= 1'b0;
        if (active && wait_cnt != 0) wait_cnt <= wait_cnt - 1'b1;
        if (pw_valid) begin
          busy_cnt <= busy_cnt + CTR_W'(1);
          pr <= nxt_r;
          pc <= nxt_c;
          pbase <= nxt_base;
        end
        if (grant) begin
          busy_cnt <= busy_cnt + CTR_W'(rq_beats);
          if (RBW'(bytes) == rq_left) begin
            rq_row <= rq_row + 1'b1;
            rq_row_addr <= rq_row_addr + pitch;
            rq_addr <= rq_row_addr + pitch;
            rq_left <= row_bytes;
          end else begin
            rq_addr <= rq_addr + AW'(bytes);
            rq_left <= rq_left - RBW'(bytes);
          end
        end
        if (beat_valid) rx_beat <= beat_last ? '0 : rx_beat + 1'b1;
        if (dw_valid) begin
          if (row_done) begin
            rx_base <= rx_base + EW'(cols);
            rx_entry <= rx_base + EW'(cols);
            rx_elem <= '0;
            rx_row_lo <= rx_row_lo + LB_W'(pitch % AW'(BEAT_B));
            rx_lo <= rx_row_lo + LB_W'(pitch % AW'(BEAT_B));
          end else begin
            rx_entry <= rx_entry + EW'(n_now);
            rx_elem <= rx_elem + XW'(n_now);
            rx_lo <= rx_lo + LB_W'(n_now << le);
          end
        end
      end
    end
  end
endmodule
