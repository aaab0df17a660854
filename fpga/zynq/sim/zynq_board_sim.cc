// The Zynq board without a board: the Verilated tsr_accel (the `rtl`
// backend's model of the config, with the contract's AXI4 memory) served to
// an unmodified `mmio` link (driver/fpga/mmio_link.cc) in another process.
//
//   fpga_zynq_sim -c configs/default.json [--stuck] -- tessera run m.tsr --target fpga
//       --fpga-transport mmio --fpga-device @REGS@ --fpga-dma @DMA@ --fpga-dma-sysfs @SYSFS@ ...
//
// It makes, in a fresh directory under /dev/shm (or $TMPDIR): `regs`, the
// register window, an empty file the link maps as its 4 KiB window (every
// access faults, SIGBUS); `udmabuf0`, a sparse file of the config's DRAM size
// the link maps as its DMA buffer; `u-dma-buf/`, the buffer's sysfs
// attributes as plain files (phys_addr 0x10000000: the accelerator's
// DRAM_BASE). It runs the command under ptrace with @REGS@, @DMA@ and
// @SYSFS@ replaced. A register access stops the command with SIGBUS: the
// harness decodes the instruction (x86-64 mov load/store of 32 bits), gives
// the window its page with the register's value (a read) or takes the value
// the instruction stored (a write) by single-stepping it, and truncates the
// page away again. A read of STATUS first clocks the model a slice, as the
// rtl backend's wait does. The DMA buffer is coherent at the points the
// protocol needs it: the buffer is copied into the model's DRAM when CTRL.START
// is written and back when STATUS shows the run ended (u-dma-buf's sync
// attributes are only files here). --stuck: STATUS reads BUSY once a run
// starts, an accelerator that never ends its run (the host's deadline must
// end it). Exits with the command's status.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/registry.h"
#include "isa/config.h"
#include "isa/regs.h"

namespace tessera {
namespace {

constexpr uint64_t kPhysAddr = 0x10000000;  // the emulated buffer's bus address
constexpr long kWindowBytes = 4096;

// Device::WhileWaiting, what Device::Wait does between STATUS polls: the rtl
// backend clocks its model a slice. Reached through a member pointer formed
// in a derived class (the harness clocks the model exactly as Wait would).
struct Clocking : Device {
  static void Advance(Device* d) { (d->*(&Clocking::WhileWaiting))(); }
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "fpga_zynq_sim: %s\n", what.c_str());
  std::exit(1);
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!(f << text) || !f.flush()) Die("cannot write " + path);
}

