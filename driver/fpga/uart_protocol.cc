#include "driver/fpga/uart_protocol.h"

namespace tessera::fpga {

uint8_t Crc8(uint8_t crc, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int b = 0; b < 8; ++b) crc = static_cast<uint8_t>(crc & 0x80 ? (crc << 1) ^ 0x07 : crc << 1);
  }
  return crc;
}

size_t RequestPayloadBytes(Cmd cmd, uint16_t len) {
  return cmd == Cmd::kMemWrite ? len : cmd == Cmd::kRegWrite ? 4 : 0;
}

size_t ReplyPayloadBytes(Cmd cmd, uint16_t len) { return cmd == Cmd::kMemRead ? len : cmd == Cmd::kRegRead ? 4 : 0; }

std::vector<uint8_t> EncodeRequest(Cmd cmd, uint8_t tag, uint32_t addr, uint16_t len, const uint8_t* payload) {
  std::vector<uint8_t> f = {kSyncRequest,
                            static_cast<uint8_t>(cmd),
                            tag,
                            static_cast<uint8_t>(addr),
                            static_cast<uint8_t>(addr >> 8),
                            static_cast<uint8_t>(addr >> 16),
                            static_cast<uint8_t>(addr >> 24),
                            static_cast<uint8_t>(len),
                            static_cast<uint8_t>(len >> 8)};
  const size_t n = RequestPayloadBytes(cmd, len);
  f.insert(f.end(), payload, payload + n);
  f.push_back(Crc8(0, f.data() + 1, f.size() - 1));
  return f;
}

const char* CmdName(Cmd cmd) {
  switch (cmd) {
    case Cmd::kMemRead: return "memory read";
    case Cmd::kMemWrite: return "memory write";
    case Cmd::kRegRead: return "register read";
    case Cmd::kRegWrite: return "register write";
  }
  return "command";
}

const char* ReplyStatusName(uint8_t status) {
  switch (static_cast<ReplyStatus>(status)) {
    case ReplyStatus::kOk: return "ok";
    case ReplyStatus::kBadCrc: return "bad CRC";
    case ReplyStatus::kBadCommand: return "unknown command";
    case ReplyStatus::kBadLength: return "bad length or alignment";
    case ReplyStatus::kBusError: return "bus error";
    case ReplyStatus::kFraming: return "UART framing error";
  }
  return "unknown status";
}

}  // namespace tessera::fpga
