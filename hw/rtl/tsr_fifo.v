// Synchronous first-in first-out queue (the command queues and the fetch
// buffer). Show-ahead: head is the oldest entry whenever count > 0.
// Contract: push is ignored when full unless there is a pop in the same
// cycle (phase 3 frees a slot for phase 4), pop when empty; a push and a pop
// in the same cycle are both performed. count is the number of entries held at
// the start of the cycle (0..DEPTH).
module tsr_fifo #(
    parameter int DEPTH = 16,
    parameter int WIDTH = 128,
    parameter int AW = (DEPTH > 1) ? $clog2(DEPTH) : 1,
    parameter int CW = $clog2(DEPTH + 1)
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             push,
    input  logic [WIDTH-1:0] push_data,
    input  logic             pop,
    output logic [WIDTH-1:0] head,
    output logic [   CW-1:0] count,
    output logic             full,
    output logic             empty
);
  logic [WIDTH-1:0] mem[DEPTH];
  logic [AW-1:0] rd, wr;
  logic do_push, do_pop;

  assign full = count == CW'(DEPTH);
  assign empty = count == '0;
  assign do_push = push && (!full || do_pop);
  assign do_pop = pop && !empty;
  assign head = mem[rd];

  logic [AW-1:0] rd_next, wr_next;
  assign rd_next = (rd == AW'(DEPTH - 1)) ? '0 : rd + 1'b1;
  assign wr_next = (wr == AW'(DEPTH - 1)) ? '0 : wr + 1'b1;

  always_ff @(posedge clk) begin
    if (do_push) mem[wr] <= push_data;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      rd <= '0;
      wr <= '0;
      count <= '0;
    end else begin
      if (do_push) wr <= wr_next;
      if (do_pop) rd <= rd_next;
      count <= count + CW'(do_push) - CW'(do_pop);
    end
  end
endmodule
