// The iCE40 board's logic without its pins and clocking: the accelerator
// (hw/rtl/tsr_accel.v), its DRAM in SPRAM (tsr_spram_mem) and the host's
// UART bridge (tsr_uart_bridge) on its register window and the memory. The
// Verilated board that the `uart` transport is tested against is this module.
// Sizes come from the generated header (`tessera isa verilog -c CONFIG`); the
// config must have a 4- or 2-byte memory port and at most 128 KiB of DRAM.
module tsr_board #(
    parameter int CLKS_PER_BIT = 12
) (
    input  logic clk,
    input  logic rst,
    input  logic uart_rx,
    output logic uart_tx,
    output logic irq
);
`include "tessera_cfg.vh"
  localparam int MEM_BYTES = TSR_CFG_DRAM_SIZE_BYTES;
  localparam int BEAT = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  if ((BEAT != 4 && BEAT != 2) || MEM_BYTES > 131072) begin : g_bad_config
    $error("tsr_board: the iCE40 board needs dram.bytes_per_cycle 4 or 2 and dram.size_bytes <= 131072");
  end

  logic [11:0] awaddr, araddr;
  logic awvalid, awready, wvalid, wready, bvalid, bready, arvalid, arready, rvalid, rready;
  logic [31:0] wdata, rdata;
  logic [3:0] wstrb;
  logic [1:0] bresp, rresp;
  logic mem_valid, mem_we, mem_ready;
  logic [$clog2(MEM_BYTES)-3:0] mem_word;
  logic [31:0] mem_wdata, mem_rdata;

  tsr_uart_bridge #(
      .CLKS_PER_BIT(CLKS_PER_BIT),
      .MEM_BYTES(MEM_BYTES)
  ) bridge (
      .clk(clk), .rst(rst), .rx(uart_rx), .tx(uart_tx),
      .m_axil_awaddr(awaddr), .m_axil_awvalid(awvalid), .m_axil_awready(awready),
      .m_axil_wdata(wdata), .m_axil_wstrb(wstrb), .m_axil_wvalid(wvalid), .m_axil_wready(wready),
      .m_axil_bresp(bresp), .m_axil_bvalid(bvalid), .m_axil_bready(bready),
      .m_axil_araddr(araddr), .m_axil_arvalid(arvalid), .m_axil_arready(arready),
      .m_axil_rdata(rdata), .m_axil_rresp(rresp), .m_axil_rvalid(rvalid), .m_axil_rready(rready),
      .mem_valid(mem_valid), .mem_we(mem_we), .mem_word(mem_word), .mem_wdata(mem_wdata), .mem_ready(mem_ready), .mem_rdata(mem_rdata));

  logic [1:0] arid, rid, awid, bid, axi_rresp, axi_bresp, arburst, awburst;
  logic [63:0] axi_araddr, axi_awaddr;
  logic [7:0] arlen, awlen;
  logic [2:0] arsize, awsize;
  logic axi_arvalid, axi_arready, axi_rlast, axi_rvalid, axi_rready;
  logic axi_awvalid, axi_awready, axi_wlast, axi_wvalid, axi_wready, axi_bvalid, axi_bready;
  logic [8*BEAT-1:0] axi_rdata, axi_wdata;
  logic [BEAT-1:0] axi_wstrb;

  tsr_accel accel (
      .clk(clk), .rst(rst),
      .s_axil_awaddr(awaddr), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
      .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
      .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
      .s_axil_araddr(araddr), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
      .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
      .m_axi_arid(arid), .m_axi_araddr(axi_araddr), .m_axi_arlen(arlen), .m_axi_arsize(arsize),
      .m_axi_arburst(arburst), .m_axi_arvalid(axi_arvalid), .m_axi_arready(axi_arready),
      .m_axi_rid(rid), .m_axi_rdata(axi_rdata), .m_axi_rresp(axi_rresp), .m_axi_rlast(axi_rlast),
      .m_axi_rvalid(axi_rvalid), .m_axi_rready(axi_rready),
      .m_axi_awid(awid), .m_axi_awaddr(axi_awaddr), .m_axi_awlen(awlen), .m_axi_awsize(awsize),
      .m_axi_awburst(awburst), .m_axi_awvalid(axi_awvalid), .m_axi_awready(axi_awready),
      .m_axi_wdata(axi_wdata), .m_axi_wstrb(axi_wstrb), .m_axi_wlast(axi_wlast),
      .m_axi_wvalid(axi_wvalid), .m_axi_wready(axi_wready),
      .m_axi_bid(bid), .m_axi_bresp(axi_bresp), .m_axi_bvalid(axi_bvalid), .m_axi_bready(axi_bready),
      .irq(irq));

  tsr_spram_mem #(.MEM_BYTES(MEM_BYTES), .N_OUT(TSR_CFG_DRAM_MAX_OUTSTANDING), .BEAT_BYTES(BEAT)) mem (
      .clk(clk), .rst(rst),
      .s_axi_arid(arid), .s_axi_araddr(axi_araddr), .s_axi_arlen(arlen), .s_axi_arvalid(axi_arvalid),
      .s_axi_arready(axi_arready), .s_axi_rid(rid), .s_axi_rdata(axi_rdata), .s_axi_rresp(axi_rresp),
      .s_axi_rlast(axi_rlast), .s_axi_rvalid(axi_rvalid), .s_axi_rready(axi_rready),
      .s_axi_awid(awid), .s_axi_awaddr(axi_awaddr), .s_axi_awlen(awlen), .s_axi_awvalid(axi_awvalid),
      .s_axi_awready(axi_awready), .s_axi_wdata(axi_wdata), .s_axi_wstrb(axi_wstrb), .s_axi_wlast(axi_wlast),
      .s_axi_wvalid(axi_wvalid), .s_axi_wready(axi_wready), .s_axi_bid(bid), .s_axi_bresp(axi_bresp),
      .s_axi_bvalid(axi_bvalid), .s_axi_bready(axi_bready),
      .mem_valid(mem_valid), .mem_we(mem_we), .mem_word(mem_word), .mem_wdata(mem_wdata), .mem_ready(mem_ready), .mem_rdata(mem_rdata));
endmodule
