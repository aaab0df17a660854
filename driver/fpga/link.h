// How the `fpga` backend reaches a board: a link carries the register window
// and the board memory (device byte addresses from 0). Two links: `uart`
// (the iCE40 bridge's framed protocol, uart_link.h) and `mmio` (a Linux
// board's register window and DMA buffer mapped into the process,
// mmio_link.h). Every failure is a Status naming the link; nothing blocks
// forever.
#pragma once

#include <cstdint>
#include <string>

#include "isa/base/status.h"

namespace tessera::fpga {

class Link {
 public:
  virtual ~Link() = default;
  // "uart /dev/ttyUSB1", "mmio /dev/uio0 + /dev/udmabuf0": names the link in messages.
  virtual std::string Name() const = 0;
  // Bytes of board memory the link reaches.
  virtual uint64_t MemoryBytes() const = 0;
  // The bus address of device address 0 (written to DRAM_BASE at open).
  virtual uint64_t DramBase() const { return 0; }
  virtual Status WriteMemory(uint64_t addr, const void* src, uint64_t n) = 0;
  virtual Status ReadMemory(uint64_t addr, void* dst, uint64_t n) = 0;
  virtual StatusOr<uint32_t> ReadReg(uint32_t offset) = 0;
  virtual Status WriteReg(uint32_t offset, uint32_t value) = 0;
};

}  // namespace tessera::fpga
