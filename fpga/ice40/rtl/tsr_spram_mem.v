// The iCE40 UP5K board's DRAM: 128 KiB in the four SPRAMs, 32 bits wide
// (two SPRAMs side by side) and 32 K words deep (two banks), served to the
// accelerator as an AXI4 slave of BEAT_BYTES (4, or 2: a beat is one SPRAM's
// half of a word) and to the UART bridge through a word port.
//
// Contract: ARREADY and AWREADY are always high (the accelerator relies on
// it, rtl-interface: it never presents both in a cycle and keeps at most
// N_OUT bursts outstanding); accepted requests wait in a queue of N_OUT and
// are served one at a time in acceptance order; INCR bursts of BEAT_BYTES beats from
// the beat holding the start address (the accelerator's narrow first beat), one
// beat a cycle after a cycle of latency; WSTRB selects bytes. A burst outside
// [0, MEM_BYTES) of the bus (DRAM_BASE is 0 on this board) answers SLVERR on
// every beat and writes nothing. The word port is served only while no burst
// is in progress (the host does not touch memory during a run); its word
// address is inside the memory (the bridge checks the range). It does not
// follow docs/microarch.md's latency L (the board is not cycle-exact with sim).
module tsr_spram_mem #(
    parameter int MEM_BYTES = 131072,
    parameter int N_OUT = 4,
    parameter int BEAT_BYTES = 4
) (
    input  logic        clk,
    input  logic        rst,
    // AXI4 slave (the accelerator's master; data width 32)
    input  logic [ 1:0] s_axi_arid,
    input  logic [63:0] s_axi_araddr,
    input  logic [ 7:0] s_axi_arlen,
    input  logic        s_axi_arvalid,
    output logic        s_axi_arready,
    output logic [ 1:0] s_axi_rid,
    output logic [8*BEAT_BYTES-1:0] s_axi_rdata,
    output logic [ 1:0] s_axi_rresp,
    output logic        s_axi_rlast,
    output logic        s_axi_rvalid,
    input  logic        s_axi_rready,
    input  logic [ 1:0] s_axi_awid,
    input  logic [63:0] s_axi_awaddr,
    input  logic [ 7:0] s_axi_awlen,  // (WLAST ends a write burst)
    input  logic        s_axi_awvalid,
    output logic        s_axi_awready,
    input  logic [8*BEAT_BYTES-1:0] s_axi_wdata,
    input  logic [BEAT_BYTES-1:0] s_axi_wstrb,
    input  logic        s_axi_wlast,
    input  logic        s_axi_wvalid,
    output logic        s_axi_wready,
    output logic [ 1:0] s_axi_bid,
    output logic [ 1:0] s_axi_bresp,
    output logic        s_axi_bvalid,
    input  logic        s_axi_bready,
    // the host's word port (tsr_uart_bridge)
    input  logic        mem_valid,
    input  logic        mem_we,
    input  logic [$clog2(MEM_BYTES)-3:0] mem_word,  // word address, inside the memory
    input  logic [31:0] mem_wdata,
    output logic        mem_ready,
    output logic [31:0] mem_rdata
);
  localparam int WORDS = MEM_BYTES / 4;
  localparam int AW = $clog2(WORDS);  // 15 for 128 KiB
  localparam int BANKS = (WORDS + 16383) / 16384;
  // A start address outside the memory: a bit above its address bits, or
  // (memory not a power of two) at or above MEM_BYTES.
  localparam int MB = $clog2(MEM_BYTES);
  function automatic logic outside(input logic [63:0] a);
    outside = a[63:MB] != '0 || {1'b0, a[MB-1:0]} >= (MB + 1)'(MEM_BYTES);
  endfunction
  localparam int BS = $clog2(BEAT_BYTES);  // 2, or 1: two beats a word
  localparam int IW = MB - BS;  // beat index bits
  wire ar_bad = outside(s_axi_araddr);
  wire aw_bad = outside(s_axi_awaddr);

  typedef enum logic [2:0] {
    S_IDLE, S_READ, S_WRITE, S_RESP, S_HOST
  } state_t;
  state_t state;

  logic [IW-1:0] beat;  // the current beat
  logic [8:0] left;  // read beats not yet requested from the SPRAM
  logic bad;  // the burst is outside the memory: SLVERR, nothing written
  logic [1:0] id;

  // --- accepted requests: {write, id, bad, len, first beat} ------------------
  localparam int QW = 1 + 2 + 1 + 8 + IW;
  logic q_push, q_pop, q_empty;
  logic [QW-1:0] q_in, q_head;
  /* verilator lint_off UNUSEDSIGNAL */
  logic q_full;  // never: the accelerator keeps at most N_OUT bursts outstanding
  logic [$clog2(N_OUT + 1)-1:0] q_count;
  /* verilator lint_on UNUSEDSIGNAL */
  assign q_push = s_axi_arvalid || s_axi_awvalid;
  assign q_in = s_axi_arvalid ? {1'b0, s_axi_arid, ar_bad, s_axi_arlen, s_axi_araddr[MB-1:BS]}
                              : {1'b1, s_axi_awid, aw_bad, s_axi_awlen, s_axi_awaddr[MB-1:BS]};
  assign q_pop = state == S_IDLE && !q_empty;
  tsr_fifo #(.DEPTH(N_OUT), .WIDTH(QW)) queue (
      .clk(clk), .rst(rst), .push(q_push), .push_data(q_in), .pop(q_pop), .head(q_head),
      .count(q_count), .full(q_full), .empty(q_empty));

  // --- the SPRAMs ------------------------------------------------------------
  logic cs_any, we;
  logic [AW-1:0] ram_addr;
  logic [31:0] wdata;
  logic [3:0] wstrb;
  logic [31:0] rdata_bank[BANKS];
  logic [$clog2(BANKS > 1 ? BANKS : 2)-1:0] bank, rd_bank;
  assign bank = ram_addr[AW-1:14];
  for (genvar b = 0; b < BANKS; b++) begin : g_bank
    for (genvar h = 0; h < 2; h++) begin : g_half
      tsr_spram ram (
          .clk(clk),
          .cs(cs_any && bank == b),
          .we(we),
          .addr(ram_addr[13:0]),
          .wdata(wdata[h*16+:16]),
          .nibble_we({{2{wstrb[h*2+1]}}, {2{wstrb[h*2]}}}),
          .rdata(rdata_bank[b][h*16+:16])
      );
    end
  end
  always_ff @(posedge clk) if (cs_any && !we) rd_bank <= bank;
  wire [31:0] rdata = rdata_bank[rd_bank];

  // A beat's data and byte enables on the 32-bit word, and its read data.
  logic [31:0] beat_wdata;
  logic [3:0] beat_wstrb;
  if (BEAT_BYTES == 4) begin : g_word_beats
    assign beat_wdata = s_axi_wdata;
    assign beat_wstrb = s_axi_wstrb;
    assign s_axi_rdata = rdata;
  end else begin : g_half_beats
    logic rd_half;  // the half read last
    always_ff @(posedge clk) if (cs_any && !we) rd_half <= beat[0];
    assign beat_wdata = {2{s_axi_wdata}};
    assign beat_wstrb = beat[0] ? {s_axi_wstrb, 2'b00} : {2'b00, s_axi_wstrb};
    assign s_axi_rdata = rd_half ? rdata[31:16] : rdata[15:0];
  end

  // --- AXI4 ------------------------------------------------------------------
  wire advance = !s_axi_rvalid || s_axi_rready;  // the read beat register may take a new beat

  assign s_axi_arready = 1'b1;
  assign s_axi_awready = 1'b1;
  assign s_axi_wready = state == S_WRITE;
  assign s_axi_rid = id;
  assign s_axi_bid = id;
  assign s_axi_bresp = bad ? 2'b10 : 2'b00;
  assign s_axi_bvalid = state == S_RESP;
  assign mem_ready = state == S_HOST;
  assign mem_rdata = rdata;

  always_comb begin
    cs_any = 1'b0;
    we = 1'b0;
    ram_addr = beat[IW-1:IW-AW];
    wdata = beat_wdata;
    wstrb = beat_wstrb;
    unique case (state)
      S_IDLE: begin
        ram_addr = mem_word;
        wdata = mem_wdata;
        wstrb = 4'hF;
        cs_any = mem_valid && q_empty && !q_push;
        we = mem_we;
      end
      S_READ: cs_any = !bad && left != 0 && advance;
      S_WRITE: begin
        cs_any = !bad && s_axi_wvalid;
        we = 1'b1;
      end
      default: ;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= S_IDLE;
      beat <= '0;
      left <= '0;
      bad <= 1'b0;
      id <= '0;
      s_axi_rvalid <= 1'b0;
      s_axi_rlast <= 1'b0;
      s_axi_rresp <= 2'b00;
    end else begin
      unique case (state)
        S_IDLE:
        if (!q_empty) begin
          state <= q_head[QW-1] ? S_WRITE : S_READ;
          {id, bad} <= q_head[QW-2-:3];
          left <= {1'b0, q_head[IW+:8]} + 9'd1;
          beat <= q_head[IW-1:0];
        end else if (mem_valid && !q_push) begin
          state <= S_HOST;  // the SPRAM was read or written this cycle
        end
        S_READ:
        if (advance) begin
          if (left != 0) begin
            s_axi_rvalid <= 1'b1;
            s_axi_rlast <= left == 9'd1;
            s_axi_rresp <= bad ? 2'b10 : 2'b00;
            beat <= beat + 1'b1;
            left <= left - 1'b1;
          end else begin
            s_axi_rvalid <= 1'b0;
            s_axi_rlast <= 1'b0;
            state <= S_IDLE;
          end
        end
        S_WRITE:
        if (s_axi_wvalid) begin
          beat <= beat + 1'b1;
          if (s_axi_wlast) state <= S_RESP;
        end
        S_RESP: if (s_axi_bready) state <= S_IDLE;
        default: state <= S_IDLE;  // S_HOST: mem_ready was high for a cycle
      endcase
    end
  end
endmodule
