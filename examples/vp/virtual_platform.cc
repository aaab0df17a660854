// virtual_platform: the template of a SystemC virtual platform with the
// accelerator (docs/systemc.md). One bus (a Router), the contract's memory
// target, the accelerator and a host CPU process:
//
//   host ──┐                    ┌── memory   [0, dram_size)
//          ├── bus (Router) ────┤
//   accel.mem ┘                 └── accel.regs [kRegBase, +window)
//   accel.irq ──► host
//
// The host plays the CPU running Tessera's runtime: its Device (VpDevice)
// turns every register access and every host<->DRAM copy into a TLM
// transaction on the bus and waits for the interrupt between STATUS polls.
// It compiles the digits CNN, runs its test inputs through the model
// session on that device and prints the accuracy and the device cycles.
#include <tlm_utils/simple_initiator_socket.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <systemc>

#include "compiler/backend/compile.h"
#include "compiler/backend/session.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"
#include "driver/device.h"
#include "driver/registry.h"
#include "hw/systemc/accelerator.h"
#include "hw/systemc/memory.h"
#include "hw/systemc/router.h"
#include "isa/regs.h"

namespace tessera::vp {
namespace {

using sc_core::sc_time;

constexpr uint64_t kRegBase = uint64_t{1} << 40;  // above any DRAM a config can have

// The host's view of the accelerator: the runtime's Device over the bus.
class VpDevice final : public Device {
 public:
  VpDevice(const HwConfig& cfg, const DeviceOptions& opts, tlm::tlm_initiator_socket<>& bus, sc_core::sc_in<bool>& irq)
      : Device(cfg, "vp", 0, cfg.dram_size_bytes, opts), bus_(bus), irq_(irq) {
    WriteReg(regs::kIrqEnable, 1);
  }
  bool has_timing() const override { return true; }

  Status Write(uint64_t phys, const void* src, uint64_t n) override {
    return Copy(tlm::TLM_WRITE_COMMAND, phys, const_cast<void*>(src), n);
  }
  Status Read(uint64_t phys, void* dst, uint64_t n) const override {
    return const_cast<VpDevice*>(this)->Copy(tlm::TLM_READ_COMMAND, phys, dst, n);
  }
  uint32_t ReadReg(uint32_t offset) override {
    uint32_t v = 0;
    TSR_CHECK(Transport(tlm::TLM_READ_COMMAND, kRegBase + offset, &v, 4), "register read at 0x{:x}", offset);
    return v;
  }
  void WriteReg(uint32_t offset, uint32_t value) override {
    TSR_CHECK(Transport(tlm::TLM_WRITE_COMMAND, kRegBase + offset, &value, 4), "register write at 0x{:x}", offset);
  }
  int64_t interrupts() const { return interrupts_; }

 protected:
  // The CPU sleeps until the accelerator interrupts (or a millisecond passes).
  void WhileWaiting() override {
    sc_core::wait(sc_time(1, sc_core::SC_MS), irq_.posedge_event());
    if (irq_.read()) ++interrupts_;
  }

 private:
  Status Copy(tlm::tlm_command cmd, uint64_t phys, void* data, uint64_t n) {
    constexpr uint64_t kChunk = 4096;  // the host's DMA bursts
    auto* p = static_cast<unsigned char*>(data);
    for (uint64_t off = 0; off < n; off += kChunk)
      if (!Transport(cmd, phys + off, p + off, std::min(kChunk, n - off)))
        return OutOfRangeError("vp: host {} of {} bytes at DRAM 0x{:x} failed",
                               cmd == tlm::TLM_READ_COMMAND ? "read" : "write", n, phys);
    return OkStatus();
  }
  bool Transport(tlm::tlm_command cmd, uint64_t addr, void* data, uint64_t n) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(static_cast<unsigned int>(n));
    gp.set_streaming_width(static_cast<unsigned int>(n));
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    bus_->b_transport(gp, delay);
    sc_core::wait(delay);  // the host is not decoupled: it waits out each access
    return gp.is_response_ok();
  }

  tlm::tlm_initiator_socket<>& bus_;
  sc_core::sc_in<bool>& irq_;
  int64_t interrupts_ = 0;
};

struct Args {
  std::string dir, config = "configs/default.json";
  int64_t quantum_cycles = 100000;
};

// The CPU: compiles nothing itself (the model arrives compiled), opens a
// session on its VpDevice and runs the test inputs.
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> bus;
  sc_core::sc_in<bool> irq;

