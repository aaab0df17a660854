// The DMA read engine of a LOAD (docs/microarch.md "LOAD"): from the start
// cycle S it waits T_setup cycles, writes the P padding entries one a cycle
// (row-major order, `pw_*`), then from R0 = S + T_setup + P requests the data
// rows' bursts in address order (split at 4 KiB and 256 beats, one request a
// cycle) and turns the returning beats into scratchpad writes (`dw_*`): one
// whole element a write when E >= B (E a multiple of B), else (uops) `dw_n`
// consecutive elements of one beat, shifted to the bottom of `dw_data`.
// `ended` is high in End = max(S + 1, R0, completion of the last burst);
// `busy_part` = T_setup + P + beats of the bursts requested so far.
// Contract: T_setup >= 1; a new `start` only after `ended`; the beats of this
// requester arrive in request order (`beat_valid`) and `cpl` is high in the
// completion cycle of each of its bursts.
module tsr_dma_rd #(
    parameter int MAXE = 64  // largest element (bytes) of the memory types served
) (
    input  logic               clk,
    input  logic               clr,
    input  logic               run,
    input  logic               start,
    /* verilator lint_off UNUSEDSIGNAL */  // fields of other formats
    input  logic [      127:0] insn,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [       31:0] elem_bytes,
    output logic               active,
    output logic               pw_valid,
    output logic [       31:0] pw_entry,
    output logic               dw_valid,
    output logic [       31:0] dw_entry,
    output logic [       31:0] dw_n,
    output logic [8*WD-1:0]    dw_data,
    output logic               req,
    output logic [       63:0] req_addr,
    output logic [       12:0] req_bytes,
    input  logic               grant,
    input  logic               beat_valid,
    input  logic [8*BEAT_B-1:0] beat_data,
    input  logic               cpl,
    output logic               ended,
    output logic [       63:0] busy_part
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int WD = MAXE > BEAT_B ? MAXE : BEAT_B;
  localparam int T_SETUP = TSR_CFG_TIMING_DMA_SETUP_CYCLES;
  localparam int MAXB = TSR_BURST_MAX_BEATS * BEAT_B;

  // Instruction fields.
  logic [31:0] f_sram, f_ysize, f_xsize, f_stride, f_yp0, f_yp1, f_xp0, f_xp1;
  logic [63:0] f_dram;
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
  end

  // Held copies (from the start edge on).
  logic [31:0] sram, ysize, xsize, yp0, xp0, xp1, cols, rows_data, ebytes;
  logic [63:0] pitch_bytes, row_bytes;
  logic [31:0] wait_cnt, pads_left;
  logic [63:0] beats_sum, pads_total;
  logic [31:0] own_out;

  // Padding enumerator: position (pr, pc) and the entry of (pr, 0).
  logic [31:0] pr, pc, pbase;
  function automatic logic is_data_row(input logic [31:0] r, input logic [31:0] p0, input logic [31:0] ys);
    is_data_row = r >= p0 && r < p0 + ys;
  endfunction
  // First padding position in row r or later: (row, col).
  function automatic logic [63:0] enter_row(input logic [31:0] r, input logic [31:0] p0, input logic [31:0] ys,
                                            input logic [31:0] x0, input logic [31:0] x1, input logic [31:0] xs);
    logic [31:0] rr, cc;
    rr = r;
    if (is_data_row(rr, p0, ys) && x0 + x1 == 0) rr = p0 + ys;
    cc = (is_data_row(rr, p0, ys) && x0 == 0) ? xs : 32'd0;
    enter_row = {rr, cc};
  endfunction

  logic [31:0] nxt_r, nxt_c;
  always_comb begin
    logic [63:0] e;
    e = '0;
    nxt_r = pr;
    nxt_c = pc + 1;
    if (is_data_row(pr, yp0, ysize) && nxt_c == xp0) nxt_c = xp0 + xsize;
    if (nxt_c >= cols) begin
      e = enter_row(pr + 1, yp0, ysize, xp0, xp1, xsize);
      nxt_r = e[63:32];
      nxt_c = e[31:0];
    end
  end

  // Requests.
  logic [31:0] rq_row;
  logic [63:0] rq_row_addr, rq_off, a, bytes, to_bound;
  always_comb begin
    a = rq_row_addr + rq_off;
    to_bound = 64'd4096 - {52'd0, a[11:0]};
    bytes = row_bytes - rq_off;
    if (bytes > to_bound) bytes = to_bound;
    if (bytes > 64'(MAXB)) bytes = 64'(MAXB);
  end
  assign req = active && run && wait_cnt == 0 && pads_left == 0 && rq_row != rows_data;
  assign req_addr = a;
  assign req_bytes = 13'(bytes);

  assign pw_valid = active && wait_cnt == 0 && pads_left != 0;
  assign pw_entry = pbase + pc;

  assign ended = active && wait_cnt == 0 && pads_left == 0 && rq_row == rows_data && own_out == 32'(cpl);
  assign busy_part = 64'(T_SETUP) + pads_total + beats_sum;

  // Receiving.
  logic [31:0] rx_entry, rx_elem, rx_beat, rx_base;
  logic [63:0] rx_addr, rx_row_addr;
  logic [8*WD-1:0] asm_q, asm_d;
  logic [31:0] n_now, beats_per_elem;
  logic sub_beat, row_done;
  assign sub_beat = ebytes < 32'(BEAT_B);
  assign beats_per_elem = sub_beat ? 32'd1 : ebytes / 32'(BEAT_B);
  always_comb begin
    logic [31:0] slot0;
    asm_d = asm_q;
    asm_d[rx_beat*8*BEAT_B%(8*WD)+:8*BEAT_B] = beat_data;
    slot0 = sub_beat ? 32'(rx_addr % 64'(BEAT_B)) / ebytes : 32'd0;
    n_now = sub_beat ? 32'(BEAT_B) / ebytes - slot0 : 32'd1;
    if (n_now > xsize - rx_elem) n_now = xsize - rx_elem;
    dw_valid = beat_valid && (sub_beat || rx_beat == beats_per_elem - 1);
    dw_entry = rx_entry;
    dw_n = n_now;
    dw_data = sub_beat ? (8 * WD)'(beat_data) >> (slot0 * ebytes * 8) : asm_d;
    row_done = dw_valid && rx_elem + n_now == xsize;
  end

  always_ff @(posedge clk) begin
    if (clr) begin
      active <= 1'b0;
      wait_cnt <= '0;
      pads_left <= '0;
      rq_row <= '0;
      rows_data <= '0;
      own_out <= '0;
    end else begin
      own_out <= own_out + 32'(grant) - 32'(cpl);
      if (start) begin
        logic [63:0] e0;
        logic [31:0] c, p;
        c = f_xp0 + f_xsize + f_xp1;
        active <= 1'b1;
        sram <= f_sram;
        ysize <= f_ysize;
        xsize <= f_xsize;
        yp0 <= f_yp0;
        xp0 <= f_xp0;
        xp1 <= f_xp1;
        cols <= c;
        ebytes <= elem_bytes;
        rows_data <= f_xsize != 0 ? f_ysize : 32'd0;
        pitch_bytes <= 64'(f_stride) * 64'(elem_bytes);
        row_bytes <= 64'(f_xsize) * 64'(elem_bytes);
        wait_cnt <= 32'(T_SETUP - 1);
        p = (f_yp0 + f_ysize + f_yp1) * c - f_ysize * f_xsize;
        pads_left <= p;
        pads_total <= 64'(p);
        beats_sum <= '0;
        e0 = enter_row(32'd0, f_yp0, f_ysize, f_xp0, f_xp1, f_xsize);
        pr <= e0[63:32];
        pc <= e0[31:0];
        pbase <= f_sram + e0[63:32] * c;
        rq_row <= '0;
        rq_row_addr <= f_dram * 64'(elem_bytes);
        rq_off <= '0;
        rx_base <= f_sram + f_yp0 * c + f_xp0;
        rx_entry <= f_sram + f_yp0 * c + f_xp0;
        rx_elem <= '0;
        rx_beat <= '0;
        rx_addr <= f_dram * 64'(elem_bytes);
        rx_row_addr <= f_dram * 64'(elem_bytes);
      end else begin
        if (ended) active <= 1'b0;
        if (active && wait_cnt != 0) wait_cnt <= wait_cnt - 1;
        if (pw_valid) begin
          pads_left <= pads_left - 1;
          pr <= nxt_r;
          pc <= nxt_c;
          if (nxt_r != pr) pbase <= sram + nxt_r * cols;
        end
        if (grant) begin
          beats_sum <= beats_sum + ((a % 64'(BEAT_B)) + bytes + 64'(BEAT_B) - 64'd1) / 64'(BEAT_B);
          if (rq_off + bytes == row_bytes) begin
            rq_row <= rq_row + 1;
            rq_row_addr <= rq_row_addr + pitch_bytes;
            rq_off <= '0;
          end else begin
            rq_off <= rq_off + bytes;
          end
        end
        if (beat_valid) begin
          asm_q <= asm_d;
          rx_beat <= (rx_beat == beats_per_elem - 1) ? 32'd0 : rx_beat + 1;
        end
        if (dw_valid) begin
          if (row_done) begin
            rx_base <= rx_base + cols;
            rx_entry <= rx_base + cols;
            rx_elem <= '0;
            rx_row_addr <= rx_row_addr + pitch_bytes;
            rx_addr <= rx_row_addr + pitch_bytes;
          end else begin
            rx_entry <= rx_entry + n_now;
            rx_elem <= rx_elem + n_now;
            rx_addr <= rx_addr + 64'(n_now) * 64'(ebytes);
          end
        end
      end
    end
  end
endmodule
