// Test bench top of the UART bridge's unit test (uart_bridge_test.cc): the
// bridge on the board memory (tsr_spram_mem, its AXI4 side idle) with the
// register window's AXI4-Lite port left to the test, which plays the slave.
module tsr_bridge_tb #(
    parameter int CLKS_PER_BIT = 4
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        rx,
    output logic        tx,
    output logic [11:0] awaddr,
    output logic        awvalid,
    input  logic        awready,
    output logic [31:0] wdata,
    output logic [ 3:0] wstrb,
    output logic        wvalid,
    input  logic        wready,
    input  logic [ 1:0] bresp,
    input  logic        bvalid,
    output logic        bready,
    output logic [11:0] araddr,
    output logic        arvalid,
    input  logic        arready,
    input  logic [31:0] rdata,
    input  logic [ 1:0] rresp,
    input  logic        rvalid,
    output logic        rready
);
  logic mem_valid, mem_we, mem_ready;
  logic [14:0] mem_word;
  logic [31:0] mem_wdata, mem_rdata;
  tsr_uart_bridge #(
      .CLKS_PER_BIT(CLKS_PER_BIT),
      .MEM_BYTES(131072),
      .IDLE_CLKS(400)
  ) bridge (
      .clk(clk), .rst(rst), .rx(rx), .tx(tx),
      .m_axil_awaddr(awaddr), .m_axil_awvalid(awvalid), .m_axil_awready(awready), .m_axil_wdata(wdata),
      .m_axil_wstrb(wstrb), .m_axil_wvalid(wvalid), .m_axil_wready(wready), .m_axil_bresp(bresp),
      .m_axil_bvalid(bvalid), .m_axil_bready(bready), .m_axil_araddr(araddr), .m_axil_arvalid(arvalid),
      .m_axil_arready(arready), .m_axil_rdata(rdata), .m_axil_rresp(rresp), .m_axil_rvalid(rvalid),
      .m_axil_rready(rready), .mem_valid(mem_valid), .mem_we(mem_we), .mem_word(mem_word),
      .mem_wdata(mem_wdata), .mem_ready(mem_ready), .mem_rdata(mem_rdata));

  /* verilator lint_off PINCONNECTEMPTY */
  tsr_spram_mem #(.MEM_BYTES(131072)) mem (
      .clk(clk), .rst(rst),
      .s_axi_arid(2'd0), .s_axi_araddr(64'd0), .s_axi_arlen(8'd0), .s_axi_arvalid(1'b0), .s_axi_arready(),
      .s_axi_rid(), .s_axi_rdata(), .s_axi_rresp(), .s_axi_rlast(), .s_axi_rvalid(), .s_axi_rready(1'b1),
      .s_axi_awid(2'd0), .s_axi_awaddr(64'd0), .s_axi_awlen(8'd0), .s_axi_awvalid(1'b0), .s_axi_awready(),
      .s_axi_wdata(32'd0), .s_axi_wstrb(4'd0), .s_axi_wlast(1'b0), .s_axi_wvalid(1'b0), .s_axi_wready(),
      .s_axi_bid(), .s_axi_bresp(), .s_axi_bvalid(), .s_axi_bready(1'b1),
      .mem_valid(mem_valid), .mem_we(mem_we), .mem_word(mem_word), .mem_wdata(mem_wdata),
      .mem_ready(mem_ready), .mem_rdata(mem_rdata));
  /* verilator lint_on PINCONNECTEMPTY */
endmodule
