// The host's link into an iCE40 board: a framed protocol over a UART
// (docs/fpga.md, "The UART bridge protocol") that reads and writes the board
// memory through a word port and the accelerator's register window as an
// AXI4-Lite master.
//
//   request: A5 cmd tag addr[4, LE] len[2, LE] payload[len or 4] crc
//   reply:   5A status tag payload crc
//
// cmd 1 memory read, 2 memory write (len bytes, word-aligned, 4..MAX_BYTES),
// 3 register read, 4 register write (len = 4). The CRC is CRC-8 (poly 0x07,
// init 0) over every byte after the sync byte. Invariants: nothing is
// executed before the whole frame and its CRC are in (a memory write's payload
// waits in a buffer); a write whose tag equals that of the last executed frame,
// itself a completed write, is a retransmission and is answered OK without
// being executed again (the host gives consecutive frames different tags); a frame
// that stops for IDLE_CLKS cycles is dropped, except after a header error,
// where the rest of the frame is discarded and an error reply follows. The
// address is kept at the bits the memory or the window needs (a flag says a
// higher bit was set: outside both), the length at the bits MAX_BYTES needs.
module tsr_uart_bridge #(
    parameter int CLKS_PER_BIT = 104,
    parameter int MEM_BYTES = 131072,
    parameter int MAX_BYTES = 256,
    parameter int IDLE_CLKS = 32 * 10 * CLKS_PER_BIT
) (
    input  logic        clk,
    input  logic        rst,
    input  logic        rx,
    output logic        tx,
    // AXI4-Lite master: the accelerator's register window
    output logic [11:0] m_axil_awaddr,
    output logic        m_axil_awvalid,
    input  logic        m_axil_awready,
    output logic [31:0] m_axil_wdata,
    output logic [ 3:0] m_axil_wstrb,
    output logic        m_axil_wvalid,
    input  logic        m_axil_wready,
    input  logic [ 1:0] m_axil_bresp,
    input  logic        m_axil_bvalid,
    output logic        m_axil_bready,
    output logic [11:0] m_axil_araddr,
    output logic        m_axil_arvalid,
    input  logic        m_axil_arready,
    input  logic [31:0] m_axil_rdata,
    input  logic [ 1:0] m_axil_rresp,
    input  logic        m_axil_rvalid,
    output logic        m_axil_rready,
    // board memory word port: a request is held until mem_ready (one cycle)
    output logic        mem_valid,
    output logic        mem_we,
    output logic [$clog2(MEM_BYTES)-3:0] mem_word,  // word address, inside the memory
    output logic [31:0] mem_wdata,
    input  logic        mem_ready,
    input  logic [31:0] mem_rdata
);
  localparam logic [7:0] kSyncReq = 8'hA5, kSyncReply = 8'h5A;
  localparam logic [2:0] kOk = 3'd0, kBadCrc = 3'd1, kBadCommand = 3'd2, kBadLength = 3'd3;
  localparam logic [2:0] kBusError = 3'd4, kFraming = 3'd5;
  // op = cmd - 1: memory read, memory write, register read, register write
  localparam logic [1:0] kMemRead = 2'd0, kMemWrite = 2'd1, kRegRead = 2'd2, kRegWrite = 2'd3;
  localparam int WORDS = MAX_BYTES / 4;
  localparam int WA = $clog2(WORDS);
  localparam int TW = $clog2(IDLE_CLKS + 1);
  localparam int MB = $clog2(MEM_BYTES);    // memory address bits
  localparam int AB = MB > 12 ? MB : 12;     // address bits kept (the window has 12)
  localparam int LB = $clog2(MAX_BYTES + 1);  // length bits kept

  function automatic logic [7:0] crc8(input logic [7:0] c, input logic [7:0] d);
    logic [7:0] x;
    x = c ^ d;
    for (int i = 0; i < 8; i++) x = x[7] ? ((x << 1) ^ 8'h07) : (x << 1);
    crc8 = x;
  endfunction

  // --- UART ---------------------------------------------------------------
  logic rx_valid, rx_ferr, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;
  tsr_uart_rx #(.CLKS_PER_BIT(CLKS_PER_BIT)) urx (
      .clk(clk), .rst(rst), .rx(rx), .valid(rx_valid), .data(rx_data), .frame_error(rx_ferr));
  tsr_uart_tx #(.CLKS_PER_BIT(CLKS_PER_BIT)) utx (
      .clk(clk), .rst(rst), .valid(tx_valid), .data(tx_data), .ready(tx_ready), .tx(tx));

  typedef enum logic [4:0] {
    S_SYNC, S_HDR, S_CHECK, S_PAYLOAD, S_CRC, S_DISCARD, S_MW_READ, S_MW_REQ, S_MR_REQ,
    S_RR_ADDR, S_RR_DATA, S_RW_REQ, S_RW_RESP, S_TX_SYNC, S_TX_STATUS, S_TX_TAG, S_TX_DATA, S_TX_CRC
  } state_t;
  state_t state;

  // --- the write payload buffer (block RAM; it is written while receiving
  // and read in S_MW_READ, never both in a cycle) ------------------------------
  logic buf_we;
  logic [WA-1:0] buf_wa, buf_ra;
  logic [31:0] buf_wd, buf_rd;
  tsr_sdp_ram #(
      .DEPTH(WORDS),
      .WIDTH(32)
  ) u_buf (
      .clk(clk),
      .we(buf_we),
      .waddr(buf_wa),
      .wdata(buf_wd),
      .re(state == S_MW_READ),
      .raddr(buf_ra),
      .rdata(buf_rd)
  );

  logic [1:0] op;
  logic op_bad, addr_hi, len_hi, last_valid, aw_done, w_done;
  logic [7:0] tag, crc, last_tag;
  logic [2:0] status;
  logic [AB-1:0] addr;
  logic [LB-1:0] len, cnt;  // len: payload bytes; cnt: bytes (payload) or words (memory) done
  logic [31:0] word;
  logic [2:0] bc;  // header byte (cmd, tag, addr 0..3, len 0..1); then the reply word's byte
  logic [TW-1:0] idle;

  wire is_mem = !op[1];
  wire is_write = op[0];
  wire [LB-1:0] payload_len = op == kMemWrite ? len : op == kRegWrite ? LB'(4) : '0;
  wire len_ok = !len_hi && len[1:0] == 2'b0 && addr[1:0] == 2'b0 &&
                (is_mem ? len != '0 && len <= LB'(MAX_BYTES) : len == LB'(4));
  wire range_ok = !addr_hi && (is_mem ? {1'b0, addr} + (AB + 1)'(len) <= (AB + 1)'(MEM_BYTES)
                                      : addr[AB-1:12] == '0);
  wire in_frame = state == S_HDR || state == S_CHECK || state == S_PAYLOAD || state == S_CRC;
  wire tx_phase = state == S_TX_STATUS || state == S_TX_TAG || state == S_TX_DATA;
  wire [LB-1:0] words_done = cnt + 1'b1;
  wire last_word = words_done[LB-3:0] == len[LB-1:2];
  // One CRC step, on the byte received or the reply byte sent.
  wire [7:0] crc_next = crc8(crc, tx_phase ? tx_data : rx_data);

  assign buf_wd = {rx_data, word[31:8]};
  assign buf_we = state == S_PAYLOAD && rx_valid && cnt[1:0] == 2'd3 && op == kMemWrite;
  assign buf_wa = WA'(cnt[LB-1:2]);
  assign buf_ra = WA'(cnt);

  assign mem_valid = state == S_MW_REQ || state == S_MR_REQ;
  assign mem_we = state == S_MW_REQ;
  assign mem_word = addr[MB-1:2] + (MB - 2)'(cnt);
  assign mem_wdata = buf_rd;

  assign m_axil_araddr = addr[11:0];
  assign m_axil_arvalid = state == S_RR_ADDR;
  assign m_axil_rready = state == S_RR_DATA;
  assign m_axil_awaddr = addr[11:0];
  assign m_axil_awvalid = state == S_RW_REQ && !aw_done;
  assign m_axil_wdata = word;
  assign m_axil_wstrb = 4'hF;
  assign m_axil_wvalid = state == S_RW_REQ && !w_done;
  assign m_axil_bready = state == S_RW_RESP;

  always_comb begin
    unique case (state)
      S_TX_SYNC: tx_data = kSyncReply;
      S_TX_STATUS: tx_data = {5'd0, status};
      S_TX_TAG: tx_data = tag;
      S_TX_DATA: tx_data = word[7:0];
      default: tx_data = crc;
    endcase
  end
  assign tx_valid = tx_ready && (tx_phase || state == S_TX_SYNC || state == S_TX_CRC);

  // The reply's payload: one register word, or memory words read one by one.
  wire reply_has_data = status == kOk && !op[0];

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= S_SYNC;
      last_valid <= 1'b0;
      last_tag <= '0;
      idle <= '0;
      op <= '0;
      op_bad <= 1'b0;
      tag <= '0;
      crc <= '0;
      status <= '0;
      addr <= '0;
      addr_hi <= 1'b0;
      word <= '0;
      len <= '0;
      len_hi <= 1'b0;
      cnt <= '0;
      bc <= '0;
      aw_done <= 1'b0;
      w_done <= 1'b0;
    end else begin
      // A frame that stalls is dropped (after a header error: answered).
      if (rx_valid || !(in_frame || state == S_DISCARD)) idle <= '0;
      else if (idle != TW'(IDLE_CLKS)) idle <= idle + 1'b1;
      if (in_frame && idle == TW'(IDLE_CLKS)) state <= S_SYNC;
      if (state == S_DISCARD && idle == TW'(IDLE_CLKS)) state <= S_TX_SYNC;
      if (in_frame && rx_ferr) begin
        status <= kFraming;
        state <= S_DISCARD;
      end else if (rx_valid) begin
        if (in_frame) crc <= crc_next;
        unique case (state)
          S_SYNC:
          if (rx_data == kSyncReq) begin
            crc <= '0;
            bc <= '0;
            addr_hi <= 1'b0;
            len_hi <= 1'b0;
            state <= S_HDR;
          end
          S_HDR: begin
            bc <= bc + 1'b1;
            if (bc == 3'd0) begin
              op <= 2'(rx_data - 1'b1);
              op_bad <= rx_data == 8'd0 || rx_data > 8'd4;
            end
            if (bc == 3'd1) tag <= rx_data;
            // addr: bytes 2..5, little-endian; len: bytes 6..7
            for (int j = 0; j < 32; j++) begin
              if (bc == 3'(2 + j / 8)) begin
                if (j < AB) addr[j] <= rx_data[j%8];
                else if (rx_data[j%8]) addr_hi <= 1'b1;
              end
            end
            for (int j = 0; j < 16; j++) begin
              if (bc == 3'(6 + j / 8)) begin
                if (j < LB) len[j] <= rx_data[j%8];
                else if (rx_data[j%8]) len_hi <= 1'b1;
              end
            end
            if (bc == 3'd7) state <= S_CHECK;
          end
          S_PAYLOAD: begin
            word <= {rx_data, word[31:8]};
            cnt <= cnt + 1'b1;
            if (cnt + 1'b1 == payload_len) state <= S_CRC;
          end
          S_CRC: begin
            cnt <= '0;
            if (rx_data != crc) begin
              status <= kBadCrc;
              state <= S_TX_SYNC;
            end else if (!range_ok) begin
              status <= kBusError;
              state <= S_TX_SYNC;
            end else if (is_write && last_valid && tag == last_tag) begin
              status <= kOk;  // a retransmission of the write already done
              state <= S_TX_SYNC;
            end else begin
              status <= kOk;
              last_tag <= tag;
              last_valid <= 1'b0;  // set when a write completes
              unique case (op)
                kMemRead: state <= S_TX_SYNC;
                kMemWrite: state <= S_MW_READ;
                kRegRead: state <= S_RR_ADDR;
                default: state <= S_RW_REQ;
              endcase
            end
          end
          default: ;
        endcase
      end

      unique case (state)
        // The header is complete: check it.
        S_CHECK: begin
          cnt <= '0;
          if (op_bad || !len_ok) begin
            status <= op_bad ? kBadCommand : kBadLength;
            state <= S_DISCARD;
          end else begin
            state <= payload_len == '0 ? S_CRC : S_PAYLOAD;
          end
        end
        S_MW_READ: state <= S_MW_REQ;  // buf_rd follows buf_ra (cnt) next cycle
        S_MW_REQ:
        if (mem_ready) begin
          cnt <= words_done;
          if (last_word) begin
            last_valid <= 1'b1;
            state <= S_TX_SYNC;
          end else begin
            state <= S_MW_READ;
          end
        end
        S_MR_REQ:
        if (mem_ready) begin
          word <= mem_rdata;
          bc <= '0;
          state <= S_TX_DATA;
        end
        S_RR_ADDR: if (m_axil_arready) state <= S_RR_DATA;
        S_RR_DATA:
        if (m_axil_rvalid) begin
          word <= m_axil_rdata;
          status <= m_axil_rresp == 2'b00 ? kOk : kBusError;
          state <= S_TX_SYNC;
        end
        S_RW_REQ: begin
          if (m_axil_awready) aw_done <= 1'b1;
          if (m_axil_wready) w_done <= 1'b1;
          if ((aw_done || m_axil_awready) && (w_done || m_axil_wready)) state <= S_RW_RESP;
        end
        S_RW_RESP:
        if (m_axil_bvalid) begin
          aw_done <= 1'b0;
          w_done <= 1'b0;
          status <= m_axil_bresp == 2'b00 ? kOk : kBusError;
          last_valid <= m_axil_bresp == 2'b00;
          state <= S_TX_SYNC;
        end
        // The reply: every byte after the sync byte goes into the CRC.
        S_TX_SYNC:
        if (tx_ready) begin
          crc <= '0;
          state <= S_TX_STATUS;
        end
        S_TX_STATUS:
        if (tx_ready) begin
          crc <= crc_next;
          state <= S_TX_TAG;
        end
        S_TX_TAG:
        if (tx_ready) begin
          crc <= crc_next;
          bc <= '0;
          cnt <= '0;
          if (!reply_has_data) state <= S_TX_CRC;
          else if (op == kMemRead) state <= S_MR_REQ;
          else state <= S_TX_DATA;
        end
        S_TX_DATA:
        if (tx_ready) begin
          crc <= crc_next;
          word <= {rx_data, word[31:8]};  // (the byte shifted in is never sent)
          bc <= bc + 1'b1;
          if (bc[1:0] == 2'd3) begin
            if (op == kMemRead && !last_word) begin
              cnt <= words_done;
              state <= S_MR_REQ;
            end else begin
              state <= S_TX_CRC;
            end
          end
        end
        S_TX_CRC: if (tx_ready) state <= S_SYNC;
        default: ;
      endcase
    end
  end
endmodule
