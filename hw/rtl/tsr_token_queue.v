// One dependency-token queue (load->compute, compute->load, compute->store,
// store->compute): tokens carry no data, so the queue is a counter of depth
// D_tok. Timing (docs/microarch.md, "The cycle"): a push (phase 2) is allowed
// while fewer than DEPTH tokens are held at the start of the cycle and is
// visible to a pop (phase 3) in the same cycle. `push2` is a second push in
// the same cycle (the compute module's two pipes, timing.compute_overlap),
// allowed while fewer than DEPTH - 1 tokens are held (`can_push2`).
// Contract: the producer pushes only when can_push (push2: with push, when
// can_push2); the consumer pops only when can_pop.
module tsr_token_queue #(
    parameter int DEPTH = 256,
    parameter int CW = $clog2(DEPTH + 1)
) (
    input  logic          clk,
    input  logic          rst,
    input  logic          push,
    input  logic          push2,
    input  logic          pop,
    output logic          can_push,
    output logic          can_push2,
    output logic          can_pop,
    output logic [CW-1:0] count
);
  assign can_push = count < CW'(DEPTH);
  assign can_push2 = 32'(count) + 1 < DEPTH;
  assign can_pop = (count != '0) || push;

  always_ff @(posedge clk) begin
    if (rst) count <= '0;
    else count <= count + CW'(push && can_push) + CW'(push2 && can_push2) - CW'(pop && can_pop);
  end
endmodule