  Host(sc_core::sc_module_name name, std::unique_ptr<tsr::Model> model, ir::Tensor x, ir::Tensor labels)
      : sc_module(name),
        bus("bus"),
        irq("irq"),
        model_(std::move(model)),
        x_(std::move(x)),
        labels_(std::move(labels)) {
    SC_THREAD(Main);
    set_stack_size(64 << 20);  // the runtime and the session run on this thread
  }
  SC_HAS_PROCESS(Host);

  Status result() const { return result_; }

 private:
  void Main() {
    result_ = Run();
    sc_core::sc_stop();
  }

  Status Run() {
    backend::SessionOptions so;
    so.target = "systemc";  // the registry row the device behaves as (a device with timing)
    so.open_device = [this](const HwConfig& cfg, const DeviceOptions& opts) -> StatusOr<std::unique_ptr<Device>> {
      return std::unique_ptr<Device>(std::make_unique<VpDevice>(cfg, opts, bus, irq));
    };
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<backend::Session> session, backend::Session::Open(std::move(model_), so));
    TSR_ASSIGN_OR_RETURN(backend::RunResult r, session->Run({x_}));
    const ir::Tensor& y = r.outputs[0];
    const int64_t n = y.dim(0), classes = y.nbytes() / static_cast<int64_t>(sizeof(float)) / n;
    if (labels_.dtype() != ir::DType::kI64 || labels_.dim(0) != n)
      return InvalidArgumentError("test_y.npy: expected {} int64 labels", n);
    int64_t correct = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float* row = y.data<float>() + i * classes;
      correct += std::max_element(row, row + classes) - row == labels_.data<int64_t>()[i];
    }
    std::printf("%lld inputs: %s\n", static_cast<long long>(n), session->Summary(r.stats).c_str());
    std::printf("device cycles %lld, simulated time %s\n", static_cast<long long>(r.stats.device.cycles),
                sc_core::sc_time_stamp().to_string().c_str());
    std::printf("top-1 accuracy %.4f\n", static_cast<double>(correct) / static_cast<double>(n));
    return OkStatus();
  }

  std::unique_ptr<tsr::Model> model_;
  ir::Tensor x_, labels_;
  Status result_;
};

StatusOr<std::unique_ptr<tsr::Model>> CompileDigits(const Args& a, const HwConfig& cfg) {
  TSR_ASSIGN_OR_RETURN(ir::Tensor calib, compiler::LoadNpyTensor(a.dir + "/calib.npy"));
  compiler::CompileOptions co;
  co.import.symbolic_dim_value = 1;
  co.quantize = true;
  co.calibration = &calib;
  TSR_ASSIGN_OR_RETURN(compiler::CompileResult front, compiler::Compile(a.dir + "/model.onnx", co));
  return backend::CompileGraph(*front.graph, cfg);
}

Status Main(const Args& a) {
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(a.config));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<tsr::Model> model, CompileDigits(a, cfg));
  TSR_ASSIGN_OR_RETURN(ir::Tensor x, compiler::LoadNpyTensor(a.dir + "/test_x.npy"));
  TSR_ASSIGN_OR_RETURN(ir::Tensor labels, compiler::LoadNpyTensor(a.dir + "/test_y.npy"));

  systemc::Router bus("bus");
  systemc::Memory memory("memory", cfg);
  systemc::Accelerator accel("accelerator", cfg, systemc::ClockPeriod(cfg) * static_cast<double>(a.quantum_cycles));
  Host host("host", std::move(model), std::move(x), std::move(labels));
  sc_core::sc_signal<bool> irq("irq");
  host.bus.bind(bus.targets);
  accel.mem.bind(bus.targets);
  bus.Map(memory.socket, 0, cfg.dram_size_bytes);
  bus.Map(accel.regs, kRegBase, regs::kRegisterWindowBytes);
  accel.irq.bind(irq);
  host.irq.bind(irq);
  sc_core::sc_start();
  return host.result();
}

}  // namespace
}  // namespace tessera::vp

int sc_main(int argc, char** argv) {
  tessera::vp::Args a;
  CLI::App app{"a SystemC virtual platform: host CPU, bus, memory and the accelerator running the digits CNN"};
  app.add_option("dir", a.dir, "directory with model.onnx, calib.npy, test_x.npy, test_y.npy")->required();
  app.add_option("-c,--config", a.config, "hardware config JSON")->capture_default_str();
  app.add_option("--quantum-cycles", a.quantum_cycles, "the accelerator's temporal-decoupling quantum")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  tessera::Status s = tessera::vp::Main(a);
  if (!s.ok()) {
    std::fprintf(stderr, "virtual_platform: error: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
