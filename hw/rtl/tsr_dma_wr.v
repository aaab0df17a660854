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
// Contract: T_setup >= 1; out elements are a multiple of B bytes (so every
// burst is B-aligned); `cpl` is high in the completion cycle of each burst.
module tsr_dma_wr (
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
    output logic [        63:0] req_addr,
    output logic [        12:0] req_bytes,
    input  logic                grant,
    input  logic                cpl,
    output logic                wvalid,
    output logic [8*BEAT_B-1:0] wdata,
    output logic                wlast,
    input  logic                wready,
    output logic                ended,
    output logic [        63:0] busy_part
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int E = TSR_ELEM_BYTES_OUT;
  localparam int EB = E / BEAT_B;  // beats per element
  localparam int OUT_DW = 8 * E;
  localparam int T_SETUP = TSR_CFG_TIMING_DMA_SETUP_CYCLES;
  localparam int MAXB = TSR_BURST_MAX_BEATS * BEAT_B;
  localparam int LANES_PER_BEAT = 8 * BEAT_B / TSR_OUT_BITS;

  logic [31:0] f_sram, f_ysize, f_xsize, f_stride, f_yp0, f_yp1, f_xp0, f_xp1;
  logic [63:0] f_dram;
  logic [7:0] f_pad;
  always_comb begin
    f_sram = 32'(insn[TSR_MEM_SRAM_LSB+:TSR_MEM_SRAM_W]);
    f_dram = 64'(insn[TSR_MEM_DRAM_LSB+:TSR_MEM_DRAM_W]);
    f_ysize = 32'(insn[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W]);
    f_xsize = 32'(insn[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W]);
    f_stride = 32'(insn[TSR_MEM_X_STRIDE_LSB+:TSR_MEM_X_STRIDE_W]);
    f_yp0 = 32'(insn[TSR_MEM_Y_PAD0_LSB+:TSR_MEM_Y_PAD0_W]);
    f_yp1 = 32'(insn[TSR_MEM_Y_PAD1_LSB+:TSR_MEM_Y_PAD1_W]);
    f_xp0 = 32'(insn[TSR_MEM_X_PAD0_LSB+:TSR_MEM_X_PAD0_W]);
    f_xp1 = 32'(insn[TSR_MEM_X_PAD1_LSB+:TSR_MEM_X_PAD1_W]);
    f_pad = insn[TSR_MEM_PAD_LSB+:8];
  end

  // Held fields.
  logic [31:0] h_ysize, h_xsize, h_yp0, h_xp0, h_cols, h_rows;
  logic [63:0] h_pitch, h_row_bytes;
  logic [7:0] h_pad;

  // ---- Requests -------------------------------------------------------------
  logic [31:0] wait_cnt, rd_done, rq_row, row_data, own_out;
  logic [63:0] rq_row_addr, rq_off, beats_sum, a, bytes, to_bound;
  always_comb begin
    a = rq_row_addr + rq_off;
    to_bound = 64'd4096 - {52'd0, a[11:0]};
    bytes = h_row_bytes - rq_off;
    if (bytes > to_bound) bytes = to_bound;
    if (bytes > 64'(MAXB)) bytes = 64'(MAXB);
  end
  assign req = active && run && wait_cnt == 0 && rq_row != h_rows && rd_done >= row_data;
  assign req_addr = a;
  assign req_bytes = 13'(bytes);
  assign ended = active && wait_cnt == 0 && rq_row == h_rows && own_out == 32'(cpl);
  assign busy_part = 64'(T_SETUP) + beats_sum;

  function automatic logic [31:0] row_data_of(input logic [31:0] r, input logic [31:0] p0, input logic [31:0] ys,
                                              input logic [31:0] xs);
    logic [31:0] k;
    if (r + 1 <= p0) k = 0;
    else k = r + 1 - p0;
    if (k > ys) k = ys;
    row_data_of = k * xs;
  endfunction

  always_ff @(posedge clk) begin
    if (clr) begin
      active <= 1'b0;
      wait_cnt <= '0;
      rq_row <= '0;
      h_rows <= '0;
      own_out <= '0;
    end else begin
      own_out <= own_out + 32'(grant) - 32'(cpl);
      if (start) begin
        logic [31:0] c;
        c = f_xp0 + f_xsize + f_xp1;
        active <= 1'b1;
        h_ysize <= f_ysize;
        h_xsize <= f_xsize;
        h_yp0 <= f_yp0;
        h_xp0 <= f_xp0;
        h_cols <= c;
        h_rows <= c != 0 ? f_yp0 + f_ysize + f_yp1 : 32'd0;
        h_pitch <= 64'(f_stride) * 64'(E);
        h_row_bytes <= 64'(c) * 64'(E);
        h_pad <= f_pad;
        wait_cnt <= 32'(T_SETUP - 1);
        rd_done <= '0;
        rq_row <= '0;
        row_data <= row_data_of(32'd0, f_yp0, f_ysize, f_xsize);
        rq_row_addr <= f_dram * 64'(E);
        rq_off <= '0;
        beats_sum <= '0;
      end else begin
        if (ended) active <= 1'b0;
        if (active && wait_cnt != 0) wait_cnt <= wait_cnt - 1;
        if (active && wait_cnt == 0) rd_done <= rd_done + 1;
        if (grant) begin
          beats_sum <= beats_sum + bytes / 64'(BEAT_B);
          if (rq_off + bytes == h_row_bytes) begin
            rq_row <= rq_row + 1;
            row_data <= row_data_of(rq_row + 1, h_yp0, h_ysize, h_xsize);
            rq_row_addr <= rq_row_addr + h_pitch;
            rq_off <= '0;
          end else begin
            rq_off <= rq_off + bytes;
          end
        end
      end
    end
  end

  // ---- W data generator (stage 0: position and scratchpad read; stage 1:
  // the beat) -----------------------------------------------------------------
  logic g_on;  // generating (held)
  logic [31:0] g_r, g_c, g_beat, g_entry, g_left;
  logic [63:0] g_row_addr, g_off;
  // Values in this cycle: at the start cycle, the first position of the new STORE.
  logic k_on;
  logic [31:0] k_r, k_c, k_beat, k_entry, k_left, k_ysize, k_xsize, k_yp0, k_xp0, k_cols, k_rows;
  logic [63:0] k_row_addr, k_off, k_pitch, k_row_bytes;
  always_comb begin
    if (start) begin
      k_on = 1'b1;
      k_r = 0;
      k_c = 0;
      k_beat = 0;
      k_entry = f_sram;
      k_left = 0;
      k_row_addr = f_dram * 64'(E);
      k_off = 0;
      k_ysize = f_ysize;
      k_xsize = f_xsize;
      k_yp0 = f_yp0;
      k_xp0 = f_xp0;
      k_cols = f_xp0 + f_xsize + f_xp1;
      k_rows = k_cols != 0 ? f_yp0 + f_ysize + f_yp1 : 32'd0;
      k_pitch = 64'(f_stride) * 64'(E);
      k_row_bytes = 64'(k_cols) * 64'(E);
    end else begin
      k_on = g_on;
      k_r = g_r;
      k_c = g_c;
      k_beat = g_beat;
      k_entry = g_entry;
      k_left = g_left;
      k_row_addr = g_row_addr;
      k_off = g_off;
      k_ysize = h_ysize;
      k_xsize = h_xsize;
      k_yp0 = h_yp0;
      k_xp0 = h_xp0;
      k_cols = h_cols;
      k_rows = h_rows;
      k_pitch = h_pitch;
      k_row_bytes = h_row_bytes;
    end
  end

  // FIFO (fall-through) and stage 1.
  logic [8*BEAT_B:0] fifo[4];
  logic [2:0] f_cnt;
  logic [1:0] f_rd, f_wr;
  logic s1_valid, s1_pad, s1_last;
  logic [31:0] s1_beat;
  logic [8*BEAT_B-1:0] s1_data, pad_beat;
  logic [7:0] s1_padv;
  always_comb begin
    for (int l = 0; l < LANES_PER_BEAT; l++)
      pad_beat[l*TSR_OUT_BITS+:TSR_OUT_BITS] = TSR_OUT_BITS'($signed(s1_padv));
    s1_data = s1_pad ? pad_beat : rdata[s1_beat*8*BEAT_B%OUT_DW+:8*BEAT_B];
  end
  assign wvalid = f_cnt != 0 || s1_valid;
  assign wdata = f_cnt != 0 ? fifo[f_rd][8*BEAT_B-1:0] : s1_data;
  assign wlast = f_cnt != 0 ? fifo[f_rd][8*BEAT_B] : s1_last;
  logic w_take, s1_to_fifo, issue;
  assign w_take = wvalid && wready;
  assign s1_to_fifo = s1_valid && !(f_cnt == 0 && w_take);
  assign issue = k_on && k_r != k_rows && 32'(f_cnt) + 32'(s1_valid) < 3;

  // Stage 0.
  logic is_pad, elem_last;
  logic [63:0] bst_bytes, bbound;
  logic [11:0] ba;
  logic [31:0] bst_beats;
  always_comb begin
    is_pad = k_r < k_yp0 || k_r >= k_yp0 + k_ysize || k_c < k_xp0 || k_c >= k_xp0 + k_xsize;
    elem_last = k_beat == 32'(EB - 1);
    ba = k_row_addr[11:0] + k_off[11:0];
    bbound = 64'd4096 - 64'(ba);
    bst_bytes = k_row_bytes - k_off;
    if (bst_bytes > bbound) bst_bytes = bbound;
    if (bst_bytes > 64'(MAXB)) bst_bytes = 64'(MAXB);
    bst_beats = 32'(bst_bytes / 64'(BEAT_B));
  end
  assign re = issue && !is_pad && k_beat == 0;
  assign raddr = k_entry;

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
        logic [31:0] left;
        left = k_left == 0 ? bst_beats : k_left;
        s1_pad <= is_pad;
        s1_beat <= k_beat;
        s1_padv <= start ? f_pad : h_pad;
        s1_last <= left == 1;
        g_left <= left - 1;
        g_on <= 1'b1;
        g_r <= k_r;
        g_c <= k_c;
        g_beat <= elem_last ? 32'd0 : k_beat + 1;
        g_entry <= k_entry + 32'(elem_last && !is_pad);
        g_row_addr <= k_row_addr;
        g_off <= k_off + 64'(BEAT_B);
        if (elem_last) begin
          if (k_c + 1 == k_cols) begin
            g_r <= k_r + 1;
            g_c <= 0;
            g_row_addr <= k_row_addr + k_pitch;
            g_off <= 0;
            if (k_r + 1 == k_rows) g_on <= 1'b0;
          end else begin
            g_c <= k_c + 1;
          end
        end
      end else if (start) begin
        g_on <= 1'b1;
        g_r <= 0;
        g_c <= 0;
        g_beat <= 0;
        g_entry <= f_sram;
        g_left <= 0;
        g_row_addr <= f_dram * 64'(E);
        g_off <= 0;
      end
    end
  end
endmodule
