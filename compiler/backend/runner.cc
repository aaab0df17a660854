#include "compiler/backend/runner.h"

#include <chrono>
#include <map>

#include "compiler/backend/constants.h"
#include "compiler/backend/graph_serde.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/backend/tsr_check.h"
#include "compiler/exec/executor.h"
#include "compiler/exec/kernel.h"
#include "driver/registry.h"
#include "isa/base/math.h"
#include "isa/isa.h"
#include "runtime/runtime.h"
#include "sim/trace.h"

namespace tessera::backend {
namespace {

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Patches of a convolution input: [N, C, H, W] -> [N, C*kh*kw, oh*ow, 1];
// padding positions hold the input's zero point `pad`.
void Im2col(const ir::Tensor& x, const tsr::Step& st, int8_t pad, std::vector<int8_t>* patches) {
  const auto& sh = x.shape();
  const int64_t n = sh[0], c = sh[1], h = sh[2], w = sh[3];
  const int64_t kh = st.im2col(0), kw = st.im2col(1), sy = st.im2col(2), sx = st.im2col(3), pt = st.im2col(4),
                pl = st.im2col(5), oh = st.im2col(6), ow = st.im2col(7);
  const int64_t k_all = c * kh * kw, pix = oh * ow;
  std::vector<int8_t>& out = *patches;
  out.assign(static_cast<size_t>(n * k_all * pix), pad);
  const int8_t* xd = x.data<int8_t>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j) {
          int8_t* row = &out[static_cast<size_t>((b * k_all + (ci * kh + i) * kw + j) * pix)];
          for (int64_t y = 0; y < oh; ++y) {
            const int64_t ih = y * sy - pt + i;
            if (ih < 0 || ih >= h) continue;
            for (int64_t xo = 0; xo < ow; ++xo) {
              const int64_t iw = xo * sx - pl + j;
              if (iw >= 0 && iw < w) row[y * ow + xo] = xd[((b * c + ci) * h + ih) * w + iw];
            }
          }
        }
}

}  // namespace

struct ModelRunner::Impl {
  const tsr::Model* model = nullptr;
  HwConfig cfg;
  std::unique_ptr<ir::Graph> graph;
  std::string target;
  bool has_timing = false;
  int64_t timeout_ms = -1;
  TraceSink* trace = nullptr;
  int64_t trace_cycles = 0;  // device time so far (the trace's timeline)
  // cpu target
  std::unique_ptr<exec::Executor> executor;
  // accelerator targets
  std::unique_ptr<Runtime> rt;
  std::map<std::string, Buffer> buffers;
  struct DevValue {
    std::string buffer;
    ActShape shape;
    int64_t channel_offset = 0, buffer_channels = 0;  // a channel slice of a wider buffer when > 0
    bool weights = false;                             // shape [G, K, N, 1]: uploaded as weight tiles
  };
  // Copies the packed tiles of dv to (upload) or from the device: one span,
  // or per batch block the slice's channel blocks of its buffer.
  Status CopyPacked(bool upload, const DevValue& dv, uint8_t* packed) {
    const Buffer& b = buffers.at(dv.buffer);
    const uint64_t bytes = static_cast<uint64_t>(ActBytes(cfg, dv.shape));
    if (dv.buffer_channels == 0) return upload ? rt->CopyIn(b, packed, bytes) : rt->CopyOut(b, packed, bytes);
    const int64_t nb = CeilDiv(dv.shape.n, cfg.batch), plane = dv.shape.h * dv.shape.w;
    const uint64_t span = bytes / static_cast<uint64_t>(nb);
    const uint64_t pitch =
        static_cast<uint64_t>(CeilDiv(dv.buffer_channels, cfg.block_in) * plane) * cfg.inp_tile_bytes;
    const uint64_t first = static_cast<uint64_t>(dv.channel_offset / cfg.block_in * plane) * cfg.inp_tile_bytes;
    for (int64_t i = 0; i < nb; ++i) {
      uint8_t* p = packed + i * span;
      const uint64_t at = first + i * pitch;
      TSR_RETURN_IF_ERROR(upload ? rt->CopyIn(b, p, span, at) : rt->CopyOut(b, p, span, at));
    }
    return OkStatus();
  }
  std::map<std::string, DevValue> dev_values;
  std::vector<std::unique_ptr<Executable>> exes;  // per step (null when not ACCEL, or streamed)
  std::vector<Recording> recs;                    // per step (ACCEL)
  bool streaming = false;                         // layer code loaded before each layer runs (small DRAMs)
  std::vector<exec::KernelFn> kernels;            // per step (CPU)
  std::vector<const ir::Node*> cpu_nodes;         // per step (CPU)
  // Host staging buffers reused by every upload, download and constant, so
  // that large transfers do not fault in fresh pages each time.
  std::vector<uint8_t> scratch;
  std::vector<int8_t> patches;

