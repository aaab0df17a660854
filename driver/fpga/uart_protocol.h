// The UART bridge's framed protocol (fpga/ice40/rtl/tsr_uart_bridge.v;
// docs/fpga.md, "The UART bridge protocol"), shared by the `uart` link and
// the bridge's tests:
//
//   request: A5 cmd tag addr[4, LE] len[2, LE] payload crc
//   reply:   5A status tag payload crc
//
// The CRC is CRC-8 (polynomial 0x07, initial 0) over every byte after the
// sync byte. A memory access is word-aligned and 4..kMaxBytes bytes; a
// register access has len 4. Payload: the data of a memory write (len bytes)
// or a register write (4 bytes); in a reply, the data of a read when the
// status is kOk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::fpga {

enum class Cmd : uint8_t { kMemRead = 1, kMemWrite = 2, kRegRead = 3, kRegWrite = 4 };
enum class ReplyStatus : uint8_t { kOk = 0, kBadCrc = 1, kBadCommand = 2, kBadLength = 3, kBusError = 4, kFraming = 5 };

constexpr uint8_t kSyncRequest = 0xA5, kSyncReply = 0x5A;
constexpr uint32_t kMaxBytes = 256;  // the bridge's payload buffer
constexpr size_t kRequestHeaderBytes = 9, kReplyHeaderBytes = 3;

uint8_t Crc8(uint8_t crc, const uint8_t* p, size_t n);
// A whole request frame; `payload` holds PayloadBytes(cmd, len) bytes.
std::vector<uint8_t> EncodeRequest(Cmd cmd, uint8_t tag, uint32_t addr, uint16_t len, const uint8_t* payload);
// Payload bytes of a request, and of its reply when the status is kOk.
size_t RequestPayloadBytes(Cmd cmd, uint16_t len);
size_t ReplyPayloadBytes(Cmd cmd, uint16_t len);
const char* CmdName(Cmd cmd);
const char* ReplyStatusName(uint8_t status);

}  // namespace tessera::fpga
