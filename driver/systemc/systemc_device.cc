// The `systemc` backend: the SystemC model (hw/systemc) attached to the
// bundled memory target, behind the register protocol. Each device owns a
// SystemC simulation context of its own (so a process can open, close and
// reopen devices, which plain SystemC allows once per process) and makes it
// current around every call. Register accesses are TLM transactions into the
// accelerator's register socket; host copies use the memory's back door (a
// host's DMA); waiting runs the simulation kernel.
#include <tlm_utils/simple_initiator_socket.h>

#include <systemc>

#include "driver/registry.h"
#include "hw/systemc/accelerator.h"
#include "hw/systemc/context.h"
#include "hw/systemc/memory.h"

namespace tessera {
namespace {

constexpr char kQuantum[] = "quantum-cycles";
constexpr int64_t kDefaultQuantumCycles = 100000;

class Platform : public sc_core::sc_module {
 public:
  Platform(sc_core::sc_module_name name, const HwConfig& cfg, int64_t quantum_cycles)
      : sc_module(name),
        accelerator("accelerator", cfg, systemc::ClockPeriod(cfg) * static_cast<double>(quantum_cycles)),
        memory("memory", cfg),
        host("host"),
        irq("irq") {
    accelerator.mem.bind(memory.socket);
    host.bind(accelerator.regs);
    accelerator.irq.bind(irq);
  }

  systemc::Accelerator accelerator;
  systemc::Memory memory;
  tlm_utils::simple_initiator_socket<Platform> host;
  sc_core::sc_signal<bool> irq;
};

class SystemcDevice final : public Device {
 public:
  SystemcDevice(const HwConfig& cfg, const DeviceOptions& opts, int64_t quantum_cycles)
      : Device(cfg, "systemc", 0, cfg.dram_size_bytes, opts) {
    platform_ = std::make_unique<Platform>("tessera", cfg_, quantum_cycles);
    platform_->accelerator.set_trace(opts.trace);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaborate; the accelerator waits for START
  }
  ~SystemcDevice() override {
    context_.Activate();
    platform_.reset();
  }

  bool has_timing() const override { return true; }

  Status Write(uint64_t phys, const void* src, uint64_t n) override {
    Status s = platform_->memory.dram().Write(phys, src, n);
    return s.ok() ? s : s.WithContext("device 'systemc' write");
  }
  Status Read(uint64_t phys, void* dst, uint64_t n) const override {
    Status s = platform_->memory.dram().Read(phys, dst, n);
    return s.ok() ? s : s.WithContext("device 'systemc' read");
  }
  std::vector<std::pair<uint64_t, uint64_t>> PopulatedRanges() const override {
    return platform_->memory.dram().AllocatedRanges();
  }

  uint32_t ReadReg(uint32_t offset) override {
    uint32_t v = 0;
    Transport(tlm::TLM_READ_COMMAND, offset, &v);
    return v;
  }
  void WriteReg(uint32_t offset, uint32_t value) override { Transport(tlm::TLM_WRITE_COMMAND, offset, &value); }

 protected:
  // Runs the kernel until the accelerator idles or a slice of device time passes.
  void WhileWaiting() override {
    context_.Activate();
    sc_core::sc_start(platform_->accelerator.clock_period() * 1e6, sc_core::SC_EXIT_ON_STARVATION);
  }
  std::string ErrorDetail() const override { return platform_->accelerator.error_detail(); }

 private:
  void Transport(tlm::tlm_command cmd, uint32_t offset, uint32_t* data) {
    context_.Activate();
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(data));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    platform_->host->b_transport(gp, delay);
    TSR_CHECK(gp.is_response_ok(), "register access at 0x{:x}: {}", offset, gp.get_response_string());
  }

  systemc::SimContext context_;
  std::unique_ptr<Platform> platform_;
};

StatusOr<std::unique_ptr<Device>> OpenSystemc(const HwConfig& cfg, const DeviceOptions& opts) {
  const int64_t quantum = opts.backend.Int(kQuantum, kDefaultQuantumCycles);
  if (quantum <= 0) return InvalidArgumentError("--{} must be positive (got {})", kQuantum, quantum);
  return std::unique_ptr<Device>(std::make_unique<SystemcDevice>(cfg, opts, quantum));
}

}  // namespace

BackendInfo SystemcBackend() {
  BackendInfo b;
  b.name = "systemc";
  b.description = "the SystemC/TLM-2.0 model (hw/systemc) with the contract's memory target";
  b.has_timing = true;
  b.open = OpenSystemc;
  b.options = {{kQuantum, BackendOptionType::kInt,
                "temporal-decoupling quantum in clock cycles (default 100000); results do not depend on it"}};
  return b;
}

}  // namespace tessera
