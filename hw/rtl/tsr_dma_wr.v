// The DMA write engine of a STORE (docs/microarch.md "STORE"). Requests:
// from S + T_setup the out scratchpad is (notionally) read one data entry a
// cycle; DRAM row r (padding rows included) is written as bursts (4 KiB /
// 256 beats) ready from S + T_setup + data_r, data_r = data entries of rows
// 0..r. Data: a generator walks the same DRAM image (padding elements made
// from `pad`, data elements read from the out scratchpad, one beat a cycle)
// from the start cycle on, into a 4-beat FIFO that falls through to the W
// channel, so the beat the slave takes with WREADY is always presented
// (the W channel carries only this engine's bursts, in request order).
// `ended` is high in End = max(S + 1, S + T_setup, last write response).
// Datapath: no multiplier, no divider. Out elements are a power of two of
// bytes (x * E is a shift); every address is a running sum stepped along the
// rows (data entries before row r: + x_size per data row); the generator
// keeps only the low 12 bits of its address (the 4 KiB split). Request
// addresses are kept modulo 2^AW (AW bits cover the DRAM: the range check
// faults a STORE reaching past it before any request), entries modulo
// 2^TSR_MEM_SRAM_W.
// Contract: T_setup >= 1; out elements are a multiple of B bytes (so every
// burst is B-aligned); `cpl` is high in the completion cycle of each burst.
// HELD (the serial core's one command slot): `insn` stays the running
// STORE's from its start to its end, so the engine reads its fields there
// instead of holding copies.
module tsr_dma_wr #(
    parameter bit HELD = 1'b0
) (
    input  logic                clk,
    input  logic                clr,
    input  logic                run,
    input  logic                start,
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats
    input  logic [       127:0] insn,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic                active,
    output logic                re,
    output logic [        31:0] raddr,
    input  logic [  OUT_DW-1:0] rdata,
    output logic                req,
    output logic [      AW-1:0] req_addr,
    output logic [        12:0] req_bytes,
    input  logic                grant,
    input  logic                cpl,
    output logic                wvalid,
    output logic [8*BEAT_B-1:0] wdata,
    output logic                wlast,
    input  logic                wready,
    output logic                ended,
    output logic [CTR_W-1:0]    busy_part  // counters.bits wide (the counters wrap at it)
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int E = TSR_ELEM_BYTES_OUT;
  localparam int EB = E / BEAT_B;  // beats per element
  localparam int OUT_DW = 8 * E;
  localparam int T_SETUP = TSR_CFG_TIMING_DMA_SETUP_CYCLES;
  localparam int LANES_PER_BEAT = 8 * BEAT_B / TSR_OUT_BITS;
  localparam int LOGB = $clog2(BEAT_B);
  localparam int LOGE = $clog2(E);
  localparam int BI_W = EB > 1 ? $clog2(EB) : 1;
  localparam int AW = TSR_DEV_ADDR_BITS;
  localparam int CTR_W = TSR_CFG_COUNTERS_BITS;
  localparam int EW = TSR_MEM_SRAM_W;
  localparam int XW = TSR_MEM_X_SIZE_W, YW = TSR_MEM_Y_SIZE_W, PW = TSR_MEM_Y_PAD0_W, SW = TSR_MEM_X_STRIDE_W;
  localparam int RW = $clog2((1 << YW) + 2 * (1 << PW) - 2);  // rows, padding included (at most 2^YW - 1 + 2 (2^PW - 1))
  localparam int CW = $clog2((1 << XW) + 2 * (1 << PW) - 2);  // columns, padding included
  localparam int RBW = CW + LOGE;  // bytes of a DRAM row
  localparam int OW = $clog2(TSR_CFG_DRAM_MAX_OUTSTANDING + 2);
  localparam int WC_W = $clog2(T_SETUP + 1) + 1;
  // Data entries read / needed: at most y_size * x_size <= the out
  // scratchpad's entries (the range check), so RD_W bits, the read count
  // saturating at its maximum (>= every need: the comparison stays exact).
  localparam int RD_W = $clog2(TSR_ACC_ENTRIES + 1);

  logic [EW-1:0] f_sram;
  logic [AW-1:0] f_dram;
  logic [YW-1:0] f_ysize;
  logic [XW-1:0] f_xsize;
  logic [SW-1:0] f_stride;
  logic [PW-1:0] f_yp0, f_yp1, f_xp0, f_xp1;
  logic [7:0] f_pad;
  logic [CW-1:0] f_cols, f_xend;
  logic [RW-1:0] f_rows, f_yend;
  logic [RBW-1:0] f_row_bytes;
  always_comb begin
    f_sram = EW'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]);
    f_dram = AW'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]) << LOGE;
    f_ysize = insn[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W];
    f_xsize = insn[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W];
    f_stride = insn[TSR_MEM_X_STRIDE_LSB+:TSR_MEM_X_STRIDE_W];
    f_yp0 = insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W];
    f_yp1 = insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W];
    f_xp0 = insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W];
    f_xp1 = insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W];
    f_pad = insn[TSR_MEM_PAD_LSB+:8];
    f_xend = CW'(f_xp0) + CW'(f_xsize);
    f_yend = RW'(f_yp0) + RW'(f_ysize);
    f_cols = f_xend + CW'(f_xp1);
    f_rows = f_cols != 0 ? f_yend + RW'(f_yp1) : '0;
    f_row_bytes = RBW'(f_cols) << LOGE;
  end

  // Held fields (the row's bytes a wire: a constant shift of the columns;
  // with HELD the instruction's own).
  logic [RW-1:0] h_yp0, h_yend, h_rows;
  logic [CW-1:0] h_xp0, h_xend, h_cols;
  /* verilator lint_off UNUSEDSIGNAL */  // bits above RD_W: x_size of an in-range STORE fits
  logic [XW-1:0] h_xsize;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [AW-1:0] h_pitch;
  logic [RBW-1:0] h_row_bytes;
  logic [7:0] h_pad;
  assign h_row_bytes = RBW'(h_cols) << LOGE;

  // ---- Requests -------------------------------------------------------------
  logic [WC_W-1:0] wait_cnt;
  logic [RD_W-1:0] rd_done, row_data;
  logic [RW-1:0] rq_row, rq_next;
  logic [OW-1:0] own_out;
  logic [CTR_W-1:0] busy_cnt;
  logic [AW-1:0] rq_addr, rq_row_addr;
  logic [RBW-1:0] rq_left;
  logic [12:0] bytes, rq_beats;
  tsr_burst_len #(
      .LW(RBW)
  ) u_rq_len (
      .lo(rq_addr[11:0]),
      .left(rq_left),
      .bytes(bytes)
  );
  assign rq_beats = bytes >> LOGB;
  assign rq_next = rq_row + 1'b1;
  assign req = active && run && wait_cnt == 0 && rq_row != h_rows && rd_done >= row_data;
  assign req_addr = rq_addr;
  assign req_bytes = bytes;
  assign ended = active && wait_cnt == 0 && rq_row == h_rows && own_out == OW'(cpl);
  assign busy_part = busy_cnt;

  if (HELD) begin : g_held
    assign h_xsize = f_xsize;
    assign h_yp0 = RW'(f_yp0);
    assign h_yend = f_yend;
    assign h_xp0 = CW'(f_xp0);
    assign h_xend = f_xend;
    assign h_cols = f_cols;
    assign h_rows = f_rows;
    assign h_pitch = AW'(f_stride) << LOGE;
    assign h_pad = f_pad;
  end else begin : g_copy
    always_ff @(posedge clk) begin
      if (clr) h_rows <= '0;
      else if (start) begin
        h_xsize <= f_xsize;
        h_yp0 <= RW'(f_yp0);
        h_yend <= f_yend;
        h_xp0 <= CW'(f_xp0);
        h_xend <= f_xend;
        h_cols <= f_cols;
        h_rows <= f_rows;
        h_pitch <= AW'(f_stride) << LOGE;
        h_pad <= f_pad;
      end
    end
  end

  // Data entries of DRAM rows 0..r: row_data(0) = (yp0 == 0 && ysize != 0) ? xsize : 0,
  // row_data(r + 1) = row_data(r) + (r + 1 a data row ? xsize : 0).
  always_ff @(posedge clk) begin
    if (clr) begin
      active <= 1'b0;
      wait_cnt <= '0;
      rq_row <= '0;
      own_out <= '0;
    end else begin
      own_out <= own_out + OW'(grant) - OW'(cpl);
      if (start) begin
        active <= 1'b1;
        wait_cnt <= WC_W'(T_SETUP - 1);
        rd_done <= '0;
        rq_row <= '0;
        row_data <= (f_yp0 == 0 && f_ysize != 0) ? RD_W'(f_xsize) : '0;
        rq_row_addr <= f_dram;
        rq_addr <= f_dram;
        rq_left <= f_row_bytes;
        busy_cnt <= CTR_W'(T_SETUP);
      end else begin
        if (ended) active <= 1'b0;
        if (active && wait_cnt != 0) wait_cnt <= wait_cnt - 1'b1;
        if (active && wait_cnt == 0 && !(&rd_done)) rd_done <= rd_done + 1'b1;
        if (grant) begin
          busy_cnt <= busy_cnt + CTR_W'(rq_beats);
          if (RBW'(bytes) == rq_left) begin
            rq_row <= rq_next;
            if (rq_next >= h_yp0 && rq_next < h_yend) row_data <= row_data + RD_W'(h_xsize);
            rq_row_addr <= rq_row_addr + h_pitch;
            rq_addr <= rq_row_addr + h_pitch;
            rq_left <= h_row_bytes;
          end else begin
            rq_addr <= rq_addr + AW'(bytes);
            rq_left <= rq_left - RBW'(bytes);
          end
        end
      end
    end
  end

  // ---- W data generator (stage 0: position and scratchpad read; stage 1:
  // the beat) -----------------------------------------------------------------
  logic g_on;  // generating (held)
  logic [RW-1:0] g_r;
  logic [CW-1:0] g_c;
  logic [BI_W-1:0] g_beat;
  logic [EW-1:0] g_entry;
  logic [8:0] g_left;  // beats left in the burst (<= 256)
  logic [11:0] g_row_lo, g_lo;  // the row's and the beat's address, modulo 4 KiB
  logic [RBW-1:0] g_row_left;  // bytes of the row from this beat on
  // Values in this cycle: at the start cycle, the first position of the new STORE.
  logic k_on;
  logic [RW-1:0] k_r, k_yp0, k_yend, k_rows;
  logic [CW-1:0] k_c, k_xp0, k_xend, k_cols;
  logic [BI_W-1:0] k_beat;
  logic [EW-1:0] k_entry;
  logic [8:0] k_left;
  logic [11:0] k_row_lo, k_lo, k_pitch_lo;
  logic [RBW-1:0] k_row_left, k_row_bytes;
  always_comb begin
    if (start) begin
      k_on = 1'b1;
      k_r = 0;
      k_c = 0;
      k_beat = 0;
      k_entry = f_sram;
      k_left = 0;
      k_row_lo = f_dram[11:0];
      k_lo = f_dram[11:0];
      k_row_left = f_row_bytes;
      k_yp0 = RW'(f_yp0);
      k_yend = f_yend;
      k_xp0 = CW'(f_xp0);
      k_xend = f_xend;
      k_cols = f_cols;
      k_rows = f_rows;
      k_pitch_lo = 12'(f_stride) << LOGE;
      k_row_bytes = f_row_bytes;
    end else begin
      k_on = g_on;
      k_r = g_r;
      k_c = g_c;
      k_beat = g_beat;
      k_entry = g_entry;
      k_left = g_left;
      k_row_lo = g_row_lo;
      k_lo = g_lo;
      k_row_left = g_row_left;
      k_yp0 = h_yp0;
      k_yend = h_yend;
      k_xp0 = h_xp0;
      k_xend = h_xend;
      k_cols = h_cols;
      k_rows = h_rows;
      k_pitch_lo = h_pitch[11:0];
      k_row_bytes = h_row_bytes;
    end
  end

  // FIFO (fall-through) and stage 1.
  logic [8*BEAT_B:0] fifo[4];
  logic [2:0] f_cnt;
  logic [1:0] f_rd, f_wr;
  logic s1_valid, s1_pad, s1_last;
  logic [BI_W-1:0] s1_beat;
  logic [8*BEAT_B-1:0] s1_data, pad_beat;
  logic [7:0] s1_padv;
  always_comb begin
    for (int l = 0; l < LANES_PER_BEAT; l++)
      pad_beat[l*TSR_OUT_BITS+:TSR_OUT_BITS] = TSR_OUT_BITS'($signed(s1_padv));
    s1_data = rdata[0+:8*BEAT_B];
    for (int b = 1; b < EB; b++) if (s1_beat == BI_W'(b)) s1_data = rdata[b*8*BEAT_B+:8*BEAT_B];
    if (s1_pad) s1_data = pad_beat;
  end
  assign wvalid = f_cnt != 0 || s1_valid;
  assign wdata = f_cnt != 0 ? fifo[f_rd][8*BEAT_B-1:0] : s1_data;
  assign wlast = f_cnt != 0 ? fifo[f_rd][8*BEAT_B] : s1_last;
  logic w_take, s1_to_fifo, issue;
  assign w_take = wvalid && wready;
  assign s1_to_fifo = s1_valid && !(f_cnt == 0 && w_take);
  // Only inside an instruction: after an empty STORE the generator stays
  // armed, and with HELD its row count follows the next instruction's fields.
  assign issue = (start || active) && k_on && k_r != k_rows && 32'(f_cnt) + 32'(s1_valid) < 3;

  // Stage 0.
  logic is_pad, elem_last;
  logic [12:0] bst_bytes;
  logic [8:0] bst_beats;
  // The burst the beat at (k_lo, k_row_left) starts, as the request side cuts it.
  tsr_burst_len #(
      .LW(RBW)
  ) u_bst_len (
      .lo(k_lo),
      .left(k_row_left),
      .bytes(bst_bytes)
  );
  assign is_pad = k_r < k_yp0 || k_r >= k_yend || k_c < k_xp0 || k_c >= k_xend;
  assign elem_last = k_beat == BI_W'(EB - 1);
  assign bst_beats = 9'(bst_bytes >> LOGB);
  assign re = issue && !is_pad && k_beat == 0;
  assign raddr = 32'(k_entry);

  always_ff @(posedge clk) begin
    if (clr) begin
      g_on <= 1'b0;
      f_cnt <= '0;
      f_rd <= '0;
      f_wr <= '0;
      s1_valid <= 1'b0;
    end else begin
      // stage 1 -> FIFO / W
      if (s1_to_fifo) begin
        fifo[f_wr] <= {s1_last, s1_data};
        f_wr <= f_wr + 1'b1;
      end
      if (f_cnt != 0 && w_take) f_rd <= f_rd + 1'b1;
      f_cnt <= f_cnt + 3'(s1_to_fifo) - 3'(f_cnt != 0 && w_take);
      s1_valid <= issue;
      if (issue) begin
        logic [8:0] left;
        left = k_left == 0 ? bst_beats : k_left;
        s1_pad <= is_pad;
        s1_beat <= k_beat;
        s1_padv <= start ? f_pad : h_pad;
        s1_last <= left == 1;
        g_left <= left - 1'b1;
        g_on <= 1'b1;
        g_r <= k_r;
        g_c <= k_c;
        g_beat <= elem_last ? '0 : k_beat + 1'b1;
        g_entry <= k_entry + EW'(elem_last && !is_pad);
        g_row_lo <= k_row_lo;
        g_lo <= k_lo + 12'(BEAT_B);
        g_row_left <= k_row_left - RBW'(BEAT_B);
        if (elem_last) begin
          if (k_c + 1'b1 == k_cols) begin
            g_r <= k_r + 1'b1;
            g_c <= 0;
            g_row_lo <= k_row_lo + k_pitch_lo;
            g_lo <= k_row_lo + k_pitch_lo;
            g_row_left <= k_row_bytes;
            if (k_r + 1'b1 == k_rows) g_on <= 1'b0;
          end else begin
            g_c <= k_c + 1'b1;
          end
        end
      end else if (start) begin
        g_on <= 1'b1;
        g_r <= 0;
        g_c <= 0;
        g_beat <= 0;
        g_entry <= f_sram;
        g_left <= 0;
        g_row_lo <= f_dram[11:0];
        g_lo <= f_dram[11:0];
        g_row_left <= f_row_bytes;
      end
    end
  end
endmodule
