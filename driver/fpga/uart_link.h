// The `uart` link: the iCE40 board's UART bridge (uart_protocol.h) over a
// serial port (termios, raw 8N1). Each request is retried with the same tag
// when its reply is missing, garbled, or the board rejects the frame (the
// bridge answers a retransmitted write without doing it twice); a reply must
// start within `timeout_ms` and its bytes follow each other within it, so a
// silent board costs at most (retries + 1) * timeout_ms per access. After the
// last attempt the access fails with a Status naming the port, the access and
// what went wrong; a bus error from the board fails at once.
#pragma once

#include <memory>
#include <string>

#include "driver/fpga/link.h"
#include "driver/fpga/uart_protocol.h"

namespace tessera::fpga {

struct UartOptions {
  std::string path;        // the serial port: /dev/ttyUSB1, a pseudo-terminal
  int64_t baud = 1000000;  // the bitstream's rate (fpga/ice40/Makefile BAUD)
  int64_t timeout_ms = 200;
  int64_t retries = 3;
  uint64_t memory_bytes = 0;  // the board's memory (the config's DRAM size)
};

class UartLink final : public Link {
 public:
  static StatusOr<std::unique_ptr<UartLink>> Open(const UartOptions& o);
  ~UartLink() override;

  std::string Name() const override { return "uart " + o_.path; }
  uint64_t MemoryBytes() const override { return o_.memory_bytes; }
  Status WriteMemory(uint64_t addr, const void* src, uint64_t n) override;
  Status ReadMemory(uint64_t addr, void* dst, uint64_t n) override;
  StatusOr<uint32_t> ReadReg(uint32_t offset) override;
  Status WriteReg(uint32_t offset, uint32_t value) override;
  // Attempts beyond the first that succeeded (for tests and statistics).
  int64_t retransmissions() const { return retransmissions_; }

 private:
  UartLink(const UartOptions& o, int fd) : o_(o), fd_(fd) {}
  // One request with its retries; `out` receives ReplyPayloadBytes(cmd, len).
  Status Transact(Cmd cmd, uint32_t addr, uint16_t len, const uint8_t* payload, uint8_t* out);
  // One attempt: "" on success, else what went wrong (and *fatal for a bus error).
  std::string Attempt(const std::vector<uint8_t>& frame, Cmd cmd, uint8_t tag, uint16_t len, uint8_t* out, bool* fatal);
  // Reads one byte within the timeout; false when none came.
  bool ReadByte(uint8_t* b);
  Status MemoryAccess(bool write, uint64_t addr, uint8_t* data, uint64_t n);

  UartOptions o_;
  int fd_;
  uint8_t tag_ = 0;
  int64_t retransmissions_ = 0;
};

}  // namespace tessera::fpga
