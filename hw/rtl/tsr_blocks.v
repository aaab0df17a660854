// The accelerator's datapath blocks at one config's sizes, every size taken
// from the generated header (`tessera isa verilog -c CONFIG` > tessera_cfg.vh):
// the three command queues and the fetch buffer, the four dependency-token
// queues, the inp/wgt/acc/uop scratchpads, the GEMM core, one tensor-ALU lane
// per accumulator lane and the memory port. It is the top that the lint and
// Yosys tests elaborate per config; it wires no control between the blocks
// (the fetch/load/compute/store controllers are not written yet, see
// docs/rtl.md), so every block port is a top-level port.
// Contract: <block>_<port> is the port <port> of the named block instance.
module tsr_blocks (
    input logic clk,
    input logic rst,
    // command queues (load, compute, store) and the fetch buffer
    input logic [3:0] cq_push,
    input logic [3:0] cq_pop,
    input logic [4*128-1:0] cq_push_data,
    output logic [4*128-1:0] cq_head,
    output logic [3:0] cq_full,
    output logic [3:0] cq_empty,
    // token queues (TSR token-queue order of the header)
    input logic [3:0] tq_push,
    input logic [3:0] tq_pop,
    output logic [3:0] tq_can_push,
    output logic [3:0] tq_can_pop,
    // scratchpads: 0 inp, 1 wgt, 2 acc, 3 uop
    input logic [3:0] sp_we,
    input logic [3:0] sp_re,
    input logic [4*32-1:0] sp_waddr,
    input logic [4*32-1:0] sp_raddr,
    input logic [4*SP_W-1:0] sp_wdata,
    output logic [4*SP_W-1:0] sp_rdata,
    // GEMM core
    input logic gemm_in_valid,
    input logic gemm_in_reset,
    input logic [IDX_W-1:0] gemm_in_dst,
    input logic [INP_ROW-1:0] gemm_inp,
    input logic [WGT_ROW-1:0] gemm_wgt,
    input logic [ACC_ROW-1:0] gemm_acc_in,
    output logic gemm_out_valid,
    output logic gemm_out_reset,
    output logic [IDX_W-1:0] gemm_out_dst,
    output logic [ACC_ROW-1:0] gemm_out_acc,
    // tensor ALU
    input logic [TSR_ALU_OP_W-1:0] alu_op,
    input logic [5:0] alu_shamt,
    input logic [ACC_ROW-1:0] alu_dst,
    input logic [ACC_ROW-1:0] alu_b,
    output logic [ACC_ROW-1:0] alu_result,
    // memory port
    input logic [3:0] mp_req,
    input logic [3:0] mp_req_write,
    input logic [4*32-1:0] mp_req_addr,
    input logic [4*PLEN_W-1:0] mp_req_bytes,
    output logic [3:0] mp_grant,
    output logic mp_arvalid,
    output logic [31:0] mp_araddr,
    output logic [7:0] mp_arlen,
    output logic [2:0] mp_arsize,
    output logic [1:0] mp_arburst,
    output logic mp_awvalid,
    output logic [31:0] mp_awaddr,
    output logic [7:0] mp_awlen,
    output logic [2:0] mp_awsize,
    output logic [1:0] mp_awburst,
    input logic mp_read_done,
    input logic mp_write_done,
    output logic [7:0] mp_outstanding
);
  /* verilator lint_off UNUSEDPARAM */  // the header is the whole table
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int LANES = TSR_BATCH * TSR_BLOCK_OUT;
  localparam int INP_ROW = TSR_BATCH * TSR_BLOCK_IN * TSR_INP_BITS;
  localparam int WGT_ROW = TSR_BLOCK_OUT * TSR_BLOCK_IN * TSR_WGT_BITS;
  localparam int ACC_ROW = LANES * TSR_ACC_BITS;
  localparam int SP_W = (WGT_ROW > ACC_ROW) ? WGT_ROW : ACC_ROW;
  localparam int IDX_W = TSR_ACC_IDX_BITS;
  localparam int PLEN_W = $clog2(TSR_BURST_MAX_BEATS * TSR_CFG_DRAM_BYTES_PER_CYCLE + 1);

  for (genvar q = 0; q < 4; q++) begin : g_cq
    localparam int DEPTH = (q == 3) ? TSR_CFG_QUEUES_FETCH_BUFFER : TSR_CFG_QUEUES_COMMAND_DEPTH;
    localparam int CW = $clog2(DEPTH + 1);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [CW-1:0] count;  // occupancy, used by the (future) fetch stall counter
    /* verilator lint_on UNUSEDSIGNAL */
    tsr_fifo #(
        .DEPTH(DEPTH),
        .WIDTH(TSR_INSN_BITS)
    ) u_q (
        .clk(clk),
        .rst(rst),
        .push(cq_push[q]),
        .push_data(cq_push_data[q*128+:128]),
        .pop(cq_pop[q]),
        .head(cq_head[q*128+:128]),
        .count(count),
        .full(cq_full[q]),
        .empty(cq_empty[q])
    );
  end

  for (genvar q = 0; q < 4; q++) begin : g_tq
    localparam int CW = $clog2(TSR_CFG_QUEUES_TOKEN_DEPTH + 1);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [CW-1:0] count;
    /* verilator lint_on UNUSEDSIGNAL */
    tsr_token_queue #(
        .DEPTH(TSR_CFG_QUEUES_TOKEN_DEPTH)
    ) u_q (
        .clk(clk),
        .rst(rst),
        .push(tq_push[q]),
        .pop(tq_pop[q]),
        .can_push(tq_can_push[q]),
        .can_pop(tq_can_pop[q]),
        .count(count)
    );
  end

  for (genvar s = 0; s < 4; s++) begin : g_sp
    localparam int ENTRIES = (s == 0) ? TSR_INP_ENTRIES : (s == 1) ? TSR_WGT_ENTRIES :
                             (s == 2) ? TSR_ACC_ENTRIES : TSR_UOP_ENTRIES;
    localparam int WIDTH = (s == 0) ? INP_ROW : (s == 1) ? WGT_ROW : (s == 2) ? ACC_ROW : TSR_UOP_BITS;
    localparam int AW = $clog2(ENTRIES);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0] waddr, raddr;  // only the index bits of the scratchpad are used
    logic [SP_W-1:0] wdata;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [WIDTH-1:0] rdata;
    assign waddr = sp_waddr[s*32+:32];
    assign raddr = sp_raddr[s*32+:32];
    assign wdata = sp_wdata[s*SP_W+:SP_W];
    assign sp_rdata[s*SP_W+:SP_W] = SP_W'(rdata);
    tsr_sdp_ram #(
        .DEPTH(ENTRIES),
        .WIDTH(WIDTH)
    ) u_ram (
        .clk(clk),
        .we(sp_we[s]),
        .waddr(waddr[AW-1:0]),
        .wdata(wdata[WIDTH-1:0]),
        .re(sp_re[s]),
        .raddr(raddr[AW-1:0]),
        .rdata(rdata)
    );
  end

  tsr_gemm_core #(
      .BATCH(TSR_BATCH),
      .BLOCK_IN(TSR_BLOCK_IN),
      .BLOCK_OUT(TSR_BLOCK_OUT),
      .INP_BITS(TSR_INP_BITS),
      .WGT_BITS(TSR_WGT_BITS),
      .ACC_BITS(TSR_ACC_BITS),
      .PIPE(TSR_CFG_TIMING_GEMM_PIPELINE_DEPTH),
      .IDX_W(IDX_W)
  ) u_gemm (
      .clk(clk),
      .rst(rst),
      .in_valid(gemm_in_valid),
      .in_reset(gemm_in_reset),
      .in_dst(gemm_in_dst),
      .inp(gemm_inp),
      .wgt(gemm_wgt),
      .out_valid(gemm_out_valid),
      .out_reset(gemm_out_reset),
      .out_dst(gemm_out_dst),
      .acc_in(gemm_acc_in),
      .out_acc(gemm_out_acc)
  );

  for (genvar l = 0; l < LANES; l++) begin : g_alu
    tsr_alu_lane #(
        .W(TSR_ACC_BITS),
        .OP_W(TSR_ALU_OP_W),
        .OP_MIN(TSR_ALU_OP_W'(TSR_ALU_MIN)),
        .OP_MAX(TSR_ALU_OP_W'(TSR_ALU_MAX)),
        .OP_ADD(TSR_ALU_OP_W'(TSR_ALU_ADD)),
        .OP_SHR(TSR_ALU_OP_W'(TSR_ALU_SHR)),
        .OP_MUL(TSR_ALU_OP_W'(TSR_ALU_MUL)),
        .OP_MULSHR(TSR_ALU_OP_W'(TSR_ALU_MULSHR)),
        .OP_CLIP(TSR_ALU_OP_W'(TSR_ALU_CLIP))
    ) u_lane (
        .op(alu_op),
        .dst(alu_dst[l*TSR_ACC_BITS+:TSR_ACC_BITS]),
        .b(alu_b[l*TSR_ACC_BITS+:TSR_ACC_BITS]),
        .shamt(alu_shamt),
        .result(alu_result[l*TSR_ACC_BITS+:TSR_ACC_BITS])
    );
  end

  tsr_mem_port #(
      .NREQ(4),
      .ADDR_W(32),
      .BUS_BYTES(TSR_CFG_DRAM_BYTES_PER_CYCLE),
      .N_OUT(TSR_CFG_DRAM_MAX_OUTSTANDING),
      .LEN_W(PLEN_W)
  ) u_port (
      .clk(clk),
      .rst(rst),
      .req(mp_req),
      .req_write(mp_req_write),
      .req_addr(mp_req_addr),
      .req_bytes(mp_req_bytes),
      .grant(mp_grant),
      .arvalid(mp_arvalid),
      .araddr(mp_araddr),
      .arlen(mp_arlen),
      .arsize(mp_arsize),
      .arburst(mp_arburst),
      .awvalid(mp_awvalid),
      .awaddr(mp_awaddr),
      .awlen(mp_awlen),
      .awsize(mp_awsize),
      .awburst(mp_awburst),
      .read_done(mp_read_done),
      .write_done(mp_write_done),
      .outstanding(mp_outstanding)
  );
endmodule
