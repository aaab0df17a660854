// UART receiver, 8N1, LSB first. The line is synchronised (two flops); a
// start bit is confirmed at its middle, each data bit sampled at its middle.
// Contract: `valid` is high for one cycle with `data` once the stop bit's
// middle is reached; a low stop bit drops the byte and pulses `frame_error`.
module tsr_uart_rx #(
    parameter int CLKS_PER_BIT = 104
) (
    input  logic       clk,
    input  logic       rst,
    input  logic       rx,
    output logic       valid,
    output logic [7:0] data,
    output logic       frame_error
);
  localparam int CW = $clog2(CLKS_PER_BIT + 1);
  logic [1:0] sync;
  logic [CW-1:0] cnt;
  logic [3:0] bitn;  // 0: start bit, 1..8: data, 9: stop
  logic busy;
  logic [7:0] shift;
  wire line = sync[1];

  always_ff @(posedge clk) begin
    if (rst) begin
      sync <= 2'b11;
      busy <= 1'b0;
      valid <= 1'b0;
      frame_error <= 1'b0;
      cnt <= '0;
      bitn <= '0;
      shift <= '0;
      data <= '0;
    end else begin
      sync <= {sync[0], rx};
      valid <= 1'b0;
      frame_error <= 1'b0;
      if (!busy) begin
        if (!line) begin
          busy <= 1'b1;
          cnt <= CW'(CLKS_PER_BIT / 2);
          bitn <= '0;
        end
      end else if (cnt != '0) begin
        cnt <= cnt - 1'b1;
      end else begin
        cnt <= CW'(CLKS_PER_BIT - 1);
        bitn <= bitn + 1'b1;
        if (bitn == 4'd0) begin
          if (line) busy <= 1'b0;  // a glitch, not a start bit
        end else if (bitn <= 4'd8) begin
          shift <= {line, shift[7:1]};
        end else begin
          busy <= 1'b0;
          if (line) begin
            valid <= 1'b1;
            data <= shift;
          end else begin
            frame_error <= 1'b1;
          end
        end
      end
    end
  end
endmodule