// The emulated board: files, the model, the traced command.
class Board {
 public:
  Board(std::unique_ptr<Device> dev, bool stuck) : dev_(std::move(dev)), stuck_(stuck) {}
  ~Board() {
    if (dma_) ::munmap(dma_, dram_bytes_);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  void MakeFiles() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (tmp ? tmp : "/tmp");
    std::string templ = base + "/tsr-zynq-XXXXXX";
    if (!::mkdtemp(templ.data())) Die("mkdtemp: " + std::string(std::strerror(errno)));
    dir_ = templ;
    regs_path_ = dir_ + "/regs";
    dma_path_ = dir_ + "/udmabuf0";
    sysfs_ = dir_ + "/u-dma-buf";
    regs_fd_ = ::open(regs_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    dma_fd_ = ::open(dma_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    dram_bytes_ = dev_->config().dram_size_bytes;
    if (regs_fd_ < 0 || dma_fd_ < 0 || ::ftruncate(dma_fd_, static_cast<off_t>(dram_bytes_)) != 0)
      Die("cannot make the window and buffer files in " + dir_);
    void* m = ::mmap(nullptr, dram_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, dma_fd_, 0);
    if (m == MAP_FAILED) Die("cannot map the DMA buffer: " + std::string(std::strerror(errno)));
    dma_ = static_cast<uint8_t*>(m);
    ::mkdir(sysfs_.c_str(), 0700);
    WriteFile(sysfs_ + "/phys_addr", fmt::format("0x{:08x}\n", kPhysAddr));
    WriteFile(sysfs_ + "/size", fmt::format("{}\n", dram_bytes_));
    for (const char* a : {"sync_mode", "sync_offset", "sync_size", "sync_direction", "sync_for_device", "sync_for_cpu"})
      WriteFile(sysfs_ + "/" + a, "0\n");
  }

  std::string Substitute(std::string a) const {
    const std::pair<const char*, const std::string*> subs[] = {
        {"@REGS@", &regs_path_}, {"@DMA@", &dma_path_}, {"@SYSFS@", &sysfs_}};
    for (const auto& [key, value] : subs)
      for (size_t p; (p = a.find(key)) != std::string::npos;) a.replace(p, std::strlen(key), *value);
    return a;
  }

  // Runs the command to its end; its exit status.
  int Run(std::vector<std::string> args) {
    for (std::string& a : args) a = Substitute(a);
    const pid_t child = ::fork();
    if (child == 0) {
      ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
      ::raise(SIGSTOP);
      std::vector<char*> cargs;
      for (std::string& a : args) cargs.push_back(a.data());
      cargs.push_back(nullptr);
      ::execvp(cargs[0], cargs.data());
      std::perror("fpga_zynq_sim: exec");
      _exit(127);
    }
    int st = 0;
    if (::waitpid(child, &st, __WALL) != child || !WIFSTOPPED(st)) Die("the command did not start");
    ::ptrace(PTRACE_SETOPTIONS, child, nullptr,
             PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC);
    ::ptrace(PTRACE_CONT, child, nullptr, nullptr);
    for (;;) {
      const pid_t tid = ::waitpid(-1, &st, __WALL);
      if (tid < 0) Die("waitpid: " + std::string(std::strerror(errno)));
      if (WIFEXITED(st) || WIFSIGNALED(st)) {
        if (tid != child) continue;
        if (WIFEXITED(st)) return WEXITSTATUS(st);
        std::fprintf(stderr, "fpga_zynq_sim: the command was killed by signal %d\n", WTERMSIG(st));
        return 128 + WTERMSIG(st);
      }
      int sig = WSTOPSIG(st);
      if (st >> 16 != 0 || sig == SIGTRAP || sig == SIGSTOP) sig = 0;  // ptrace events, new threads
      if (sig == SIGBUS && Serve(tid)) sig = 0;
      ::ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void*>(static_cast<intptr_t>(sig)));
    }
  }

  int64_t accesses() const { return accesses_; }

 private:
  // The window's [start, end) and file offset in the thread's address space.
  bool FindWindow(pid_t tid, uint64_t addr, uint64_t* offset) {
    if (addr >= win_start_ && addr < win_end_) {
      *offset = addr - win_start_ + win_file_off_;
      return true;
    }
    std::ifstream maps(fmt::format("/proc/{}/maps", tid));
    std::string line;
    while (std::getline(maps, line)) {
      if (line.size() < regs_path_.size() ||
          line.compare(line.size() - regs_path_.size(), std::string::npos, regs_path_) != 0)
        continue;
      std::istringstream in(line);
      std::string range, perms, off;
      in >> range >> perms >> off;
      win_start_ = std::strtoull(range.c_str(), nullptr, 16);
      win_end_ = std::strtoull(range.c_str() + range.find('-') + 1, nullptr, 16);
      win_file_off_ = std::strtoull(off.c_str(), nullptr, 16);
      if (addr >= win_start_ && addr < win_end_) {
        *offset = addr - win_start_ + win_file_off_;
        return true;
      }
    }
    return false;
  }

  // A SIGBUS in the window: one register access. False: not the window's.
  bool Serve(pid_t tid) {
    siginfo_t si{};
    if (::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si) != 0) return false;
    uint64_t offset = 0;
    if (!FindWindow(tid, reinterpret_cast<uint64_t>(si.si_addr), &offset)) return false;
    user_regs_struct r{};
    ::ptrace(PTRACE_GETREGS, tid, nullptr, &r);
    uint8_t code[16];
    for (int w = 0; w < 2; ++w) {
      const long v = ::ptrace(PTRACE_PEEKTEXT, tid, reinterpret_cast<void*>(r.rip + 8 * w), nullptr);
      std::memcpy(code + 8 * w, &v, 8);
    }
    // Legacy prefixes and REX; then mov r32<-m32 (8B), m32<-r32 (89), m32<-imm32 (C7).
    int i = 0;
    bool rex_w = false;
    while (i < 15 && (code[i] == 0x2E || code[i] == 0x3E || code[i] == 0x26 || code[i] == 0x64 || code[i] == 0x65 ||
                      code[i] == 0x36 || code[i] == 0xF0 || code[i] == 0x67))
      ++i;
    if ((code[i] & 0xF0) == 0x40) rex_w = (code[i++] & 0x08) != 0;
    const bool read = code[i] == 0x8B, write = code[i] == 0x89 || code[i] == 0xC7;
    if ((!read && !write) || rex_w || offset % 4 != 0 || offset + 4 > kWindowBytes) {
      ::kill(tid, SIGKILL);
      Die(
          fmt::format("unsupported access to the register window at offset 0x{:x} (instruction bytes {:02x} {:02x} "
                      "{:02x} at 0x{:x}): the window takes aligned 32-bit mov loads and stores",
                      offset, code[i], code[i + 1], code[i + 2], r.rip));
    }
    ++accesses_;
    const uint32_t reg = static_cast<uint32_t>(offset);
    uint32_t value = 0;
    if (read && stuck_ && run_open_ && reg == regs::kStatus) {
      value = regs::kStatusBusy;  // a hung accelerator: its run never ends
    } else if (read) {
      if (reg == regs::kStatus) Clocking::Advance(dev_.get());
      value = dev_->ReadReg(reg);
      if (reg == regs::kStatus && run_open_ && (value & (regs::kStatusDone | regs::kStatusError))) {
        run_open_ = false;
        DeviceToBuffer();
      }
    }
    if (::ftruncate(regs_fd_, kWindowBytes) != 0 ||
        (read && ::pwrite(regs_fd_, &value, 4, static_cast<off_t>(offset)) != 4))
      Die("cannot fill the register window");
    Step(tid);
    if (write && ::pread(regs_fd_, &value, 4, static_cast<off_t>(offset)) != 4) Die("cannot read the window");
    if (::ftruncate(regs_fd_, 0) != 0) Die("cannot empty the register window");
    if (write) {
      if (reg == regs::kCtrl && (value & regs::kCtrlStart)) {
        BufferToDevice();
        run_open_ = true;
      }
      dev_->WriteReg(reg, value);
    }
    return true;
  }

