// The Tessera accelerator (docs/microarch.md is the contract, sim/ implements
// it; docs/rtl.md maps each rule to this RTL). Every size and constant comes
// from the generated header tessera_cfg.vh (`tessera isa verilog -c CONFIG`).
// Interfaces (docs/rtl.md, /work/notes/rtl-interface.md): an AXI4-Lite slave
// (the register window of isa/regs.def), an AXI4 master for all DRAM traffic
// (bus address = DRAM_BASE + device address; IDs = requester: 0 fetch,
// 1 compute, 2 store, 3 load) and `irq`.
// Cycle t of a run is the t-th cycle after the edge that takes CTRL.START;
// within a cycle the five phases of "The cycle" are combinational in order:
// burst completions (registered RLAST/B handshakes of cycle t-1), module ends
// and pushes (tsr_unit), starts (tsr_unit, range checks), the dispatch of the
// fetch buffer's head (tsr_decode), and one memory request (tsr_mem_port).
// Contract: the AXI4 slave keeps ARREADY/AWREADY high, serves data in
// acceptance order on one data channel, and answers per the rtl-interface
// cycle convention; T_setup >= 1; every element but the uop's is a multiple
// of B bytes.
module tsr_accel (
    input  logic                clk,
    input  logic                rst,
    input  logic [        11:0] s_axil_awaddr,
    input  logic                s_axil_awvalid,
    output logic                s_axil_awready,
    input  logic [        31:0] s_axil_wdata,
    input  logic [         3:0] s_axil_wstrb,
    input  logic                s_axil_wvalid,
    output logic                s_axil_wready,
    output logic [         1:0] s_axil_bresp,
    output logic                s_axil_bvalid,
    input  logic                s_axil_bready,
    input  logic [        11:0] s_axil_araddr,
    input  logic                s_axil_arvalid,
    output logic                s_axil_arready,
    output logic [        31:0] s_axil_rdata,
    output logic [         1:0] s_axil_rresp,
    output logic                s_axil_rvalid,
    input  logic                s_axil_rready,
    output logic [         1:0] m_axi_arid,
    output logic [        63:0] m_axi_araddr,
    output logic [         7:0] m_axi_arlen,
    output logic [         2:0] m_axi_arsize,
    output logic [         1:0] m_axi_arburst,
    output logic                m_axi_arvalid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic                m_axi_arready,  // always high (contract)
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [         1:0] m_axi_rid,
    input  logic [    DW-1:0]   m_axi_rdata,
    input  logic [         1:0] m_axi_rresp,
    input  logic                m_axi_rlast,
    input  logic                m_axi_rvalid,
    output logic                m_axi_rready,
    output logic [         1:0] m_axi_awid,
    output logic [        63:0] m_axi_awaddr,
    output logic [         7:0] m_axi_awlen,
    output logic [         2:0] m_axi_awsize,
    output logic [         1:0] m_axi_awburst,
    output logic                m_axi_awvalid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic                m_axi_awready,  // always high (contract)
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [    DW-1:0]   m_axi_wdata,
    output logic [BEAT_B-1:0]   m_axi_wstrb,
    output logic                m_axi_wlast,
    output logic                m_axi_wvalid,
    input  logic                m_axi_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [         1:0] m_axi_bid,  // only the store writes
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [         1:0] m_axi_bresp,
    input  logic                m_axi_bvalid,
    output logic                m_axi_bready,
    output logic                irq
);
  /* verilator lint_off UNUSEDPARAM */
