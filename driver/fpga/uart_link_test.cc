// The `uart` link's fault handling on a pseudo-terminal whose other end the
// test scripts (the board itself is tested in fpga/ice40: the Verilated
// bridge and board): a board that never answers, one whose replies are
// garbled, one that rejects every frame, a late reply to an earlier request,
// a bus error. Every case ends with a Status naming the port, in bounded time.
#include "driver/fpga/uart_link.h"

#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "driver/registry.h"
#include "gtest/gtest.h"
#include "tests/support/random_isa.h"

namespace tessera::fpga {
namespace {

// A pseudo-terminal; `peer` runs on the master side until the test ends.
class Pty {
 public:
  Pty() {
    char name[256];
    EXPECT_EQ(openpty(&master_, &slave_, name, nullptr, nullptr), 0);
    path_ = name;
  }
  ~Pty() {
    stop_ = true;
    if (peer_.joinable()) peer_.join();
    ::close(master_);
    ::close(slave_);
  }
  // Runs `answer(request frame)` for every request frame read from the master;
  // its return value is written back.
  template <typename F>
  void Serve(F answer) {
    peer_ = std::thread([this, answer] {
      std::vector<uint8_t> in;
      ::fcntl(master_, F_SETFL, O_NONBLOCK);
      while (!stop_) {
        uint8_t buf[512];
        const ssize_t n = ::read(master_, buf, sizeof buf);
        if (n <= 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
          continue;
        }
        in.insert(in.end(), buf, buf + n);
        while (in.size() >= kRequestHeaderBytes) {
          const Cmd cmd = static_cast<Cmd>(in[1]);
          const uint16_t len = static_cast<uint16_t>(in[7] | in[8] << 8);
          const size_t total = kRequestHeaderBytes + RequestPayloadBytes(cmd, len) + 1;
          if (in.size() < total) break;
          std::vector<uint8_t> frame(in.begin(), in.begin() + static_cast<ptrdiff_t>(total));
          in.erase(in.begin(), in.begin() + static_cast<ptrdiff_t>(total));
          ++requests;
          const std::vector<uint8_t> out = answer(frame);
          if (!out.empty()) {
            EXPECT_EQ(::write(master_, out.data(), out.size()), static_cast<ssize_t>(out.size()));
          }
        }
      }
    });
  }
  const std::string& path() const { return path_; }
  std::atomic<int> requests{0};

 private:
  int master_ = -1, slave_ = -1;
  std::string path_;
  std::atomic<bool> stop_{false};
  std::thread peer_;
};

std::vector<uint8_t> ReplyFrame(uint8_t status, uint8_t tag, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> r;
  r.push_back(kSyncReply);
  r.push_back(status);
  r.push_back(tag);
  for (uint8_t b : payload) r.push_back(b);
  r.push_back(Crc8(0, r.data() + 1, r.size() - 1));
  return r;
}

// Tests whose board answers wait long enough for a loaded machine to
// schedule the peer thread; only the silent-board tests use a short timeout.
UartOptions Options(const std::string& path, int timeout_ms = 2000) {
  UartOptions o;
  o.path = path;
  o.timeout_ms = timeout_ms;
  o.retries = 2;
  o.memory_bytes = 131072;
  return o;
}

TEST(UartLink, SilentBoardTimesOut) {
  Pty pty;
  auto link = UartLink::Open(Options(pty.path(), 30));
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<uint32_t> v = (*link)->ReadReg(0);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(v.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(v.status().message(), "fpga uart " + pty.path() +
                                      ": register read at 0x0 failed after 3 attempts: no reply within 30 ms (is the "
                                      "board's bitstream loaded and its rate --fpga-baud 1000000?)");
  EXPECT_LT(ms, 2000);
}

TEST(UartLink, SilentBoardThroughTheRegistry) {
  Pty pty;
  DeviceOptions o;
  o.backend.Set("fpga-transport", "uart");
  o.backend.Set("fpga-device", pty.path());
  o.backend.Set("fpga-timeout-ms", "20");
  auto dev = OpenDevice("fpga", testing::LoadConfigOrDie("configs/ice40-up5k.json"), o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(dev.status().message().find("opening target 'fpga': fpga uart " + pty.path()), std::string::npos)
      << dev.status().message();
}

TEST(UartLink, GarbledRepliesAreRetriedThenReported) {
  Pty pty;
  pty.Serve([](const std::vector<uint8_t>& f) {
    std::vector<uint8_t> r = ReplyFrame(0, f[2], {1, 2, 3, 4});
    r.back() ^= 0x55;
    return r;
  });
  auto link = UartLink::Open(Options(pty.path()));
  ASSERT_TRUE(link.ok());
  StatusOr<uint32_t> v = (*link)->ReadReg(0x0C);
  EXPECT_EQ(v.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(v.status().message().find("register read at 0xc failed after 3 attempts: garbled reply (bad CRC)"),
            std::string::npos)
      << v.status().message();
  EXPECT_EQ(pty.requests, 3);
}

TEST(UartLink, RejectedFramesAreRetriedAndRecover) {
  Pty pty;
  std::atomic<int> n{0};
  pty.Serve([&n](const std::vector<uint8_t>& f) {
    // The first attempt arrives garbled (the board says bad CRC); the retry
    // gets a stale reply with another tag first, then the real one.
    if (n++ == 0) return ReplyFrame(static_cast<uint8_t>(ReplyStatus::kBadCrc), f[2], {});
    std::vector<uint8_t> r = ReplyFrame(0, static_cast<uint8_t>(f[2] - 1), {9, 9, 9, 9});
    for (uint8_t b : ReplyFrame(0, f[2], {0x41, 0x52, 0x53, 0x54})) r.push_back(b);
    return r;
  });
  auto link = UartLink::Open(Options(pty.path()));
  ASSERT_TRUE(link.ok());
  StatusOr<uint32_t> v = (*link)->ReadReg(0);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 0x54535241u);
  EXPECT_EQ((*link)->retransmissions(), 1);
}

TEST(UartLink, BusErrorFailsAtOnce) {
  Pty pty;
  pty.Serve(
      [](const std::vector<uint8_t>& f) { return ReplyFrame(static_cast<uint8_t>(ReplyStatus::kBusError), f[2], {}); });
  auto link = UartLink::Open(Options(pty.path()));
  ASSERT_TRUE(link.ok());
  Status s = (*link)->WriteReg(0x10, 5);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_NE(s.message().find("register write of 4 bytes at 0x10: the board answered 'bus error'"), std::string::npos)
      << s.message();
  EXPECT_EQ(pty.requests, 1);
}

TEST(UartLink, MemoryOutsideTheBoardAndBadOptions) {
  Pty pty;
  auto link = UartLink::Open(Options(pty.path()));
  ASSERT_TRUE(link.ok());
  uint8_t b[8] = {};
  EXPECT_EQ((*link)->WriteMemory(131068, b, 8).code(), StatusCode::kOutOfRange);
  UartOptions o = Options(pty.path());
  o.baud = 12345;
  EXPECT_EQ(UartLink::Open(o).status().code(), StatusCode::kInvalidArgument);
  o = Options("/nonexistent/tty");
  EXPECT_EQ(UartLink::Open(o).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tessera::fpga
