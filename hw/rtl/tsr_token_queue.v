// One dependency-token queue (load->compute, compute->load, compute->store,
// store->compute): tokens carry no data, so the queue is a counter of depth
// D_tok. Timing (docs/microarch.md, "The cycle"): a push (phase 2) is allowed
// while fewer than DEPTH tokens are held at the start of the cycle and is
// visible to a pop (phase 3) in the same cycle.
// Contract: the producer pushes only when can_push; the consumer pops only
// when can_pop.
module tsr_token_queue #(
    parameter int DEPTH = 256,
    parameter int CW = $clog2(DEPTH + 1)
) (
    input  logic          clk,
    input  logic          rst,
    input  logic          push,
    input  logic          pop,
    output logic          can_push,
    output logic          can_pop,
    output logic [CW-1:0] count
);
  assign can_push = count < CW'(DEPTH);
  assign can_pop = (count != '0) || push;

  always_ff @(posedge clk) begin
    if (rst) count <= '0;
    else count <= count + CW'(push && can_push) - CW'(pop && can_pop);
  end
endmodule
