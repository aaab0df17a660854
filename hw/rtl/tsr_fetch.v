// Instruction fetch (docs/microarch.md "Fetch"): reads the stream in blocks of
// n = min(8, F, remaining, instructions before the next 4 KiB boundary) when n
// fit the free space of the F-instruction buffer (in flight + buffered),
// assembles the R beats into the buffer and makes a block's instructions
// dispatchable in its completion cycle (phase 1). The head is offered for
// dispatch (phase 4) with its stream index; the top decodes it and takes it.
// Contract: `req` is the phase-5 request of this cycle (it sees this cycle's
// dispatch); `beat_valid` marks the R beats of fetch bursts (RID 0), in
// order; `cpl` is high in the completion cycle of a fetch burst.
// Widths: a launched stream lies in the DRAM window (the launch check), so
// its device addresses take AW bits and its indices and counts IW bits.
module tsr_fetch (
    input  logic                  clk,
    input  logic                  clr,
    input  logic                  run,        // requests allowed
    input  logic [        AW-1:0] base,       // stream device byte address
    input  logic [        IW-1:0] count,
    output logic                  req,
    output logic [        AW-1:0] req_addr,
    output logic [          12:0] req_bytes,
    input  logic                  grant,
    input  logic                  beat_valid,
    input  logic [8*BEAT_B-1:0]   beat_data,
    input  logic                  cpl,
    output logic                  head_valid,  // an instruction has arrived and is not dispatched
    output logic [         127:0] head_insn,
    output logic [        IW-1:0] head_index,
    input  logic                  take,       // the head is dispatched in this cycle
    output logic                  done_all,   // every instruction dispatched
    output logic                  st_busy,
    output logic                  st_wait_queue,
    output logic                  st_wait_memory
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int F = TSR_CFG_QUEUES_FETCH_BUFFER;
  localparam int SLOTS = BEAT_B >= 16 ? BEAT_B / 16 : 1;
  localparam int CHUNKS = BEAT_B >= 16 ? 1 : 16 / BEAT_B;
  localparam int AW = TSR_DEV_ADDR_BITS;
  localparam int IW = TSR_STREAM_IDX_BITS;

  logic [127:0] buf_q[F];
  logic [IW-1:0] ends[F];
  logic [IW-1:0] next_req, arrived, next_disp, asm_cnt;
  logic [31:0] end_wr, end_asm, end_cpl;  // block counters (mod F on use)
  logic [IW-1:0] arrived_now, disp_after;

  assign arrived_now = cpl ? ends[end_cpl%F] : arrived;
  assign head_valid = arrived_now != next_disp;
  assign head_insn = buf_q[32'(next_disp)%F];
  assign head_index = next_disp;
  assign disp_after = next_disp + IW'(take);
  assign done_all = next_disp == count;

  // Phase 5: the next block's request.
  logic [AW-1:0] a;
  logic [IW-1:0] n, to_bound, held;
  logic [8:0] room;  // instructions to the next 4 KiB boundary (streams are 16-byte aligned)
  always_comb begin
    a = base + AW'({next_req, 4'd0});
    room = 9'd256 - 9'(a[11:4]);
    to_bound = IW'(room);
    n = count - next_req;
    if (n > IW'(TSR_FETCH_BLOCK_INSNS)) n = IW'(TSR_FETCH_BLOCK_INSNS);
    if (n > to_bound) n = to_bound;
    held = next_req - disp_after;  // in flight + buffered after this cycle's dispatch
    req = run && next_req != count && 32'(F) - 32'(held) >= 32'(n);
    req_addr = a;
    req_bytes = 13'(n * 16);
  end

  assign st_busy = take;
  assign st_wait_queue = !take && head_valid;
  assign st_wait_memory = !take && !head_valid && next_disp != count;

  // Beat assembly: instruction asm_cnt is the next to arrive; asm_end is
  // the end of the block its beats belong to.
  logic [IW-1:0] asm_end, asm_next;
  logic asm_block_done;
  assign asm_end = ends[end_asm%F];
  assign asm_block_done = beat_valid && asm_next == asm_end;

  always_ff @(posedge clk) begin
    if (clr) begin
      next_req <= '0;
      arrived <= '0;
      next_disp <= '0;
      asm_cnt <= '0;
      end_wr <= '0;
      end_asm <= '0;
      end_cpl <= '0;
    end else begin
      if (grant) begin
        ends[end_wr%F] <= next_req + n;
        end_wr <= end_wr + 1;
        next_req <= next_req + n;
      end
      if (cpl) begin
        arrived <= ends[end_cpl%F];
        end_cpl <= end_cpl + 1;
      end
      if (take) next_disp <= next_disp + 1'b1;
      if (beat_valid) asm_cnt <= asm_next;
      if (asm_block_done) end_asm <= end_asm + 1;
    end
  end

  if (CHUNKS == 1) begin : g_wide
    // A beat holds SLOTS instruction slots; the first one of this beat is
    // the slot of instruction asm_cnt ((base + 16 asm_cnt) mod B).
    logic [31:0] slot0, cnt;
    logic [AW-1:0] base_lo;
    logic [IW-1:0] left;
    always_comb begin
      base_lo = base % AW'(BEAT_B);
      left = asm_end - asm_cnt;
      slot0 = ((32'(base_lo) + 16 * 32'(asm_cnt)) % 32'(BEAT_B)) / 16;
      cnt = 32'(SLOTS) - slot0;
      if (cnt > 32'(left)) cnt = 32'(left);
      asm_next = asm_cnt + IW'(cnt);
    end
    always_ff @(posedge clk) begin
      if (beat_valid)
        for (int k = 0; k < SLOTS; k++)
          if (32'(k) < cnt) buf_q[(32'(asm_cnt)+32'(k))%F] <= beat_data[((32'(k)+slot0)%SLOTS)*128+:128];
    end
  end else begin : g_narrow
    // An instruction spans CHUNKS beats (bursts are instruction-aligned),
    // each written in place: the slot is free space (the request needed it)
    // and becomes the head only at the block's completion.
    logic [$clog2(CHUNKS)-1:0] chunk;
    assign asm_next = asm_cnt + IW'(chunk == $clog2(CHUNKS)'(CHUNKS - 1));
    always_ff @(posedge clk) begin
      if (clr) chunk <= '0;
      else if (beat_valid) chunk <= chunk + 1'b1;
      for (int c = 0; c < CHUNKS; c++)
        if (beat_valid && chunk == $clog2(CHUNKS)'(c)) buf_q[32'(asm_cnt)%F][c*8*BEAT_B+:8*BEAT_B] <= beat_data;
    end
  end
endmodule