`include "tessera_cfg.vh"
  /* verilator lint_on UNUSEDPARAM */
  localparam int BEAT_B = TSR_CFG_DRAM_BYTES_PER_CYCLE;
  localparam int DW = 8 * BEAT_B;
  localparam int NCTR = TSR_NUM_COUNTERS;
  localparam int CTR_W = TSR_CFG_COUNTERS_BITS;
  localparam int LANES = TSR_BATCH * TSR_BLOCK_OUT;
  localparam int INP_DW = 8 * TSR_ELEM_BYTES_INP;
  localparam int WGT_DW = 8 * TSR_ELEM_BYTES_WGT;
  localparam int ACC_DW = LANES * TSR_ACC_BITS;
  localparam int OUT_DW = LANES * TSR_OUT_BITS;
  localparam int MAXE_LD = TSR_ELEM_BYTES_INP > TSR_ELEM_BYTES_WGT ? TSR_ELEM_BYTES_INP : TSR_ELEM_BYTES_WGT;
  localparam int MAXE_CP = TSR_ELEM_BYTES_ACC > TSR_ELEM_BYTES_ACC8 ? TSR_ELEM_BYTES_ACC : TSR_ELEM_BYTES_ACC8;
  localparam int WD_LD = MAXE_LD > BEAT_B ? MAXE_LD : BEAT_B;
  localparam int WD_CP = MAXE_CP > BEAT_B ? MAXE_CP : BEAT_B;
  localparam int NBU = BEAT_B > TSR_ELEM_BYTES_UOP ? BEAT_B / TSR_ELEM_BYTES_UOP : 1;
  localparam int AW = TSR_DEV_ADDR_BITS;  // device addresses (the bus adds DRAM_BASE)
  localparam int IW = TSR_STREAM_IDX_BITS;  // stream indices and counts of a launched stream
  localparam int QW = 129 + IW;  // command-queue entry: range fault, stream index, instruction
  localparam int P_FETCH = 0, P_COMPUTE = 1, P_STORE = 2, P_LOAD = 3;  // port requesters (AXI IDs)
  localparam logic [31:0] NO_INSN = 32'hFFFF_FFFF;
  // The compute module's two pipes (timing.compute_overlap; docs/microarch.md
  // "Overlap"): tsr_compute_pipes, a GEMM-only and an ALU-only
  // tsr_compute_exec, the uop RAM twice, acc and out in two banks (halves).
  // The serial core (queues.serial; docs/microarch.md "Serial"):
  // fetch dispatches only when no instruction is queued, running or holding
  // its pushes, so one command slot serves the three modules, one DMA read
  // engine serves the load and compute modules' LOADs, and the compute module
  // has one pipe (nothing runs beside anything, so ovl has no effect).
  localparam bit SERIAL = TSR_CFG_QUEUES_SERIAL != 0;
  localparam bit OVL = TSR_CFG_TIMING_COMPUTE_OVERLAP != 0 && !SERIAL;

  // ---- Register window and run control ---------------------------------------
  logic [63:0] insn_addr, watchdog, dram_base;
  logic [31:0] insn_count;
  logic irq_en, ctrl_start, ctrl_abort, ctrl_clear;
  logic st_done, st_busy, st_error, aborting, start_pending;
  logic [31:0] err_code, err_insn;
  logic [64*NCTR-1:0] counters;

  tsr_regs u_regs (
      .clk(clk),
      .rst(rst),
      .s_axil_awaddr(s_axil_awaddr),
      .s_axil_awvalid(s_axil_awvalid),
      .s_axil_awready(s_axil_awready),
      .s_axil_wdata(s_axil_wdata),
      .s_axil_wstrb(s_axil_wstrb),
      .s_axil_wvalid(s_axil_wvalid),
      .s_axil_wready(s_axil_wready),
      .s_axil_bresp(s_axil_bresp),
      .s_axil_bvalid(s_axil_bvalid),
      .s_axil_bready(s_axil_bready),
      .s_axil_araddr(s_axil_araddr),
      .s_axil_arvalid(s_axil_arvalid),
      .s_axil_arready(s_axil_arready),
      .s_axil_rdata(s_axil_rdata),
      .s_axil_rresp(s_axil_rresp),
      .s_axil_rvalid(s_axil_rvalid),
      .s_axil_rready(s_axil_rready),
      .insn_addr(insn_addr),
      .insn_count(insn_count),
      .watchdog(watchdog),
      .dram_base(dram_base),
      .irq_en(irq_en),
      .ctrl_start(ctrl_start),
      .ctrl_abort(ctrl_abort),
      .ctrl_clear(ctrl_clear),
      .status(32'({st_error, st_busy, st_done}) & 32'h7),
      .error_code(err_code),
      .error_insn(err_insn),
      .counters(counters)
  );
  assign irq = irq_en && (st_done || st_error);

  logic [AW-1:0] run_addr;  // a launched stream lies in [0, dram.size_bytes)
  logic [63:0] cyc;
  logic [IW-1:0] run_count;
  logic running, bad_launch, want_start, drained, launch, clr;
  logic [7:0] outstanding;
  // A stream must lie in [0, dram.size_bytes): the sum is taken at LB + 1
  // bits (LB holds dram.size_bytes <= 2^AW) once the bits above are zero.
  // (A count takes CB bits: all 32 once DRAM holds 2^32 instructions.)
  localparam int LB = AW + 1;
  localparam int CB = LB - 4 < 32 ? LB - 4 : 32;
  logic count_high;
  if (CB < 32) begin : g_count_high
    assign count_high = insn_count[31:CB] != '0;
  end else begin : g_count_fits
    assign count_high = 1'b0;
  end
  assign bad_launch = insn_count == 0 || insn_addr[3:0] != 4'd0 || insn_addr[63:LB] != '0 || count_high ||
                      {1'b0, insn_addr[LB-1:0]} + {1'b0, (LB - 4)'(insn_count[CB-1:0]), 4'd0} >
                          (LB + 1)'(TSR_CFG_DRAM_SIZE_BYTES);
  assign want_start = (ctrl_start && !st_busy && !bad_launch) || start_pending;
  assign launch = want_start && drained;
  assign clr = rst || launch;

  // ---- Memory side: completions (phase 1) ---------------------------------
  logic [3:0] rcpl_q, rerr_q;  // by requester: a read burst completes in this cycle (RLAST last cycle)
  logic bcpl_q, berr_q, rerr_acc;
  always_ff @(posedge clk) begin
    if (rst) begin
      rcpl_q <= '0;
      rerr_q <= '0;
      bcpl_q <= 1'b0;
      berr_q <= 1'b0;
      rerr_acc <= 1'b0;
    end else begin
      rcpl_q <= '0;
      rerr_q <= '0;
      if (m_axi_rvalid) begin
        rerr_acc <= m_axi_rlast ? 1'b0 : rerr_acc || m_axi_rresp != 2'b00;
        if (m_axi_rlast) begin
          rcpl_q[m_axi_rid] <= 1'b1;
          rerr_q[m_axi_rid] <= rerr_acc || m_axi_rresp != 2'b00;
        end
      end
      bcpl_q <= m_axi_bvalid;
      berr_q <= m_axi_bvalid && m_axi_bresp != 2'b00;
    end
  end
  assign m_axi_rready = 1'b1;
  assign m_axi_bready = 1'b1;
  assign drained = outstanding == 8'd0 && !(|rcpl_q) && !bcpl_q;

  // ---- Fetch, decode, dispatch (phase 4) ---------------------------------------
  logic f_req, f_grant, f_head_valid, f_take, f_st_busy, f_st_wq, f_st_wm;
  /* verilator lint_off UNUSEDSIGNAL */  // status outputs kept for waveforms
  logic f_done_all, ld_active, cp_active, st_active, ex_busy;
  logic [63:0] ex_macs;
  logic [31:0] ld_dw_n;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [AW-1:0] f_addr;
  logic [12:0] f_bytes;
  logic [127:0] f_head;
  logic [IW-1:0] f_index;
  logic dec_illegal;
  logic [1:0] dec_module;
  logic stop_fetch, go;
  tsr_fetch u_fetch (
      .clk(clk),
      .clr(clr),
      .run(running && !stop_fetch),
      .base(run_addr),
      .count(run_count),
      .req(f_req),
      .req_addr(f_addr),
      .req_bytes(f_bytes),
      .grant(f_grant),
      .beat_valid(m_axi_rvalid && m_axi_rid == 2'(P_FETCH)),
      .beat_data(m_axi_rdata),
      .cpl(rcpl_q[P_FETCH]),
      .head_valid(f_head_valid),
      .head_insn(f_head),
      .head_index(f_index),
      .take(f_take),
      .done_all(f_done_all),
      .st_busy(f_st_busy),
      .st_wait_queue(f_st_wq),
      .st_wait_memory(f_st_wm)
  );
  tsr_decode u_decode (
      .insn(f_head),
      .index(32'(f_index)),
      .count(32'(run_count)),
      .illegal(dec_illegal),
      .module_id(dec_module)
  );

  // The range check of a LOAD/STORE is a function of the instruction alone,
  // so it runs once, on the fetch head as it is dispatched, and travels in
  // the command-queue entry (bit QW-1) to the module's start, where a fault
  // is raised (one check and its two products instead of one per module).
  logic f_range_fault;
  tsr_mem_check u_chk (
      .insn(f_head),
      .fault(f_range_fault)
  );

  // Command queues (by module) and token queues.
  logic [2:0] cq_push, cq_pop, cq_full, cq_empty;
  logic [QW-1:0] cq_head[3];
  logic [3:0] tq_push, tq_pop, tq_can_push, tq_can_pop;
  logic [3:0] tq_push2;  // a second push in one cycle (the compute module's two pipes)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [3:0] tq_can_push2;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [3:0] tq_nonzero;
  // The serial core's one command slot: a dispatch finds it empty (the
  // gate), a start empties it (sl_v), and its entry stays the instruction
  // until that completes (the one tsr_unit's current instruction).
  /* verilator lint_off UNUSEDSIGNAL */  // decoupled: no slot
  logic sl_v;
  logic [1:0] sl_mod;
  logic [QW-1:0] sl_e;
  /* verilator lint_on UNUSEDSIGNAL */
  if (SERIAL) begin : g_slot
    always_ff @(posedge clk) begin
      if (clr) sl_v <= 1'b0;
      else if (|cq_push) sl_v <= 1'b1;
      else if (|cq_pop) sl_v <= 1'b0;
      if (|cq_push) begin
        sl_mod <= dec_module;
        sl_e <= {f_range_fault, f_index, f_head};
      end
    end
    for (genvar m = 0; m < 3; m++) begin : g_m
      assign cq_head[m] = sl_e;
      assign cq_empty[m] = !(sl_v && 32'(sl_mod) == m);
      assign cq_full[m] = !cq_empty[m];
    end
  end else begin : g_cq
    assign sl_v = 1'b0;
    assign sl_mod = 2'd0;
    assign sl_e = '0;
    for (genvar m = 0; m < 3; m++) begin : g_m
      /* verilator lint_off UNUSEDSIGNAL */
      logic [$clog2(TSR_CFG_QUEUES_COMMAND_DEPTH+1)-1:0] cnt;
      /* verilator lint_on UNUSEDSIGNAL */
      tsr_fifo #(
          .DEPTH(TSR_CFG_QUEUES_COMMAND_DEPTH),
          .WIDTH(QW)
      ) u_q (
          .clk(clk),
          .rst(clr),
          .push(cq_push[m]),
          .push_data({f_range_fault, f_index, f_head}),
          .pop(cq_pop[m]),
          .head(cq_head[m]),
          .count(cnt),
          .full(cq_full[m]),
          .empty(cq_empty[m])
      );
    end
  end
  for (genvar q = 0; q < 4; q++) begin : g_tq
    logic [$clog2(TSR_CFG_QUEUES_TOKEN_DEPTH+1)-1:0] cnt;
    tsr_token_queue #(
        .DEPTH(TSR_CFG_QUEUES_TOKEN_DEPTH)
    ) u_tq (
        .clk(clk),
        .rst(clr),
        .push(tq_push[q]),
        .push2(tq_push2[q]),
        .pop(tq_pop[q]),
        .can_push(tq_can_push[q]),
        .can_push2(tq_can_push2[q]),
        .can_pop(tq_can_pop[q]),
        .count(cnt)
    );
    // Tokens held after this cycle's pushes (the FINISH check; no pops then).
    assign tq_nonzero[q] = cnt != '0 || tq_push[q];
  end

  // ---- The three modules (phases 2 and 3) --------------------------------------
  logic [2:0] u_busy, u_completing, u_end, u_free;
  /* verilator lint_off UNUSEDSIGNAL */  // serial: one unit reads the load module's
  logic [2:0] u_dma;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0] u_start  /* verilator split_var */;
  logic [2:0] u_hold  /* verilator split_var */;
  logic [127:0] u_insn[3];
  logic [IW-1:0] u_index[3];
  logic [CTR_W-1:0] u_busy_part[3];  // cycle statistics: counters.bits wide (the counters wrap at it)
  logic [CTR_W-1:0] u_inc[3][4];
  logic [3:0] u_tq_push[3], u_tq_pop[3];
  logic finish_now;
  // With compute_overlap the compute module's two slots (tsr_compute_pipes):
  // u_* of MC describe slot A (LOAD, ALU, FINISH; busy/completing/start: either).
  logic cg_start_a, cg_start_g, cg_busy_a, cg_busy_g, cg_end_g;
  /* verilator lint_off UNUSEDSIGNAL */
  logic cg_comp_g;
  logic cg_a_older;
  logic [127:0] cg_insn_g;
  logic [IW-1:0] cg_index_g;
  /* verilator lint_on UNUSEDSIGNAL */
  if (SERIAL) begin : g_unit1
    // One unit for the three modules (tsr_unit SERIAL): the slot's module
    // selects its end, busy part and token queues; the others read as free.
    logic start, busy, completing, free;
    logic [127:0] insn;
    logic [IW-1:0] index;
    logic [3*CTR_W-1:0] i_busy, i_token, i_queue, i_memory;
    tsr_unit #(
        .SERIAL(1'b1)
    ) u_unit (
        .clk(clk),
        .clr(clr),
        .cyc(CTR_W'(cyc)),
        .q_valid(sl_v),
        .q_insn(sl_e[127:0]),
        .q_index(sl_e[QW-2:128]),
        .q_mod(sl_mod),
        .hold(u_hold[TSR_MODULE_LOAD]),  // = the others': no other module starts
        .end_now(u_end[sl_mod]),
        .busy_part(u_busy_part[sl_mod]),
        .dma(u_dma[TSR_MODULE_LOAD]),  // every module's: one instruction
        .last(finish_now),
        .tq_can_push(tq_can_push),
        .tq_can_pop(tq_can_pop),
        .tq_push(u_tq_push[0]),
        .tq_pop(u_tq_pop[0]),
        .start(start),
        .busy(busy),
        .completing(completing),
        .free(free),
        .cur_insn(insn),
        .cur_index(index),
        .inc_busy(i_busy),
        .inc_wait_token(i_token),
        .inc_wait_queue(i_queue),
        .inc_wait_memory(i_memory)
    );
    for (genvar m = 0; m < 3; m++) begin : g_m
      logic mine;
      assign mine = 32'(sl_mod) == m;
      assign u_start[m] = start && mine;
      assign u_busy[m] = busy && mine;
      assign u_completing[m] = completing && mine;
      assign u_free[m] = free;
      assign u_insn[m] = insn;
      assign u_index[m] = index;
      if (m > 0) begin : g_none
        assign u_tq_push[m] = '0;
        assign u_tq_pop[m] = '0;
      end
      assign u_inc[m][TSR_STALL_BUSY] = i_busy[m*CTR_W+:CTR_W];
      assign u_inc[m][TSR_STALL_WAIT_TOKEN] = i_token[m*CTR_W+:CTR_W];
      assign u_inc[m][TSR_STALL_WAIT_QUEUE] = i_queue[m*CTR_W+:CTR_W];
      assign u_inc[m][TSR_STALL_WAIT_MEMORY] = i_memory[m*CTR_W+:CTR_W];
      assign u_dma[m] = 32'(u_insn[m][TSR_MEM_OPCODE_LSB+:3]) == TSR_OP_LOAD ||
                        32'(u_insn[m][TSR_MEM_OPCODE_LSB+:3]) == TSR_OP_STORE;
    end
  end else begin : g_units
    for (genvar m = 0; m < 3; m++) begin : g_unit
      if (OVL && m == TSR_MODULE_COMPUTE) begin : g_pipes
        logic comp_a;
        tsr_compute_pipes u_pipes (
            .clk(clk),
            .clr(clr),
            .cyc(CTR_W'(cyc)),
            .q_valid(!cq_empty[m]),
            .q_insn(cq_head[m][127:0]),
            .q_index(cq_head[m][QW-2:128]),
            .hold(u_hold[m]),
            .end_a(u_end[m]),
            .end_g(cg_end_g),
            .busy_part(u_busy_part[m]),
            .dma(u_dma[m]),
            .last(finish_now),
            .tq_can_push(tq_can_push),
            .tq_can_push2(tq_can_push2),
            .tq_can_pop(tq_can_pop),
            .tq_push(u_tq_push[m]),
            .tq_push2(tq_push2),
            .tq_pop(u_tq_pop[m]),
            .start(u_start[m]),
            .start_a(cg_start_a),
            .start_g(cg_start_g),
            .busy_a(cg_busy_a),
            .busy_g(cg_busy_g),
            .completing_a(comp_a),
            .completing_g(cg_comp_g),
            .a_older(cg_a_older),
            .insn_a(u_insn[m]),
            .insn_g(cg_insn_g),
            .index_a(u_index[m]),
            .index_g(cg_index_g),
            .inc_busy(u_inc[m][TSR_STALL_BUSY]),
            .inc_wait_token(u_inc[m][TSR_STALL_WAIT_TOKEN]),
            .inc_wait_queue(u_inc[m][TSR_STALL_WAIT_QUEUE]),
            .inc_wait_memory(u_inc[m][TSR_STALL_WAIT_MEMORY])
        );
        assign u_busy[m] = cg_busy_a || cg_busy_g;
        assign u_completing[m] = comp_a || cg_comp_g;
        assign u_free[m] = 1'b0;  // read only by the serial gate (never with the pipes)
      end else begin : g_one
      tsr_unit #(
          .MOD(m)
      ) u_unit (
          .clk(clk),
          .clr(clr),
          .cyc(CTR_W'(cyc)),
          .q_valid(!cq_empty[m]),
          .q_insn(cq_head[m][127:0]),
          .q_index(cq_head[m][QW-2:128]),
          .q_mod(2'(m)),
          .hold(u_hold[m]),
          .end_now(u_end[m]),
          .busy_part(u_busy_part[m]),
          .dma(u_dma[m]),
          .last(finish_now),
          .tq_can_push(tq_can_push),
          .tq_can_pop(tq_can_pop),
          .tq_push(u_tq_push[m]),
          .tq_pop(u_tq_pop[m]),
          .start(u_start[m]),
          .busy(u_busy[m]),
          .completing(u_completing[m]),
          .free(u_free[m]),
          .cur_insn(u_insn[m]),
          .cur_index(u_index[m]),
          .inc_busy(u_inc[m][TSR_STALL_BUSY]),
          .inc_wait_token(u_inc[m][TSR_STALL_WAIT_TOKEN]),
          .inc_wait_queue(u_inc[m][TSR_STALL_WAIT_QUEUE]),
          .inc_wait_memory(u_inc[m][TSR_STALL_WAIT_MEMORY])
      );
      end
      assign u_dma[m] = 32'(u_insn[m][TSR_MEM_OPCODE_LSB+:3]) == TSR_OP_LOAD ||
                        32'(u_insn[m][TSR_MEM_OPCODE_LSB+:3]) == TSR_OP_STORE;
    end
  end
  assign tq_push = u_tq_push[0] | u_tq_push[1] | u_tq_push[2];
  assign tq_pop = u_tq_pop[0] | u_tq_pop[1] | u_tq_pop[2];
  assign cq_pop = u_start;
  if (!OVL) begin : g_no_pipes
    assign tq_push2 = '0;
    assign cg_start_a = u_start[TSR_MODULE_COMPUTE];
    assign cg_start_g = 1'b0;
    assign cg_busy_a = u_busy[TSR_MODULE_COMPUTE];
    assign cg_busy_g = 1'b0;
    assign cg_comp_g = 1'b0;
    assign cg_a_older = 1'b1;
    assign cg_insn_g = '0;
    assign cg_index_g = '0;
  end

  localparam int ML = TSR_MODULE_LOAD, MC = TSR_MODULE_COMPUTE, MS = TSR_MODULE_STORE;
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [2:0] op_of(input logic [127:0] w);
    op_of = w[TSR_MEM_OPCODE_LSB+:3];
  endfunction
  function automatic logic [2:0] mem_of(input logic [127:0] w);
    mem_of = w[TSR_MEM_MEM_LSB+:3];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  logic c_is_finish;
  assign c_is_finish = 32'(op_of(u_insn[MC])) == TSR_OP_FINISH;
  assign finish_now = running && u_completing[MC] && c_is_finish;

  // ---- Instruction trace (observation only) ------------------------------------
  // For a simulation harness (driver/rtl: the Chrome trace, the first
  // differing instruction of a mismatch; docs/hardware.md): in run cycle
  // `trace_cycle`, bit m of `trace_start`/`trace_end` is set when module m
  // (TSR_MODULE_*) starts / ends an instruction (its End cycle, the span of
  // docs/microarch.md), and `trace_index` holds, 32 bits per module, the
  // stream index of the instruction that module is in. Nothing reads them:
  // synthesis removes them; Verilator keeps them readable (public_flat_rd).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [3:0] trace_start  /* verilator public_flat_rd */;
  logic [3:0] trace_end  /* verilator public_flat_rd */;
  logic [127:0] trace_index  /* verilator public_flat_rd */;
  logic [63:0] trace_cycle  /* verilator public_flat_rd */;
  /* verilator lint_on UNUSEDSIGNAL */
  // Bit 3: the compute module's GEMM pipe (with compute_overlap; its spans
  // share the compute track).
  logic [2:0] tr_start, tr_end;
  always_comb begin
    tr_start = u_start;
    tr_end = u_busy & u_end;
    tr_start[MC] = cg_start_a;
    tr_end[MC] = cg_busy_a && u_end[MC];
  end
  assign trace_start = running ? {cg_start_g, tr_start} : 4'b0000;
  assign trace_end = running ? {cg_busy_g && cg_end_g, tr_end} : 4'b0000;
  assign trace_index = {32'(cg_index_g), 32'(u_index[2]), 32'(u_index[1]), 32'(u_index[0])};
  assign trace_cycle = cyc;

  // ---- Faults -------------------------------------------------------------------
  logic [2:0] start_fault  /* verilator split_var */;
  for (genvar m = 0; m < 3; m++) begin : g_chk
    assign start_fault[m] = u_start[m] && (32'(op_of(cq_head[m][127:0])) == TSR_OP_LOAD ||
                                           32'(op_of(cq_head[m][127:0])) == TSR_OP_STORE) && cq_head[m][QW-1];
  end
  // Serial: nothing queued, started or held after this cycle's phases 2 and 3.
  logic idle;
  assign idle = (u_free & ~u_start & cq_empty) == 3'b111;
  logic exec_oob, resp_fault, oob_fault, token_fault, dec_fault, deadlock, wd_fire, any_fault;
  logic [31:0] resp_insn;
  always_comb begin
    resp_fault = 1'b0;
    resp_insn = NO_INSN;
    if (rerr_q[P_FETCH]) resp_fault = 1'b1;
    else if (rerr_q[P_COMPUTE]) begin
      resp_fault = 1'b1;
      resp_insn = 32'(u_index[MC]);
    end else if (berr_q) begin
      resp_fault = 1'b1;
      resp_insn = 32'(u_index[MS]);
    end else if (rerr_q[P_LOAD]) begin
      resp_fault = 1'b1;
      resp_insn = 32'(u_index[ML]);
    end
  end
  assign oob_fault = exec_oob && u_busy[MC];  // exec_oob: either pipe's (compute datapath below)
  // The end-of-stream token rule (docs/isa.md, sim/tokens.h FinishRule): the
  // last load instruction pushes towards compute (push_next) and so does the
  // last store instruction (push_prev); a module without instructions passes.
  logic ld_last_pushes, st_last_pushes;
  always_ff @(posedge clk) begin
    if (clr) begin
      ld_last_pushes <= 1'b1;
      st_last_pushes <= 1'b1;
    end else if (f_take) begin
      if (32'(dec_module) == 32'(ML)) ld_last_pushes <= f_head[TSR_MEM_PUSH_NEXT_LSB];
      if (32'(dec_module) == 32'(MS)) st_last_pushes <= f_head[TSR_MEM_PUSH_PREV_LSB];
    end
  end
  assign token_fault = finish_now && (!ld_last_pushes || !st_last_pushes ||
                                      u_busy[ML] && !u_completing[ML] || u_busy[MS] && !u_completing[MS] ||
                                      !cq_empty[ML] || !cq_empty[MS] || !cq_empty[MC] || tq_nonzero != '0);
  assign dec_fault = f_head_valid && dec_illegal && (!SERIAL || idle);  // decoded when dispatchable
  assign wd_fire = watchdog != 64'd0 && cyc >= watchdog;

  // Phase 2 (ends) always happen; starts are held once the run stops in this cycle.
  logic early_stop;  // a fault or FINISH before phase 3
  assign early_stop = !running || aborting || resp_fault || oob_fault || finish_now;
  assign u_hold[ML] = early_stop;
  assign u_hold[MC] = early_stop || start_fault[ML];
  assign u_hold[MS] = early_stop || start_fault[ML] || start_fault[MC];
  // Phase 4.
  logic cq_room;
  assign cq_room = !cq_full[dec_module] || cq_pop[dec_module];
  assign stop_fetch = early_stop || (|start_fault);
  assign f_take = running && !stop_fetch && f_head_valid && !dec_illegal && cq_room && (!SERIAL || idle);
  assign cq_push = f_take ? (3'b001 << dec_module) : 3'b000;
  assign go = running && !stop_fetch && !dec_fault;

  // ---- Memory port (phase 5) -----------------------------------------------------
  logic [3:0] mp_req, mp_write, mp_grant;
  logic [4*AW-1:0] mp_addr;
  logic [4*13-1:0] mp_bytes;
  logic ld_req, cp_req, st_req;
  logic [AW-1:0] ld_addr, cp_addr, st_addr;
  logic [12:0] ld_bytes, cp_bytes, st_bytes;
  // DMA bursts go on while ABORT waits for the running instructions; fetch stops.
  logic go_dma;
  assign go_dma = running && !resp_fault && !oob_fault && !finish_now && !(|start_fault) && !dec_fault;
  assign mp_req = {ld_req && go_dma, st_req && go_dma, cp_req && go_dma, f_req && go};
  assign mp_write = 4'b0100;
  assign mp_addr = {ld_addr, st_addr, cp_addr, f_addr};
  assign mp_bytes = {ld_bytes, st_bytes, cp_bytes, f_bytes};
  assign f_grant = mp_grant[P_FETCH];
  logic [63:0] mp_araddr, mp_awaddr;
  tsr_mem_port #(
      .NREQ(4),
      .ADDR_W(AW),
      .BUS_W(64),
      .BUS_BYTES(BEAT_B),
      .N_OUT(TSR_CFG_DRAM_MAX_OUTSTANDING),
      .LEN_W(13)
  ) u_port (
      .clk(clk),
      .rst(clr),
      .base(dram_base),
      .req(mp_req),
      .req_write(mp_write),
      .req_addr(mp_addr),
      .req_bytes(mp_bytes),
      .grant(mp_grant),
      .arvalid(m_axi_arvalid),
      .araddr(mp_araddr),
      .arlen(m_axi_arlen),
      .arsize(m_axi_arsize),
      .arburst(m_axi_arburst),
      .awvalid(m_axi_awvalid),
      .awaddr(mp_awaddr),
      .awlen(m_axi_awlen),
      .awsize(m_axi_awsize),
      .awburst(m_axi_awburst),
      .read_done(|rcpl_q),
      .write_done(bcpl_q),
      .outstanding(outstanding)
  );
  assign m_axi_araddr = mp_araddr;
  assign m_axi_awaddr = mp_awaddr;
  always_comb begin
    m_axi_arid = 2'd0;
    for (int i = 0; i < 4; i++) if (mp_grant[i]) m_axi_arid = 2'(i);
  end
  assign m_axi_awid = 2'(P_STORE);
  assign m_axi_wstrb = '1;

  // ---- Load module: LOAD inp/wgt ---------------------------------------------------
  logic ld_pw, ld_dw, ld_ended;
  logic [31:0] ld_pw_entry, ld_dw_entry, ld_ebytes;
  logic [8*WD_LD-1:0] ld_dw_data;
  logic ld_is_wgt, ld_start_is_wgt;
  assign ld_start_is_wgt = 32'(mem_of(cq_head[ML][127:0])) == TSR_MEMTYPE_WGT;
  assign ld_ebytes = ld_start_is_wgt ? 32'(TSR_ELEM_BYTES_WGT) : 32'(TSR_ELEM_BYTES_INP);
  assign ld_is_wgt = 32'(mem_of(u_insn[ML])) == TSR_MEMTYPE_WGT;
  if (!SERIAL) begin : g_ld_dma
    tsr_dma_rd #(
        .MAXE(MAXE_LD)
    ) u_ld_dma (
        .clk(clk),
        .clr(clr),
        .run(running),
        .start(u_start[ML]),
        .insn(cq_head[ML][127:0]),
        .elem_bytes(ld_ebytes),
        .active(ld_active),
        .pw_valid(ld_pw),
        .pw_entry(ld_pw_entry),
        .dw_valid(ld_dw),
        .dw_entry(ld_dw_entry),
        .dw_n(ld_dw_n),
        .dw_data(ld_dw_data),
        .req(ld_req),
        .req_addr(ld_addr),
        .req_bytes(ld_bytes),
        .grant(mp_grant[P_LOAD]),
        .beat_valid(m_axi_rvalid && m_axi_rid == 2'(P_LOAD)),
        .beat_data(m_axi_rdata),
        .cpl(rcpl_q[P_LOAD]),
        .ended(ld_ended),
        .busy_part(u_busy_part[ML])
    );
  end
  assign u_end[ML] = ld_ended;

  logic [7:0] ld_pad, cp_pad;
  assign ld_pad = u_insn[ML][TSR_MEM_PAD_LSB+:8];
  assign cp_pad = u_insn[MC][TSR_MEM_PAD_LSB+:8];
  logic [INP_DW-1:0] inp_pad_row, inp_rd;
  logic [WGT_DW-1:0] wgt_pad_row, wgt_rd;
  // Replications, not loops: Verilator does not unroll a loop over the 256
  // weight lanes and evaluated it bit by bit every cycle (half the run time).
  assign inp_pad_row = {(INP_DW / TSR_INP_BITS){TSR_INP_BITS'($signed(ld_pad))}};
  assign wgt_pad_row = {(WGT_DW / TSR_WGT_BITS){TSR_WGT_BITS'($signed(ld_pad))}};
  logic inp_re, wgt_re;
  logic [TSR_INP_IDX_BITS-1:0] inp_ra;
  logic [TSR_WGT_IDX_BITS-1:0] wgt_ra;
  tsr_sdp_ram #(
      .DEPTH(TSR_INP_ENTRIES),
      .WIDTH(INP_DW)
  ) u_inp (
      .clk(clk),
      .we((ld_pw || ld_dw) && !ld_is_wgt),
      .waddr(TSR_INP_IDX_BITS'(ld_dw ? ld_dw_entry : ld_pw_entry)),
      .wdata(ld_dw ? ld_dw_data[INP_DW-1:0] : inp_pad_row),
      .re(inp_re),
      .raddr(inp_ra),
      .rdata(inp_rd)
  );
  tsr_sdp_ram #(
      .DEPTH(TSR_WGT_ENTRIES),
      .WIDTH(WGT_DW)
  ) u_wgt (
      .clk(clk),
      .we((ld_pw || ld_dw) && ld_is_wgt),
      .waddr(TSR_WGT_IDX_BITS'(ld_dw ? ld_dw_entry : ld_pw_entry)),
      .wdata(ld_dw ? ld_dw_data[WGT_DW-1:0] : wgt_pad_row),
      .re(wgt_re),
      .raddr(wgt_ra),
      .rdata(wgt_rd)
  );

  // ---- Compute module: LOAD uop/acc/acc8, GEMM, ALU, FINISH ---------------------------
  logic [2:0] c_op, c_mem, cs_op, cs_mem;
  assign c_op = op_of(u_insn[MC]);
  assign c_mem = mem_of(u_insn[MC]);
  assign cs_op = op_of(cq_head[MC][127:0]);
  assign cs_mem = mem_of(cq_head[MC][127:0]);
  logic cp_start_dma, c_running_dma;
  /* verilator lint_off UNUSEDSIGNAL */  // with compute_overlap the pipes start the datapaths
  logic cp_start_exec;
  /* verilator lint_on UNUSEDSIGNAL */
  assign cp_start_dma = u_start[MC] && 32'(cs_op) == TSR_OP_LOAD;
  assign cp_start_exec = u_start[MC] && (32'(cs_op) == TSR_OP_GEMM || 32'(cs_op) == TSR_OP_ALU);
  assign c_running_dma = 32'(c_op) == TSR_OP_LOAD;
  logic [31:0] cp_ebytes;
  always_comb begin
    case (32'(cs_mem))
      TSR_MEMTYPE_UOP: cp_ebytes = 32'(TSR_ELEM_BYTES_UOP);
      TSR_MEMTYPE_ACC: cp_ebytes = 32'(TSR_ELEM_BYTES_ACC);
      default: cp_ebytes = 32'(TSR_ELEM_BYTES_ACC8);
    endcase
  end
  logic cp_pw, cp_dw, cp_ended;
  logic [31:0] cp_pw_entry, cp_dw_entry, cp_dw_n;
  logic [8*WD_CP-1:0] cp_dw_data;
  logic [CTR_W-1:0] cp_busy_part;
  if (!SERIAL) begin : g_cp_dma
    tsr_dma_rd #(
        .MAXE(MAXE_CP)
    ) u_cp_dma (
        .clk(clk),
        .clr(clr),
        .run(running),
        .start(cp_start_dma),
        .insn(cq_head[MC][127:0]),
        .elem_bytes(cp_ebytes),
        .active(cp_active),
        .pw_valid(cp_pw),
        .pw_entry(cp_pw_entry),
        .dw_valid(cp_dw),
        .dw_entry(cp_dw_entry),
        .dw_n(cp_dw_n),
        .dw_data(cp_dw_data),
        .req(cp_req),
        .req_addr(cp_addr),
        .req_bytes(cp_bytes),
        .grant(mp_grant[P_COMPUTE]),
        .beat_valid(m_axi_rvalid && m_axi_rid == 2'(P_COMPUTE)),
        .beat_data(m_axi_rdata),
        .cpl(rcpl_q[P_COMPUTE]),
        .ended(cp_ended),
        .busy_part(cp_busy_part)
    );
  end else begin : g_rd1
    // One engine for both modules' LOADs (one instruction runs at a time):
    // the module that started it owns its outputs and its requester ID; the
    // slot holds the LOAD (HELD) until it completes.
    localparam int MAXE1 = MAXE_LD > MAXE_CP ? MAXE_LD : MAXE_CP;
    localparam int WD1 = WD_LD > WD_CP ? WD_LD : WD_CP;
    logic own_cp, s_start, s_pw, s_dw, s_req, s_ended;
    logic [31:0] s_pw_entry, s_dw_entry;
    logic [8*WD1-1:0] s_dw_data;
    logic [CTR_W-1:0] s_busy_part;
    logic [1:0] s_id;
    assign s_start = u_start[ML] || cp_start_dma;
    assign s_id = own_cp ? 2'(P_COMPUTE) : 2'(P_LOAD);
    always_ff @(posedge clk) if (s_start) own_cp <= cp_start_dma;  // read from S + 1 on
    tsr_dma_rd #(
        .MAXE(MAXE1),
        .HELD(1'b1)
    ) u_dma (
        .clk(clk),
        .clr(clr),
        .run(running),
        .start(s_start),
        .insn(cq_head[MC][127:0]),  // the one command slot (= cq_head[ML])
        .elem_bytes(cp_start_dma ? cp_ebytes : ld_ebytes),
        .active(cp_active),
        .pw_valid(s_pw),
        .pw_entry(s_pw_entry),
        .dw_valid(s_dw),
        .dw_entry(s_dw_entry),
        .dw_n(cp_dw_n),
        .dw_data(s_dw_data),
        .req(s_req),
        .req_addr(cp_addr),
        .req_bytes(cp_bytes),
        .grant(mp_grant[s_id]),
        .beat_valid(m_axi_rvalid && m_axi_rid == s_id),
        .beat_data(m_axi_rdata),
        .cpl(rcpl_q[s_id]),
        .ended(s_ended),
        .busy_part(s_busy_part)
    );
    assign ld_active = cp_active && !own_cp;
    assign ld_pw = s_pw && !own_cp;
    assign cp_pw = s_pw && own_cp;
    assign ld_dw = s_dw && !own_cp;
    assign cp_dw = s_dw && own_cp;
    assign ld_pw_entry = s_pw_entry;
    assign cp_pw_entry = s_pw_entry;
    assign ld_dw_entry = s_dw_entry;
    assign cp_dw_entry = s_dw_entry;
    assign ld_dw_n = cp_dw_n;
    assign ld_dw_data = s_dw_data[8*WD_LD-1:0];
    assign cp_dw_data = s_dw_data[8*WD_CP-1:0];
    assign ld_req = s_req && !own_cp;
    assign cp_req = s_req && own_cp;
    assign ld_addr = cp_addr;
    assign ld_bytes = cp_bytes;
    assign ld_ended = s_ended && !own_cp;
    assign cp_ended = s_ended && own_cp;
    assign u_busy_part[ML] = s_busy_part;
    assign cp_busy_part = s_busy_part;
  end

  logic ex_done;  // the ALU pipe's datapath ends (without compute_overlap: the datapath's)
  // FINISH: End = S + 1.
  logic fin_q;
  always_ff @(posedge clk) fin_q <= !clr && u_start[MC] && 32'(cs_op) == TSR_OP_FINISH;
  assign u_end[MC] = c_running_dma ? cp_ended : (32'(c_op) == TSR_OP_FINISH ? fin_q : ex_done);
  // The store module reads out (its one read port) through out_re/out_ra/out_rd.
  logic out_re;
  logic [OUT_DW-1:0] out_rd;
  assign u_busy_part[MC] = cp_busy_part;

  // uop, acc and out scratchpads. A compute LOAD writes acc and its narrowed
  // out shadow (acc8: out-width lanes sign-extended into acc).
  logic c_is_acc8, c_is_uop;
  assign c_is_acc8 = 32'(c_mem) == TSR_MEMTYPE_ACC8;
  assign c_is_uop = 32'(c_mem) == TSR_MEMTYPE_UOP;
  logic [ACC_DW-1:0] dma_acc_row;
  logic [OUT_DW-1:0] dma_out_row;
  always_comb begin
    for (int l = 0; l < LANES; l++) begin
      if (cp_pw) begin
        dma_acc_row[l*TSR_ACC_BITS+:TSR_ACC_BITS] = TSR_ACC_BITS'($signed(cp_pad));
        dma_out_row[l*TSR_OUT_BITS+:TSR_OUT_BITS] = TSR_OUT_BITS'($signed(cp_pad));
      end else if (c_is_acc8) begin
        dma_acc_row[l*TSR_ACC_BITS+:TSR_ACC_BITS] =
            TSR_ACC_BITS'($signed(cp_dw_data[l*TSR_OUT_BITS%(8*WD_CP)+:TSR_OUT_BITS]));
        dma_out_row[l*TSR_OUT_BITS+:TSR_OUT_BITS] = cp_dw_data[l*TSR_OUT_BITS%(8*WD_CP)+:TSR_OUT_BITS];
      end else begin
        dma_acc_row[l*TSR_ACC_BITS+:TSR_ACC_BITS] = cp_dw_data[l*TSR_ACC_BITS%(8*WD_CP)+:TSR_ACC_BITS];
        dma_out_row[l*TSR_OUT_BITS+:TSR_OUT_BITS] = cp_dw_data[l*TSR_ACC_BITS%(8*WD_CP)+:TSR_OUT_BITS];
      end
    end
  end
  logic dma_acc_we;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] dma_acc_entry, out_ra;
  /* verilator lint_on UNUSEDSIGNAL */
  assign dma_acc_we = (cp_pw || cp_dw) && c_running_dma && !c_is_uop && cg_busy_a;  // slot A's LOAD
  assign dma_acc_entry = cp_dw ? cp_dw_entry : cp_pw_entry;


  // The GEMM/ALU datapath and the uop, acc and out scratchpads.
  logic [IW-1:0] oob_index;  // the instruction of a range fault
  if (!OVL) begin : g_cp1
    // The GEMM/ALU datapath: one instruction at a time.
    logic uop_re, acc_re, ex_acc_we, ex_out_we;
    logic [TSR_UOP_IDX_BITS-1:0] uop_ra;
    logic [31:0] uop_rd;
    logic [TSR_ACC_IDX_BITS-1:0] acc_ra, ex_acc_wa, ex_out_wa;
    logic [ACC_DW-1:0] acc_rd, ex_acc_wd;
    logic [OUT_DW-1:0] ex_out_wd;
    tsr_compute_exec #(
        .HELD(SERIAL)  // the one command slot holds the instruction until it completes
    ) u_exec (
        .clk(clk),
        .rst(clr),
        .start(cp_start_exec),
        .insn(cq_head[MC][127:0]),
        .done(ex_done),
        .busy(ex_busy),
        .macs_inc(ex_macs),
        .oob(exec_oob),
        .uop_re(uop_re),
        .uop_ra(uop_ra),
        .uop_rd(uop_rd),
        .inp_re(inp_re),
        .inp_ra(inp_ra),
        .inp_rd(inp_rd),
        .wgt_re(wgt_re),
        .wgt_ra(wgt_ra),
        .wgt_rd(wgt_rd),
        .acc_re(acc_re),
        .acc_ra(acc_ra),
        .acc_rd(acc_rd),
        .acc_we(ex_acc_we),
        .acc_wa(ex_acc_wa),
        .acc_wd(ex_acc_wd),
        .out_we(ex_out_we),
        .out_wa(ex_out_wa),
        .out_wd(ex_out_wd)
    );

    tsr_uop_ram #(
        .ENTRIES(TSR_UOP_ENTRIES),
        .NB(NBU)
    ) u_uop (
        .clk(clk),
        .we(cp_dw && c_running_dma && c_is_uop && u_busy[MC]),
        .wentry(cp_dw_entry),
        .wn(cp_dw_n),
        .wdata(cp_dw_data[32*NBU-1:0]),
        .re(uop_re),
        .raddr(uop_ra),
        .rdata(uop_rd)
    );
    tsr_sdp_ram #(
        .DEPTH(TSR_ACC_ENTRIES),
        .WIDTH(ACC_DW)
    ) u_acc (
        .clk(clk),
        .we(ex_acc_we || dma_acc_we),
        .waddr(ex_acc_we ? ex_acc_wa : TSR_ACC_IDX_BITS'(dma_acc_entry)),
        .wdata(ex_acc_we ? ex_acc_wd : dma_acc_row),
        .re(acc_re),
        .raddr(acc_ra),
        .rdata(acc_rd)
    );
    tsr_sdp_ram #(
        .DEPTH(TSR_ACC_ENTRIES),
        .WIDTH(OUT_DW)
    ) u_out (
        .clk(clk),
        .we(ex_out_we || dma_acc_we),
        .waddr(ex_out_we ? ex_out_wa : TSR_ACC_IDX_BITS'(dma_acc_entry)),
        .wdata(ex_out_we ? ex_out_wd : dma_out_row),
        .re(out_re),
        .raddr(TSR_ACC_IDX_BITS'(out_ra)),
        .rdata(out_rd)
    );

    assign cg_end_g = 1'b0;
    assign oob_index = u_index[MC];
  end else begin : g_cp2
    // Two datapaths: the ALU pipe (slot A) and the GEMM pipe (slot G).
    logic ga_done, gg_done, ga_oob, gg_oob, ga_busy, gg_busy, ga_uop_re, gg_uop_re;
    logic ga_acc_re, gg_acc_re, ga_acc_we, gg_acc_we;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [63:0] ga_macs, gg_macs;
    logic ga_out_we, gg_out_we, ga_inp_re, ga_wgt_re;
    logic [TSR_ACC_IDX_BITS-1:0] ga_out_wa, gg_out_wa;
    logic [TSR_INP_IDX_BITS-1:0] ga_inp_ra;
    logic [TSR_WGT_IDX_BITS-1:0] ga_wgt_ra;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [TSR_UOP_IDX_BITS-1:0] ga_uop_ra, gg_uop_ra;
    logic [31:0] ga_uop_rd, gg_uop_rd;
    logic [TSR_ACC_IDX_BITS-1:0] ga_acc_ra, gg_acc_ra, ga_acc_wa, gg_acc_wa;
    logic [ACC_DW-1:0] ga_acc_rd, gg_acc_rd, ga_acc_wd, gg_acc_wd;
    logic [OUT_DW-1:0] ga_out_wd, gg_out_wd;
    tsr_compute_exec #(
        .HAS_GEMM(1'b0)
    ) u_exec_a (
        .clk(clk),
        .rst(clr),
        .start(cg_start_a && 32'(cs_op) == TSR_OP_ALU),
        .insn(cq_head[MC][127:0]),
        .done(ga_done),
        .busy(ga_busy),
        .macs_inc(ga_macs),
        .oob(ga_oob),
        .uop_re(ga_uop_re),
        .uop_ra(ga_uop_ra),
        .uop_rd(ga_uop_rd),
        .inp_re(ga_inp_re),
        .inp_ra(ga_inp_ra),
        .inp_rd(inp_rd),
        .wgt_re(ga_wgt_re),
        .wgt_ra(ga_wgt_ra),
        .wgt_rd(wgt_rd),
        .acc_re(ga_acc_re),
        .acc_ra(ga_acc_ra),
        .acc_rd(ga_acc_rd),
        .acc_we(ga_acc_we),
        .acc_wa(ga_acc_wa),
        .acc_wd(ga_acc_wd),
        .out_we(ga_out_we),
        .out_wa(ga_out_wa),
        .out_wd(ga_out_wd)
    );
    tsr_compute_exec #(
        .HAS_ALU(1'b0)
    ) u_exec_g (
        .clk(clk),
        .rst(clr),
        .start(cg_start_g),
        .insn(cq_head[MC][127:0]),
        .done(gg_done),
        .busy(gg_busy),
        .macs_inc(gg_macs),
        .oob(gg_oob),
        .uop_re(gg_uop_re),
        .uop_ra(gg_uop_ra),
        .uop_rd(gg_uop_rd),
        .inp_re(inp_re),
        .inp_ra(inp_ra),
        .inp_rd(inp_rd),
        .wgt_re(wgt_re),
        .wgt_ra(wgt_ra),
        .wgt_rd(wgt_rd),
        .acc_re(gg_acc_re),
        .acc_ra(gg_acc_ra),
        .acc_rd(gg_acc_rd),
        .acc_we(gg_acc_we),
        .acc_wa(gg_acc_wa),
        .acc_wd(gg_acc_wd),
        .out_we(gg_out_we),
        .out_wa(gg_out_wa),
        .out_wd(gg_out_wd)
    );
    assign ex_done = ga_done;
    assign ex_busy = ga_busy || gg_busy;
    assign ex_macs = gg_macs;
    assign cg_end_g = gg_done;
    // A range fault of either pipe (the older's when both).
    logic a_f, g_f;
    assign a_f = ga_oob && cg_busy_a;
    assign g_f = gg_oob && cg_busy_g;
    assign exec_oob = a_f || g_f;
    assign oob_index = (g_f && !(a_f && cg_a_older)) ? cg_index_g : u_index[MC];

    // The uop RAM twice (one read port each), both written by LOAD uop.
    logic uop_we;
    assign uop_we = cp_dw && c_running_dma && c_is_uop && cg_busy_a;
    tsr_uop_ram #(
        .ENTRIES(TSR_UOP_ENTRIES),
        .NB(NBU)
    ) u_uop_a (
        .clk(clk),
        .we(uop_we),
        .wentry(cp_dw_entry),
        .wn(cp_dw_n),
        .wdata(cp_dw_data[32*NBU-1:0]),
        .re(ga_uop_re),
        .raddr(ga_uop_ra),
        .rdata(ga_uop_rd)
    );
    tsr_uop_ram #(
        .ENTRIES(TSR_UOP_ENTRIES),
        .NB(NBU)
    ) u_uop_g (
        .clk(clk),
        .we(uop_we),
        .wentry(cp_dw_entry),
        .wn(cp_dw_n),
        .wdata(cp_dw_data[32*NBU-1:0]),
        .re(gg_uop_re),
        .raddr(gg_uop_ra),
        .rdata(gg_uop_rd)
    );

    // acc and out in two banks, the halves [0, H) and [H, 2H) (H = entries / 2):
    // an ovl instruction and the one beside it on the other pipe touch
    // different banks (ref checks it), so each bank's read and write port
    // serves one pipe at a time; LOAD acc/acc8 writes as the ALU pipe (d_w).
    localparam int H = TSR_ACC_ENTRIES / 2;
    localparam int BAW = H > 1 ? $clog2(H) : 1;
    localparam int IAW = TSR_ACC_IDX_BITS;
    function automatic logic bank_of(input logic [IAW-1:0] i);
      bank_of = 32'(i) >= H;
    endfunction
    function automatic logic [BAW-1:0] row_of(input logic [IAW-1:0] i);
      row_of = BAW'(32'(i) >= H ? 32'(i) - H : 32'(i));
    endfunction
    logic [IAW-1:0] dma_wa;
    assign dma_wa = IAW'(dma_acc_entry);
    logic ga_sel, gg_sel, st_sel;  // the bank each reader read last
    logic [ACC_DW-1:0] acc_bank_rd[2];
    logic [OUT_DW-1:0] out_bank_rd[2];
    always_ff @(posedge clk) begin
      if (ga_acc_re) ga_sel <= bank_of(ga_acc_ra);
      if (gg_acc_re) gg_sel <= bank_of(gg_acc_ra);
      if (out_re) st_sel <= bank_of(IAW'(out_ra));
    end
    assign ga_acc_rd = acc_bank_rd[ga_sel];
    assign gg_acc_rd = acc_bank_rd[gg_sel];
    assign out_rd = out_bank_rd[st_sel];
    for (genvar k = 0; k < 2; k++) begin : g_bank
      logic a_w, g_w, d_w, a_r, g_r;
      assign a_w = ga_acc_we && bank_of(ga_acc_wa) == 1'(k);
      assign g_w = gg_acc_we && bank_of(gg_acc_wa) == 1'(k);
      assign d_w = dma_acc_we && bank_of(dma_wa) == 1'(k);
      assign a_r = ga_acc_re && bank_of(ga_acc_ra) == 1'(k);
      assign g_r = gg_acc_re && bank_of(gg_acc_ra) == 1'(k);
      logic [BAW-1:0] wa;
      assign wa = g_w ? row_of(gg_acc_wa) : a_w ? row_of(ga_acc_wa) : row_of(dma_wa);
      tsr_sdp_ram #(
          .DEPTH(H),
          .WIDTH(ACC_DW)
      ) u_acc (
          .clk(clk),
          .we(a_w || g_w || d_w),
          .waddr(wa),
          .wdata(g_w ? gg_acc_wd : a_w ? ga_acc_wd : dma_acc_row),
          .re(a_r || g_r),
          .raddr(g_r ? row_of(gg_acc_ra) : row_of(ga_acc_ra)),
          .rdata(acc_bank_rd[k])
      );
      tsr_sdp_ram #(
          .DEPTH(H),
          .WIDTH(OUT_DW)
      ) u_out (
          .clk(clk),
          .we(a_w || g_w || d_w),
          .waddr(wa),
          .wdata(g_w ? gg_out_wd : a_w ? ga_out_wd : dma_out_row),
          .re(out_re && bank_of(IAW'(out_ra)) == 1'(k)),
          .raddr(row_of(IAW'(out_ra))),
          .rdata(out_bank_rd[k])
      );
    end
  end
  // ---- Store module ----------------------------------------------------------------
  logic st_ended;
  tsr_dma_wr #(
      .HELD(SERIAL)  // the one slot holds the STORE until it completes
  ) u_st_dma (
      .clk(clk),
      .clr(clr),
      .run(running),
      .start(u_start[MS]),
      .insn(cq_head[MS][127:0]),
      .active(st_active),
      .re(out_re),
      .raddr(out_ra),
      .rdata(out_rd),
      .req(st_req),
      .req_addr(st_addr),
      .req_bytes(st_bytes),
      .grant(mp_grant[P_STORE]),
      .cpl(bcpl_q),
      .wvalid(m_axi_wvalid),
      .wdata(m_axi_wdata),
      .wlast(m_axi_wlast),
      .wready(m_axi_wready),
      .ended(st_ended),
      .busy_part(u_busy_part[MS])
  );
  assign u_end[MS] = st_ended;

  // ---- Counters (docs/device-protocol.md; isa/regs.def order) ------------------------
  /* verilator lint_off UNUSEDSIGNAL */  // bits above CTR_W
  logic [63:0] inc[NCTR];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0] started;
  assign started = {u_start[2], u_start[1], u_start[0]};
  logic [63:0] beats_granted;
  assign beats_granted = {56'd0, m_axi_arvalid ? m_axi_arlen : m_axi_awlen} + 64'd1;
  // A module only starts what tsr_decode dispatches to it: the load module
  // LOADs of inp/wgt, the store module STOREs, the compute module the other
  // LOADs, GEMM, ALU and FINISH. So the products below are built once each
  // where they can occur (not per module; synthesis cannot see the dispatch),
  // and every counter is written at a constant index (an index taken from an
  // instruction field would build a multiplexer over all the counters).
  logic [127:0] wl, wc, ws;
  assign wl = cq_head[ML][127:0];
  assign wc = cq_head[MC][127:0];
  assign ws = cq_head[MS][127:0];
  always_comb begin
    logic [63:0] it, rows, cols, area_l, area_c;
    for (int i = 0; i < NCTR; i++) inc[i] = '0;
    inc[TSR_CTR_CYCLES] = 64'(running && !finish_now);
    inc[TSR_CTR_INSN_FETCH_BYTES] = f_take ? 64'd16 : 64'd0;
    inc[TSR_CTR_PORT_BURSTS] = 64'(|mp_grant);
    inc[TSR_CTR_DRAM_BUSY_CYCLES] = |mp_grant ? beats_granted : 64'd0;
    for (int k = 0; k < TSR_CTR_INSNS_BY_OPCODE_N; k++)
      inc[TSR_CTR_INSNS_BY_OPCODE+k] = 64'(started[ML] && 32'(op_of(wl)) == k) +
                                       64'(started[MC] && 32'(op_of(wc)) == k) +
                                       64'(started[MS] && 32'(op_of(ws)) == k);
    // Store module: STORE.
    rows = 64'(ws[TSR_MEM_Y_PAD0_LSB+:3]) + 64'(ws[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W]) +
           64'(ws[TSR_MEM_Y_PAD1_LSB+:3]);
    cols = 64'(ws[TSR_MEM_X_PAD0_LSB+:3]) + 64'(ws[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W]) +
           64'(ws[TSR_MEM_X_PAD1_LSB+:3]);
    if (started[MS]) inc[TSR_CTR_DRAM_WRITE_BYTES] = rows * cols * 64'(TSR_ELEM_BYTES_OUT);
    // Load module: LOAD inp/wgt.
    area_l = 64'(wl[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W]) * 64'(wl[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W]);
    if (started[ML] && 32'(mem_of(wl)) == TSR_MEMTYPE_WGT)
      inc[TSR_CTR_LOAD_BYTES_BY_MEM+TSR_MEMTYPE_WGT] = area_l * 64'(TSR_ELEM_BYTES_WGT);
    if (started[ML] && 32'(mem_of(wl)) == TSR_MEMTYPE_INP)
      inc[TSR_CTR_LOAD_BYTES_BY_MEM+TSR_MEMTYPE_INP] = area_l * 64'(TSR_ELEM_BYTES_INP);
    // Compute module: LOAD uop/acc/acc8, GEMM, ALU (FINISH counts only as an instruction).
    area_c = 64'(wc[TSR_MEM_Y_SIZE_LSB+:TSR_MEM_Y_SIZE_W]) * 64'(wc[TSR_MEM_X_SIZE_LSB+:TSR_MEM_X_SIZE_W]);
    if (started[MC] && 32'(op_of(wc)) == TSR_OP_LOAD) begin
      if (32'(mem_of(wc)) == TSR_MEMTYPE_UOP) begin
        inc[TSR_CTR_LOAD_BYTES_BY_MEM+TSR_MEMTYPE_UOP] = area_c * 64'(TSR_ELEM_BYTES_UOP);
        inc[TSR_CTR_UOP_LOADS] = area_c;
      end
      if (32'(mem_of(wc)) == TSR_MEMTYPE_ACC)
        inc[TSR_CTR_LOAD_BYTES_BY_MEM+TSR_MEMTYPE_ACC] = area_c * 64'(TSR_ELEM_BYTES_ACC);
      if (32'(mem_of(wc)) == TSR_MEMTYPE_ACC8)
        inc[TSR_CTR_LOAD_BYTES_BY_MEM+TSR_MEMTYPE_ACC8] = area_c * 64'(TSR_ELEM_BYTES_ACC8);
    end
    it = 64'(wc[TSR_GEMM_ITER_OUT_LSB+:TSR_GEMM_ITER_OUT_W]) * 64'(wc[TSR_GEMM_ITER_IN_LSB+:TSR_GEMM_ITER_IN_W]) *
         (64'(wc[TSR_GEMM_UOP_END_LSB+:TSR_GEMM_UOP_END_W]) - 64'(wc[TSR_GEMM_UOP_BGN_LSB+:TSR_GEMM_UOP_BGN_W]));
    if (started[MC] && 32'(op_of(wc)) == TSR_OP_GEMM) begin
      inc[TSR_CTR_GEMM_ITERATIONS] = it;
      if (!wc[TSR_GEMM_RESET_LSB]) inc[TSR_CTR_MACS] = it * 64'(TSR_MACS_PER_CYCLE);
    end
    if (started[MC] && 32'(op_of(wc)) == TSR_OP_ALU) inc[TSR_CTR_ALU_ITERATIONS] = it;
    // Cycle categories, unit-major (fetch, load, compute, store).
    if (running && !finish_now) begin
      inc[TSR_CTR_STALLS+TSR_UNIT_FETCH*TSR_NUM_STALLS+TSR_STALL_BUSY] = 64'(f_st_busy);
      inc[TSR_CTR_STALLS+TSR_UNIT_FETCH*TSR_NUM_STALLS+TSR_STALL_WAIT_QUEUE] = 64'(f_st_wq);
      inc[TSR_CTR_STALLS+TSR_UNIT_FETCH*TSR_NUM_STALLS+TSR_STALL_WAIT_MEMORY] = 64'(f_st_wm);
    end
    for (int s = 0; s < TSR_NUM_STALLS; s++) begin
      inc[TSR_CTR_STALLS+TSR_UNIT_LOAD*TSR_NUM_STALLS+s] = running ? 64'(u_inc[ML][s]) : 64'd0;
      inc[TSR_CTR_STALLS+TSR_UNIT_COMPUTE*TSR_NUM_STALLS+s] = running ? 64'(u_inc[MC][s]) : 64'd0;
      inc[TSR_CTR_STALLS+TSR_UNIT_STORE*TSR_NUM_STALLS+s] = running ? 64'(u_inc[MS][s]) : 64'd0;
    end
  end
  // Each counter is CTR_W bits (isa/config.def counters.bits): it wraps
  // modulo 2^CTR_W and reads zero-extended to 64 bits. Only the registers
  // of TSR_COUNTER_BUILT exist (isa/regs.def built_with: the volume counters
  // need counters.volumes, the per-unit cycle categories counters.categories);
  // the others read 0 and their increments (the products above, the units'
  // category arithmetic) have no reader, so synthesis removes them.
  for (genvar i = 0; i < NCTR; i++) begin : g_ctr
    if (TSR_COUNTER_BUILT[i]) begin : g_on
      logic [CTR_W-1:0] ctr_q;
      always_ff @(posedge clk) begin
        if (clr) ctr_q <= '0;
        else if (running) ctr_q <= ctr_q + CTR_W'(inc[i]);
      end
      assign counters[i*64+:64] = 64'(ctr_q);
    end else begin : g_off
      assign counters[i*64+:64] = '0;
    end
  end

  // ---- Run state ----------------------------------------------------------------
  logic no_unit_busy, changed;
  assign no_unit_busy = u_busy == 3'b000 && u_start == 3'b000;
  assign changed = (|rcpl_q) || bcpl_q || (|u_completing) || (|u_start) || f_take || (|mp_grant) ||
                   (u_busy & u_end) != 3'b000 || (cg_busy_g && cg_end_g);
  assign deadlock = running && !aborting && !changed && no_unit_busy && outstanding == 8'd0;
  assign any_fault = resp_fault || oob_fault || token_fault || (|start_fault) || dec_fault;

  always_ff @(posedge clk) begin
    if (rst) begin
      running <= 1'b0;
      aborting <= 1'b0;
      start_pending <= 1'b0;
      st_done <= 1'b0;
      st_busy <= 1'b0;
      st_error <= 1'b0;
      err_code <= 32'(TSR_ERR_NONE);
      err_insn <= NO_INSN;
      cyc <= '0;
      run_addr <= '0;
      run_count <= '0;
    end else begin
      if (ctrl_clear && !st_busy) begin
        st_done <= 1'b0;
        st_error <= 1'b0;
        err_code <= 32'(TSR_ERR_NONE);
        err_insn <= NO_INSN;
      end
      if (ctrl_start && !st_busy && bad_launch) begin
        st_done <= 1'b0;
        st_error <= 1'b1;
        err_code <= 32'(TSR_ERR_BAD_LAUNCH);
        err_insn <= NO_INSN;
      end else if (ctrl_start && !st_busy) begin
        st_done <= 1'b0;
        st_error <= 1'b0;
        st_busy <= 1'b1;
        err_code <= 32'(TSR_ERR_NONE);
        err_insn <= NO_INSN;
        start_pending <= !drained;
        run_addr <= AW'(insn_addr);  // bad_launch: insn_addr + 16 insn_count <= dram.size_bytes
        run_count <= IW'(insn_count);
      end
      if (launch) begin
        start_pending <= 1'b0;
        running <= 1'b1;
        aborting <= 1'b0;
        cyc <= '0;
      end else if (running) begin
        cyc <= cyc + 64'd1;
        if (ctrl_abort) aborting <= 1'b1;
        if (any_fault || finish_now || deadlock || (wd_fire && !finish_now) ||
            (aborting && no_unit_busy && outstanding == 8'd0)) begin
          running <= 1'b0;
          st_busy <= 1'b0;
          if (resp_fault) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_MEMORY_FAULT);
            err_insn <= resp_insn;
          end else if (oob_fault) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_MEMORY_FAULT);
            err_insn <= 32'(oob_index);
          end else if (token_fault) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_TOKEN_ERROR);
            err_insn <= 32'(run_count) - 1;
          end else if (finish_now) begin
            st_done <= 1'b1;
          end else if (start_fault[ML]) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_MEMORY_FAULT);
            err_insn <= 32'(cq_head[ML][QW-2:128]);
          end else if (start_fault[MC]) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_MEMORY_FAULT);
            err_insn <= 32'(cq_head[MC][QW-2:128]);
          end else if (start_fault[MS]) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_MEMORY_FAULT);
            err_insn <= 32'(cq_head[MS][QW-2:128]);
          end else if (dec_fault) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_ILLEGAL_INSTRUCTION);
            err_insn <= 32'(f_index);
          end else if (deadlock) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_DEADLOCK);
            err_insn <= NO_INSN;
          end else if (wd_fire) begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_WATCHDOG_TIMEOUT);
            err_insn <= NO_INSN;
          end else begin
            st_error <= 1'b1;
            err_code <= 32'(TSR_ERR_ABORTED_BY_HOST);
            err_insn <= NO_INSN;
          end
        end
      end
    end
  end
endmodule
