// The Verilated iCE40 board (tsr_board: UART bridge, SPRAM memory, the
// accelerator) behind a pseudo-terminal: a stand-in for the board on its
// USB serial port. It runs a command with every "@PTY@" in its arguments
// replaced by the pseudo-terminal's path, clocks the board while the command
// runs, and exits with the command's status.
//
//   fpga_board_sim [--garble-every N] [--silent] -- tessera run m.tsr --target fpga \
//       --fpga-transport uart --fpga-device @PTY@ ...
//
// Host bytes are sent to the board's RX pin bit by bit at the bridge's rate
// (CLKS_PER_BIT cycles a bit); the TX pin is decoded back into bytes. Fault
// injection for the transport's tests: --garble-every N flips a bit of every
// Nth byte the host sends (the bridge rejects the frame; the host retries),
// --silent never delivers the host's bytes (a board that does not answer).
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "Vtsr_board.h"

namespace {

constexpr int kCpb = TSR_BOARD_CLKS_PER_BIT;

}  // namespace

int main(int argc, char** argv) {
  long garble_every = 0;
  bool silent = false;
  std::vector<std::string> args;  // the command; every "@PTY@" becomes the port
  CLI::App app{"The Verilated iCE40 board behind a pseudo-terminal"};
  app.add_option("--garble-every", garble_every, "flip a bit of every Nth byte the host sends")
      ->check(CLI::Range(1L, 1L << 30));
  app.add_flag("--silent", silent, "never deliver the host's bytes (a board that does not answer)");
  app.add_option("command", args, "-- COMMAND ARGS")->required();
  CLI11_PARSE(app, argc, argv);

  int master = -1, slave = -1;
  char name[256];
  if (openpty(&master, &slave, name, nullptr, nullptr) != 0) {
    std::perror("fpga_board_sim: openpty");
    return 1;
  }
  termios t{};
  tcgetattr(slave, &t);
  cfmakeraw(&t);
  tcsetattr(slave, TCSANOW, &t);
  fcntl(master, F_SETFL, O_NONBLOCK);

  for (std::string& a : args)
    for (size_t p; (p = a.find("@PTY@")) != std::string::npos;) a.replace(p, 5, name);
  const pid_t child = fork();
  if (child == 0) {
    ::close(master);
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execvp(cargs[0], cargs.data());
    std::perror("fpga_board_sim: exec");
    _exit(127);
  }

  Vtsr_board m;
  m.uart_rx = 1;
  m.rst = 1;
  for (int c = 0; c < 8; ++c) {
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
  }
  m.rst = 0;

  std::deque<uint8_t> line;  // RX pin levels still to drive
  long host_bytes = 0, garbled = 0, quiet = 0;
  int tx_count = 0;
  uint8_t tx_byte = 0;
  int status = 0;
  for (long cycle = 0;; ++cycle) {
    if (line.empty()) {
      uint8_t buf[256];
      const ssize_t n = ::read(master, buf, sizeof buf);
      for (ssize_t k = 0; k < n && !silent; ++k) {
        uint8_t b = buf[k];
        if (++host_bytes % (garble_every > 0 ? garble_every : 1) == 0 && garble_every > 0) {
          b ^= 0x10;
          ++garbled;
        }
        line.insert(line.end(), kCpb, 0);
        for (int bit = 0; bit < 8; ++bit) line.insert(line.end(), kCpb, static_cast<uint8_t>((b >> bit) & 1));
        line.insert(line.end(), kCpb, 1);
      }
    }
    m.uart_rx = line.empty() ? 1 : line.front();
    if (!line.empty()) line.pop_front();
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
    // Decode the TX pin: each bit sampled in its middle.
    const int tx = m.uart_tx;
    if (tx_count == 0) {
      if (!tx) tx_count = 1;
    } else if (++tx_count % kCpb == kCpb / 2 && tx_count / kCpb >= 1 && tx_count / kCpb <= 8) {
      tx_byte |= static_cast<uint8_t>(tx << (tx_count / kCpb - 1));
    } else if (tx_count == 9 * kCpb + kCpb / 2) {
      if (::write(master, &tx_byte, 1) != 1) std::perror("fpga_board_sim: write");
      tx_byte = 0;
      tx_count = 0;
    }
    quiet = (line.empty() && tx_count == 0) ? quiet + 1 : 0;
    if (cycle % 4096 == 0 && waitpid(child, &status, WNOHANG) == child) break;
    // Nothing on the line for a while: wait for the host instead of spinning
    // (the accelerator keeps running while the host polls it over the line).
    if (quiet > 200000) {
      pollfd p{master, POLLIN, 0};
      ::poll(&p, 1, 2);
      if (p.revents & POLLIN) quiet = 0;
    }
  }
  ::close(master);
  ::close(slave);
  if (garble_every > 0) std::fprintf(stderr, "fpga_board_sim: garbled %ld of %ld host bytes\n", garbled, host_bytes);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  std::fprintf(stderr, "fpga_board_sim: the command was killed by signal %d\n", WTERMSIG(status));
  return 128 + WTERMSIG(status);
}
