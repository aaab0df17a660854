// The iCE40 UP5K board top (iCEBreaker pinout, fpga/ice40/icebreaker.pcf):
// the 12 MHz oscillator clocks everything (the board config's clock_mhz is
// 12), a power-on reset holds the design for 16 cycles, the FTDI UART links
// the host to the bridge at BAUD, the green LED shows the interrupt (a run
// ended) and the red LED lights while reset is held.
module tsr_ice40_top #(
    parameter int BAUD = 1000000
) (
    input  logic clk_12m,
    input  logic uart_rx,
    output logic uart_tx,
    output logic led_green_n,
    output logic led_red_n
);
`include "tessera_cfg.vh"
  localparam int CLKS_PER_BIT = TSR_CFG_CLOCK_MHZ_KHZ * 1000 / BAUD;
  if (TSR_CFG_CLOCK_MHZ_KHZ != 12000) begin : g_bad_clock
    $error("tsr_ice40_top: the board runs at the 12 MHz oscillator: set clock_mhz to 12");
  end

  logic [4:0] por = '0;
  logic rst, irq;
  assign rst = !por[4];
  always_ff @(posedge clk_12m) if (rst) por <= por + 1'b1;

  tsr_board #(.CLKS_PER_BIT(CLKS_PER_BIT)) board (
      .clk(clk_12m), .rst(rst), .uart_rx(uart_rx), .uart_tx(uart_tx), .irq(irq));

  assign led_green_n = !irq;
  assign led_red_n = !rst;
endmodule
