#include "driver/fpga/uart_link.h"

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace tessera::fpga {
namespace {

// The termios constant of a rate; 0 when the rate has none.
speed_t SpeedOf(int64_t baud) {
  switch (baud) {
    case 9600: return B9600;
    case 19200: return B19200;
    case 38400: return B38400;
    case 57600: return B57600;
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 2000000: return B2000000;
    case 3000000: return B3000000;
    default: return 0;
  }
}

}  // namespace

StatusOr<std::unique_ptr<UartLink>> UartLink::Open(const UartOptions& o) {
  if (o.path.empty()) return InvalidArgumentError("fpga uart: no serial port: give --fpga-device (e.g. /dev/ttyUSB1)");
  const speed_t speed = SpeedOf(o.baud);
  if (speed == 0)
    return InvalidArgumentError(
        "fpga uart: --fpga-baud {} is not a rate the serial port supports "
        "(9600 .. 3000000, the standard rates)",
        o.baud);
  if (o.timeout_ms <= 0 || o.retries < 0)
    return InvalidArgumentError("fpga uart: --fpga-timeout-ms must be positive and --fpga-retries not negative");
  const int fd = ::open(o.path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return NotFoundError("fpga uart: cannot open serial port {}: {}", o.path, std::strerror(errno));
  termios t{};
  if (tcgetattr(fd, &t) != 0) {
    const int e = errno;
    ::close(fd);
    return InvalidArgumentError("fpga uart: {} is not a serial port: {}", o.path, std::strerror(e));
  }
  cfmakeraw(&t);
  t.c_cflag |= CLOCAL | CREAD;
  t.c_cflag &= ~(CSTOPB | CRTSCTS);
  t.c_cc[VMIN] = 0;
  t.c_cc[VTIME] = 0;
  cfsetispeed(&t, speed);
  cfsetospeed(&t, speed);
  if (tcsetattr(fd, TCSANOW, &t) != 0) {
    const int e = errno;
    ::close(fd);
    return InvalidArgumentError("fpga uart: cannot configure {} (raw 8N1 at {} baud): {}", o.path, o.baud,
                                std::strerror(e));
  }
  tcflush(fd, TCIOFLUSH);
  return std::unique_ptr<UartLink>(new UartLink(o, fd));
}

UartLink::~UartLink() { ::close(fd_); }

bool UartLink::ReadByte(uint8_t* b) {
  for (;;) {
    const ssize_t r = ::read(fd_, b, 1);
    if (r == 1) return true;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    pollfd p{fd_, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(o_.timeout_ms));
    if (n == 0) return false;  // the timeout passed without a byte
    if (n < 0 && errno != EINTR) return false;
    if (n > 0 && (p.revents & (POLLERR | POLLNVAL))) return false;
    if (n > 0 && (p.revents & POLLHUP) && !(p.revents & POLLIN)) {
      // The other end of a pseudo-terminal is closed: no board behind it.
      ::usleep(1000);
      return false;
    }
  }
}

std::string UartLink::Attempt(const std::vector<uint8_t>& frame, Cmd cmd, uint8_t tag, uint16_t len, uint8_t* out,
                              bool* fatal) {
  tcflush(fd_, TCIFLUSH);  // replies of earlier attempts
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t w = ::write(fd_, frame.data() + sent, frame.size() - sent);
    if (w > 0) {
      sent += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR) return fmt::format("write failed: {}", std::strerror(errno));
    pollfd p{fd_, POLLOUT, 0};
    if (::poll(&p, 1, static_cast<int>(o_.timeout_ms)) <= 0) return "the port does not take data (timeout)";
  }
  for (;;) {
    uint8_t b = 0;
    do {
      if (!ReadByte(&b)) return fmt::format("no reply within {} ms", o_.timeout_ms);
    } while (b != kSyncReply);
    uint8_t head[2];
    if (!ReadByte(&head[0]) || !ReadByte(&head[1])) return "truncated reply";
    const uint8_t status = head[0];
    const size_t n = status == 0 ? ReplyPayloadBytes(cmd, len) : 0;
    std::vector<uint8_t> body(n + 1);
    for (uint8_t& x : body)
      if (!ReadByte(&x)) return "truncated reply";
    uint8_t crc = Crc8(0, head, 2);
    crc = Crc8(crc, body.data(), n);
    if (crc != body[n]) return "garbled reply (bad CRC)";
    if (status != 0) {
      // The board rejected the frame (it was garbled on the way) or the bus failed.
      *fatal = status == static_cast<uint8_t>(ReplyStatus::kBusError);
      return fmt::format("the board answered '{}'", ReplyStatusName(status));
    }
    if (head[1] != tag) continue;  // a late reply to an earlier request
    std::copy(body.begin(), body.begin() + static_cast<ptrdiff_t>(n), out);
    return "";
  }
}

Status UartLink::Transact(Cmd cmd, uint32_t addr, uint16_t len, const uint8_t* payload, uint8_t* out) {
  const uint8_t tag = ++tag_;  // consecutive frames differ; retries repeat it
  const std::vector<uint8_t> frame = EncodeRequest(cmd, tag, addr, len, payload);
  std::string why;
  for (int64_t attempt = 0; attempt <= o_.retries; ++attempt) {
    bool fatal = false;
    why = Attempt(frame, cmd, tag, len, out, &fatal);
    if (why.empty()) {
      retransmissions_ += attempt;
      return OkStatus();
    }
    if (fatal) return OutOfRangeError("fpga {}: {} of {} bytes at 0x{:x}: {}", Name(), CmdName(cmd), len, addr, why);
  }
  const std::string msg = fmt::format(
      "fpga {}: {} at 0x{:x} failed after {} attempts: {} (is the board's bitstream "
      "loaded and its rate --fpga-baud {}?)",
      Name(), CmdName(cmd), addr, o_.retries + 1, why, o_.baud);
  return why.rfind("no reply", 0) == 0 ? Status(StatusCode::kDeadlineExceeded, msg) : DataLossError("{}", msg);
}

Status UartLink::MemoryAccess(bool write, uint64_t addr, uint8_t* data, uint64_t n) {
  if (addr > o_.memory_bytes || n > o_.memory_bytes - addr)
    return OutOfRangeError("fpga {}: [0x{:x}, 0x{:x}) is outside the board's {} bytes of memory", Name(), addr,
                           addr + n, o_.memory_bytes);
  // Word-aligned chunks of at most kMaxBytes; a partial word at either end of
  // a write is read, merged and written back.
  uint64_t a = addr & ~uint64_t{3};
  const uint64_t end = addr + n;
  uint8_t chunk[kMaxBytes];
  while (a < end) {
    const uint64_t stop = std::min<uint64_t>((end + 3) & ~uint64_t{3}, a + kMaxBytes);
    const uint16_t len = static_cast<uint16_t>(stop - a);
    const uint64_t lo = std::max(a, addr), hi = std::min(stop, end);
    if (write) {
      if (lo != a || hi != stop)
        TSR_RETURN_IF_ERROR(Transact(Cmd::kMemRead, static_cast<uint32_t>(a), len, nullptr, chunk));
      std::memcpy(chunk + (lo - a), data + (lo - addr), hi - lo);
      TSR_RETURN_IF_ERROR(Transact(Cmd::kMemWrite, static_cast<uint32_t>(a), len, chunk, nullptr));
    } else {
      TSR_RETURN_IF_ERROR(Transact(Cmd::kMemRead, static_cast<uint32_t>(a), len, nullptr, chunk));
      std::memcpy(data + (lo - addr), chunk + (lo - a), hi - lo);
    }
    a = stop;
  }
  return OkStatus();
}

Status UartLink::WriteMemory(uint64_t addr, const void* src, uint64_t n) {
  return MemoryAccess(true, addr, const_cast<uint8_t*>(static_cast<const uint8_t*>(src)), n);
}

Status UartLink::ReadMemory(uint64_t addr, void* dst, uint64_t n) {
  return MemoryAccess(false, addr, static_cast<uint8_t*>(dst), n);
}

StatusOr<uint32_t> UartLink::ReadReg(uint32_t offset) {
  uint8_t b[4];
  TSR_RETURN_IF_ERROR(Transact(Cmd::kRegRead, offset, 4, nullptr, b));
  return static_cast<uint32_t>(b[0] | b[1] << 8 | b[2] << 16 | static_cast<uint32_t>(b[3]) << 24);
}

Status UartLink::WriteReg(uint32_t offset, uint32_t value) {
  const uint8_t b[4] = {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8),
                        static_cast<uint8_t>(value >> 16), static_cast<uint8_t>(value >> 24)};
  return Transact(Cmd::kRegWrite, offset, 4, b, nullptr);
}

}  // namespace tessera::fpga