  Status Init(const RunnerOptions& opts) {
    TSR_ASSIGN_OR_RETURN(cfg, ParseHwConfig(model->config_json(), "compiled model config"));
    if (opts.device_config && opts.device_config->isa_fingerprint != model->isa_fingerprint())
      return FailedPreconditionError(
          "the model was compiled for config '{}' (isa fingerprint 0x{:016x}) but the device has config '{}' "
          "(0x{:016x}): recompile it with -c for that config",
          cfg.name, model->isa_fingerprint(), opts.device_config->name, opts.device_config->isa_fingerprint);
    if (opts.device_config) cfg = *opts.device_config;  // same ISA; its timing parameters apply
    TSR_ASSIGN_OR_RETURN(graph, GraphFromProto(model->graph()));
    TSR_RETURN_IF_ERROR(CheckModel(*model, cfg, *graph));
    target = opts.target;
    timeout_ms = opts.timeout_ms;
    trace = opts.trace;
    TSR_ASSIGN_OR_RETURN(const BackendInfo* backend, FindBackend(target));
    has_timing = backend->has_timing;
    if (!backend->is_device()) {  // cpu: the int8 reference executor runs the whole graph
      TSR_RETURN_IF_ERROR(CheckBackendOptions(*backend, opts.backend));
      if (trace) return InvalidArgumentError("target '{}' has no timing: it cannot write an instruction trace", target);
      TSR_ASSIGN_OR_RETURN(executor, exec::Executor::Create(*graph));
      return OkStatus();
    }
    // Deserialize the layers, then size the device's code region: every
    // layer's code resident if it fits next to the buffers, else room for the
    // largest layer, whose code is then loaded before each run of it.
    recs.resize(model->steps_size());
    std::vector<const Recording*> accel_recs;
    for (int i = 0; i < model->steps_size(); ++i) {
      const tsr::Step& st = model->steps(i);
      if (st.kind() != tsr::Step::ACCEL) continue;
      std::vector<uint8_t> bytes(st.recording().begin(), st.recording().end());
      TSR_ASSIGN_OR_RETURN(recs[i], Recording::Deserialize(bytes, "layer '" + st.node() + "'"));
      accel_recs.push_back(&recs[i]);
    }
    // The device's own rounding rules say what the buffers and the code take.
    const DeviceMemoryLayout layout = MemoryLayoutOf(cfg);
    uint64_t data = 0;
    for (const tsr::DeviceBuffer& b : model->buffers()) data += layout.Rounded(b.bytes(), MemPool::kData);
    const CodeFootprint code = CodeFootprintOf(accel_recs, layout);
    const uint64_t avail = layout.MaxCodeRegion(data);
    DeviceOptions dopts;
    dopts.trace = trace;
    dopts.backend = opts.backend;
    if (code.resident <= avail) {
      dopts.code_region_bytes = std::max<uint64_t>(code.resident, 4096);
    } else if (code.streamed <= avail) {
      dopts.code_region_bytes = avail;
      streaming = true;
    } else {
      return ResourceExhaustedError(
          "the model does not fit the device's DRAM of {} bytes: {} bytes of buffers and {} bytes of code with only "
          "the largest layer's loaded (config '{}')",
          cfg.dram_size_bytes, data, code.streamed, cfg.name);
    }
    TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev,
                         opts.open_device ? opts.open_device(cfg, dopts) : OpenDevice(target, cfg, dopts));
    TSR_ASSIGN_OR_RETURN(rt, Runtime::Create(std::move(dev)));
    // Constants are packed from the graph into one reused buffer, sized once for the largest, and copied in.
    uint64_t largest = 0;
    for (const tsr::DeviceBuffer& b : model->buffers())
      if (IsConstantBuffer(b)) largest = std::max(largest, b.bytes());
    scratch.reserve(std::min(largest, cfg.dram_size_bytes));  // larger ones fail to allocate below
    for (const tsr::DeviceBuffer& b : model->buffers()) {
      if (buffers.count(b.name())) return DataLossError("compiled model: device buffer '{}' appears twice", b.name());
      TSR_ASSIGN_OR_RETURN(Buffer buf, rt->Alloc(b.bytes(), b.name()));
      if (IsConstantBuffer(b)) {
        TSR_ASSIGN_OR_RETURN(const uint8_t* bytes, ConstantContents(cfg, *graph, b, &scratch));
        TSR_RETURN_IF_ERROR(rt->CopyIn(buf, bytes, b.bytes()));
      }
      buffers[b.name()] = buf;
    }
    for (const tsr::DeviceValue& v : model->device_values()) {
      if (v.act_shape_size() != 4 || !buffers.count(v.buffer()))
        return DataLossError("compiled model: device value '{}' is malformed", v.value());
      dev_values[v.value()] = {v.buffer(), ActShape{v.act_shape(0), v.act_shape(1), v.act_shape(2), v.act_shape(3)},
                               v.channel_offset(), v.buffer_channels(), v.weights()};
    }
    exes.resize(model->steps_size());
    kernels.resize(model->steps_size());
    cpu_nodes.resize(model->steps_size(), nullptr);
    for (int i = 0; i < model->steps_size(); ++i) {
      const tsr::Step& st = model->steps(i);
      if (st.kind() == tsr::Step::ACCEL) {
        for (const std::string& b : st.slot_buffers())
          if (!buffers.count(b)) return DataLossError("layer '{}': unknown buffer '{}'", st.node(), b);
        if (!streaming) TSR_RETURN_IF_ERROR(LoadLayer(i));
      } else if (st.kind() == tsr::Step::CPU) {
        const ir::Value* v = graph->FindValue(st.value());
        if (v == nullptr || v->producer() == nullptr)
          return DataLossError("compiled model: CPU step for unknown node '{}'", st.node());
        cpu_nodes[i] = v->producer();
        TSR_ASSIGN_OR_RETURN(kernels[i], exec::MakeKernel(*cpu_nodes[i]));
      } else if (!dev_values.count(st.device_value())) {
        return DataLossError("compiled model: transfer of unknown device value '{}'", st.device_value());
      }
    }
    return OkStatus();
  }

  // Loads step i's recording into device code memory and binds its buffers.
  Status LoadLayer(int i) {
    const tsr::Step& st = model->steps(i);
    TSR_ASSIGN_OR_RETURN(Executable exe, rt->Load(recs[i]));
    for (int s = 0; s < st.slot_buffers_size(); ++s)
      TSR_RETURN_IF_ERROR(exe.Bind(s, buffers.at(st.slot_buffers(s))).WithContext("layer '" + st.node() + "'"));
    exes[i] = std::make_unique<Executable>(std::move(exe));
    return OkStatus();
  }

  StatusOr<std::vector<ir::Tensor>> Run(const std::vector<ir::Tensor>& inputs, RunProfile* prof) {
    const double t0 = Now();
    if (inputs.size() != graph->inputs().size())
      return InvalidArgumentError("the model takes {} input(s), {} given", graph->inputs().size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::TensorType& t = graph->inputs()[i]->type();
      if (inputs[i].dtype() != t.dtype || inputs[i].shape() != t.shape)
        return InvalidArgumentError("input '{}' must be {}, got {}{}", graph->inputs()[i]->name(), ir::TypeToString(t),
                                    std::string(ir::DTypeName(inputs[i].dtype())),
                                    ir::ShapeToString(inputs[i].shape()));
    }
    if (executor) {
      auto out = executor->Run(inputs);
      if (prof) prof->host_seconds = prof->cpu_seconds = Now() - t0;
      return out;
    }
    std::map<std::string, ir::Tensor> host;
    for (size_t i = 0; i < inputs.size(); ++i) host[graph->inputs()[i]->name()] = inputs[i];
    RunProfile local;
    RunProfile& p = prof ? *prof : local;
    p = RunProfile();
    for (int i = 0; i < model->steps_size(); ++i) {
      const tsr::Step& st = model->steps(i);
      const double s0 = Now();
      switch (st.kind()) {
        case tsr::Step::UPLOAD: {
          auto it = host.find(st.value());
          if (it == host.end()) return InternalError("step {}: '{}' is not on the host", i, st.value());
          const DevValue& dv = dev_values.at(st.device_value());
          if (dv.weights) {  // a qbatch_matmul's second operand, transposed into weight tiles
            PackMatrixBatchInto(cfg, dv.shape.n, dv.shape.c, dv.shape.h, it->second.data<int8_t>(), &scratch);
            TSR_RETURN_IF_ERROR(rt->CopyIn(buffers.at(dv.buffer), scratch.data(), scratch.size()));
            p.transfer_seconds += Now() - s0;
            break;
          }
          if (st.im2col_size() == 8) {
            const auto& q = graph->FindValue(st.value())->type().quant;
            const int8_t pad = q && !q->zero_point.empty() ? static_cast<int8_t>(q->zero_point[0]) : 0;
            Im2col(it->second, st, pad, &patches);
            PackActivationInto(cfg, dv.shape, patches.data(), &scratch);
          } else {
            PackActivationInto(cfg, dv.shape, it->second.data<int8_t>(), &scratch);
          }
          TSR_RETURN_IF_ERROR(CopyPacked(true, dv, scratch.data()));
          p.transfer_seconds += Now() - s0;
          break;
        }
        case tsr::Step::DOWNLOAD: {
          const DevValue& dv = dev_values.at(st.device_value());
          const ir::Value* v = graph->FindValue(st.value());
          scratch.resize(static_cast<size_t>(ActBytes(cfg, dv.shape)));
          TSR_RETURN_IF_ERROR(CopyPacked(false, dv, scratch.data()));
          ir::Tensor t(ir::DType::kI8, v->type().shape);
          UnpackActivation(cfg, dv.shape, scratch.data(), t.data<int8_t>());
          host[st.value()] = std::move(t);
          p.transfer_seconds += Now() - s0;
          break;
        }
        case tsr::Step::ACCEL: {
          if (!exes[i]) TSR_RETURN_IF_ERROR(LoadLayer(i));
          TSR_RETURN_IF_ERROR(exes[i]->Run(timeout_ms).WithContext("layer '" + st.node() + "'"));
          LayerProfile lp;
          lp.node = st.node(), lp.op = st.op(), lp.accel = true;
          lp.counters = exes[i]->counters();
          lp.useful_macs = st.useful_macs(), lp.predicted_cycles = st.predicted_cycles();
          lp.host_seconds = Now() - s0;
          if (trace && lp.counters.cycles > 0) {
            trace->Span(4, st.node() + " (" + st.op() + ")", trace_cycles, trace_cycles + lp.counters.cycles, i);
            trace_cycles += lp.counters.cycles;
          }
          p.device.Add(lp.counters);
          p.useful_macs += lp.useful_macs;
          p.layers.push_back(std::move(lp));
          if (streaming) exes[i].reset();  // frees the layer's code for the next one
          break;
        }
        case tsr::Step::CPU: {
          const ir::Node* n = cpu_nodes[i];
          exec::Operands ops;
          for (const ir::Value* v : n->inputs()) {
            if (v->is_constant()) {
              ops.push_back(&v->data());
              continue;
            }
            auto it = host.find(v->name());
            if (it == host.end()) return InternalError("step {}: operand '{}' is not on the host", i, v->name());
            ops.push_back(&it->second);
          }
          std::vector<ir::Tensor> outs;
          for (const ir::Value* v : n->outputs()) outs.emplace_back(v->type().dtype, v->type().shape);
          TSR_RETURN_IF_ERROR(kernels[i](ops, outs).WithContext(n->Describe()));
          for (int k = 0; k < n->num_outputs(); ++k) host[n->output(k)->name()] = std::move(outs[k]);
          LayerProfile lp;
          lp.node = st.node(), lp.op = st.op(), lp.host_seconds = Now() - s0;
          p.cpu_seconds += lp.host_seconds;
          p.layers.push_back(std::move(lp));
          break;
        }
        default: return DataLossError("compiled model: unknown step kind {}", static_cast<int>(st.kind()));
      }
    }
    std::vector<ir::Tensor> out;
    for (const ir::Value* v : graph->outputs()) {
      auto it = host.find(v->name());
      if (it == host.end()) return InternalError("output '{}' was never computed", v->name());
      out.push_back(std::move(it->second));
    }
    p.host_seconds = Now() - t0;
    return out;
  }
};

ModelRunner::ModelRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModelRunner::~ModelRunner() = default;

StatusOr<std::unique_ptr<ModelRunner>> ModelRunner::Create(const tsr::Model& model, const RunnerOptions& opts) {
  auto impl = std::make_unique<Impl>();
  impl->model = &model;
  TSR_RETURN_IF_ERROR(impl->Init(opts));
  return std::unique_ptr<ModelRunner>(new ModelRunner(std::move(impl)));
}

StatusOr<std::vector<ir::Tensor>> ModelRunner::Run(const std::vector<ir::Tensor>& inputs, RunProfile* profile) {
  return impl_->Run(inputs, profile);
}

const HwConfig& ModelRunner::config() const { return impl_->cfg; }
const ir::Graph& ModelRunner::graph() const { return *impl_->graph; }
bool ModelRunner::has_timing() const { return impl_->has_timing; }

}  // namespace tessera::backend