  // Executes the faulting instruction with the window's page present.
  void Step(pid_t tid) {
    int st = 0;
    ::ptrace(PTRACE_SINGLESTEP, tid, nullptr, nullptr);
    if (::waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
      ::kill(tid, SIGKILL);
      Die("the command did not complete its register access");
    }
  }

  // The host's writes reach the model's DRAM (tmpfs keeps a sparse file's holes: only data is copied).
  void BufferToDevice() {
    for (off_t p = 0;;) {
      const off_t data = ::lseek(dma_fd_, p, SEEK_DATA);
      if (data < 0) break;
      off_t hole = ::lseek(dma_fd_, data, SEEK_HOLE);
      if (hole < 0) hole = static_cast<off_t>(dram_bytes_);
      Status s = dev_->Write(static_cast<uint64_t>(data), dma_ + data, static_cast<uint64_t>(hole - data));
      if (!s.ok()) Die(s.ToString());
      p = hole;
    }
  }
  // The run's writes reach the buffer.
  void DeviceToBuffer() {
    for (const auto& [addr, n] : dev_->PopulatedRanges()) {
      Status s = dev_->Read(addr, dma_ + addr, n);
      if (!s.ok()) Die(s.ToString());
    }
  }

  std::unique_ptr<Device> dev_;
  bool stuck_;
  std::string dir_, regs_path_, dma_path_, sysfs_;
  int regs_fd_ = -1, dma_fd_ = -1;
  uint8_t* dma_ = nullptr;
  uint64_t dram_bytes_ = 0;
  uint64_t win_start_ = 0, win_end_ = 0, win_file_off_ = 0;
  bool run_open_ = false;
  int64_t accesses_ = 0;
};

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  using namespace tessera;
  std::string config;
  bool stuck = false;
  std::vector<std::string> command;  // @REGS@, @DMA@, @SYSFS@: the window, the DMA buffer, its sysfs directory
  CLI::App app{"The Verilated tsr_accel served to an mmio link in another process"};
  app.add_option("-c,--config", config, "hardware config (JSON)")->required();
  app.add_flag("--stuck", stuck, "a device that never finishes a run");
  app.add_option("command", command, "-- COMMAND ARGS")->required();
  CLI11_PARSE(app, argc, argv);
  StatusOr<HwConfig> cfg = LoadHwConfig(config);
  if (!cfg.ok()) Die(cfg.status().ToString());
  StatusOr<std::unique_ptr<Device>> dev = OpenDevice("rtl", *cfg);
  if (!dev.ok()) Die(dev.status().ToString());
  Board board(std::move(*dev), stuck);
  board.MakeFiles();
  const int rc = board.Run(command);
  std::fprintf(stderr, "fpga_zynq_sim: %lld register accesses served\n", static_cast<long long>(board.accesses()));
  return rc;
}
