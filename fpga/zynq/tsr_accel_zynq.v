// Verilog-2001 wrapper of the accelerator for Vivado's block design (a module
// reference cannot have a SystemVerilog top): the same ports as tsr_accel,
// with the AXI interfaces named as Vivado infers them (S_AXI_CTRL: the
// register window on GP0; M_AXI_DRAM: the memory master on HP0), an
// active-low reset (proc_sys_reset's peripheral_aresetn) and the interrupt.
// Widths come from the generated header: DW = 8 * dram.bytes_per_cycle.
module tsr_accel_zynq (
    input  wire         aclk,
    input  wire         aresetn,
    input  wire [11:0]  s_axi_ctrl_awaddr,  input  wire s_axi_ctrl_awvalid, output wire s_axi_ctrl_awready,
    input  wire [31:0]  s_axi_ctrl_wdata,   input  wire [3:0] s_axi_ctrl_wstrb,
    input  wire         s_axi_ctrl_wvalid,  output wire s_axi_ctrl_wready,
    output wire [1:0]   s_axi_ctrl_bresp,   output wire s_axi_ctrl_bvalid,  input  wire s_axi_ctrl_bready,
    input  wire [11:0]  s_axi_ctrl_araddr,  input  wire s_axi_ctrl_arvalid, output wire s_axi_ctrl_arready,
    output wire [31:0]  s_axi_ctrl_rdata,   output wire [1:0] s_axi_ctrl_rresp,
    output wire         s_axi_ctrl_rvalid,  input  wire s_axi_ctrl_rready,
    output wire [1:0]   m_axi_dram_arid,    output wire [31:0] m_axi_dram_araddr, output wire [7:0] m_axi_dram_arlen,
    output wire [2:0]   m_axi_dram_arsize,  output wire [1:0] m_axi_dram_arburst,
    output wire         m_axi_dram_arvalid, input  wire m_axi_dram_arready,
    input  wire [1:0]   m_axi_dram_rid,     input  wire [`TSR_ZYNQ_DW-1:0] m_axi_dram_rdata,
    input  wire [1:0]   m_axi_dram_rresp,   input  wire m_axi_dram_rlast, input wire m_axi_dram_rvalid,
    output wire         m_axi_dram_rready,
    output wire [1:0]   m_axi_dram_awid,    output wire [31:0] m_axi_dram_awaddr, output wire [7:0] m_axi_dram_awlen,
    output wire [2:0]   m_axi_dram_awsize,  output wire [1:0] m_axi_dram_awburst,
    output wire         m_axi_dram_awvalid, input  wire m_axi_dram_awready,
    output wire [`TSR_ZYNQ_DW-1:0] m_axi_dram_wdata, output wire [`TSR_ZYNQ_DW/8-1:0] m_axi_dram_wstrb,
    output wire         m_axi_dram_wlast,   output wire m_axi_dram_wvalid, input wire m_axi_dram_wready,
    input  wire [1:0]   m_axi_dram_bid,     input  wire [1:0] m_axi_dram_bresp, input wire m_axi_dram_bvalid,
    output wire         m_axi_dram_bready,
    output wire         irq
);
  // The Zynq's HP ports carry 32-bit addresses: the upper half of the
  // accelerator's 64-bit bus address is zero (DRAM_BASE_HI = 0).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [63:0] araddr, awaddr;
  /* verilator lint_on UNUSEDSIGNAL */
  assign m_axi_dram_araddr = araddr[31:0];
  assign m_axi_dram_awaddr = awaddr[31:0];

  tsr_accel accel (
      .clk(aclk), .rst(!aresetn),
      .s_axil_awaddr(s_axi_ctrl_awaddr), .s_axil_awvalid(s_axi_ctrl_awvalid), .s_axil_awready(s_axi_ctrl_awready),
      .s_axil_wdata(s_axi_ctrl_wdata), .s_axil_wstrb(s_axi_ctrl_wstrb), .s_axil_wvalid(s_axi_ctrl_wvalid),
      .s_axil_wready(s_axi_ctrl_wready), .s_axil_bresp(s_axi_ctrl_bresp), .s_axil_bvalid(s_axi_ctrl_bvalid),
      .s_axil_bready(s_axi_ctrl_bready), .s_axil_araddr(s_axi_ctrl_araddr), .s_axil_arvalid(s_axi_ctrl_arvalid),
      .s_axil_arready(s_axi_ctrl_arready), .s_axil_rdata(s_axi_ctrl_rdata), .s_axil_rresp(s_axi_ctrl_rresp),
      .s_axil_rvalid(s_axi_ctrl_rvalid), .s_axil_rready(s_axi_ctrl_rready),
      .m_axi_arid(m_axi_dram_arid), .m_axi_araddr(araddr), .m_axi_arlen(m_axi_dram_arlen),
      .m_axi_arsize(m_axi_dram_arsize), .m_axi_arburst(m_axi_dram_arburst), .m_axi_arvalid(m_axi_dram_arvalid),
      .m_axi_arready(m_axi_dram_arready), .m_axi_rid(m_axi_dram_rid), .m_axi_rdata(m_axi_dram_rdata),
      .m_axi_rresp(m_axi_dram_rresp), .m_axi_rlast(m_axi_dram_rlast), .m_axi_rvalid(m_axi_dram_rvalid),
      .m_axi_rready(m_axi_dram_rready),
      .m_axi_awid(m_axi_dram_awid), .m_axi_awaddr(awaddr), .m_axi_awlen(m_axi_dram_awlen),
      .m_axi_awsize(m_axi_dram_awsize), .m_axi_awburst(m_axi_dram_awburst), .m_axi_awvalid(m_axi_dram_awvalid),
      .m_axi_awready(m_axi_dram_awready), .m_axi_wdata(m_axi_dram_wdata), .m_axi_wstrb(m_axi_dram_wstrb),
      .m_axi_wlast(m_axi_dram_wlast), .m_axi_wvalid(m_axi_dram_wvalid), .m_axi_wready(m_axi_dram_wready),
      .m_axi_bid(m_axi_dram_bid), .m_axi_bresp(m_axi_dram_bresp), .m_axi_bvalid(m_axi_dram_bvalid),
      .m_axi_bready(m_axi_dram_bready),
      .irq(irq));
endmodule
