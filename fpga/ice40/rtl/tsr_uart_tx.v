// UART transmitter, 8N1, LSB first. Contract: a byte is taken when `valid`
// and `ready` are both high; `ready` is high while idle; the line idles high.
module tsr_uart_tx #(
    parameter int CLKS_PER_BIT = 104
) (
    input  logic       clk,
    input  logic       rst,
    input  logic       valid,
    input  logic [7:0] data,
    output logic       ready,
    output logic       tx
);
  localparam int CW = $clog2(CLKS_PER_BIT + 1);
  logic [CW-1:0] cnt;
  logic [3:0] left;  // bits still to send, the current one included
  logic [8:0] shift;  // data bits then the stop bit

  assign ready = left == '0;

  always_ff @(posedge clk) begin
    if (rst) begin
      tx <= 1'b1;
      left <= '0;
      cnt <= '0;
      shift <= '1;
    end else if (ready) begin
      if (valid) begin
        tx <= 1'b0;  // start bit
        shift <= {1'b1, data};
        left <= 4'd10;
        cnt <= CW'(CLKS_PER_BIT - 1);
      end
    end else if (cnt != '0) begin
      cnt <= cnt - 1'b1;
    end else begin
      left <= left - 1'b1;
      if (left != 4'd1) begin
        tx <= shift[0];
        shift <= {1'b1, shift[8:1]};
        cnt <= CW'(CLKS_PER_BIT - 1);
      end
    end
  end
endmodule
