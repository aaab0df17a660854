// CompileGraph: walks the partition in order and records each placement as a
// step: CPU nodes, aliases, accelerator layers (a JIT stream each) and the
// uploads and downloads where host and device values meet.
#include "compiler/backend/compile.h"

#include <map>
#include <optional>
#include <set>

#include "compiler/backend/align_concat.h"
#include "compiler/backend/batch_matmul.h"
#include "compiler/backend/channel_slices.h"
#include "compiler/backend/compile_steps.h"
#include "compiler/backend/constants.h"
#include "compiler/backend/conv_schedule.h"
#include "compiler/backend/conv_shuffle.h"
#include "compiler/backend/cost_model.h"
#include "compiler/backend/graph_serde.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/memory_plan.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/exec/kernel.h"
#include "compiler/ir/verifier.h"
#include "isa/base/check.h"
#include "isa/base/math.h"
#include "isa/config.h"

namespace tessera::backend {
StatusOr<std::unique_ptr<tsr::Model>> Compiler::Run() {
  m_ = std::make_unique<tsr::Model>();
  m_->set_format_version(kTsrFormatVersion);
  m_->set_producer("tessera");
  m_->set_name(opts_.model_name.empty() ? g_.name() : opts_.model_name);
  m_->set_config_json(HwConfigToJson(cfg_));
  m_->set_isa_fingerprint(cfg_.isa_fingerprint);
  GraphToProto(g_, m_->mutable_graph());
  for (const ir::Value* v : g_.inputs()) host_.insert(v->name());
  TSR_ASSIGN_OR_RETURN(std::vector<Placement> parts, Partition(g_, cfg_, opts_.partition));
  slices_ = PlanChannelSlices(cfg_, &parts);
  for (const Placement& p : parts) {
    switch (p.kind) {
      case PlaceKind::kCpu: TSR_RETURN_IF_ERROR(CpuStep(p)); break;
      case PlaceKind::kAlias: TSR_RETURN_IF_ERROR(Alias(p)); break;
      case PlaceKind::kFused:  // a pool: its producer's step computed it; an add: its conv's step runs here
        if (p.carrier >= 0) {
          const Placement& c = parts[static_cast<size_t>(p.carrier)];
          TSR_RETURN_IF_ERROR(AccelStep(c).WithContext(c.node->Describe()));
        }
        break;
      case PlaceKind::kAccel:
        if (!p.fused_add) TSR_RETURN_IF_ERROR(AccelStep(p).WithContext(p.node->Describe()));
        break;
    }
  }
  for (const ir::Value* v : g_.outputs())
    if (!host_.count(v->name())) TSR_RETURN_IF_ERROR(Download(v));
  PlanDeviceMemory(m_.get());
  return std::move(m_);
}

std::string Compiler::NewBuffer(const std::string& name, uint64_t bytes, const std::vector<uint8_t>* data) {
  TSR_CHECK(buffer_index_.emplace(name, m_->buffers_size()).second, "device buffer '{}' declared twice", name);
  tsr::DeviceBuffer* b = m_->add_buffers();
  b->set_name(name);
  b->set_bytes(std::max<uint64_t>(bytes, 1));
  if (data) b->set_data(data->data(), data->size());
  return name;
}

StatusOr<std::string> Compiler::DeviceValue(const ir::Value* v, bool rows) {
  if (auto it = device_.find(v->name()); it != device_.end()) return it->second;
  ActShape s = RowsShapeOf(v->type());
  if (!rows && !ActShapeOf(v->type(), &s.n, &s.c, &s.h, &s.w))
    return UnimplementedError("value '{}' of rank {} has no device layout", v->name(), v->type().rank());
  if (auto sl = slices_.find(v->name()); sl != slices_.end()) {
    TSR_ASSIGN_OR_RETURN(std::string buf, DeviceValue(g_.FindValue(sl->second.root)));
    AddDeviceValue(v->name(), buf, s, &sl->second);
    return buf;
  }
  const std::string buf = NewBuffer("act:" + v->name(), ActBytes(cfg_, s));
  AddDeviceValue(v->name(), buf, s);
  return buf;
}

void Compiler::AddDeviceValue(const std::string& value, const std::string& buffer, const ActShape& s,
                              const ChannelSlice* slice) {
  tsr::DeviceValue* d = m_->add_device_values();
  d->set_value(value);
  d->set_buffer(buffer);
  for (int64_t x : {s.n, s.c, s.h, s.w}) d->add_act_shape(x);
  if (slice) d->set_channel_offset(slice->offset), d->set_buffer_channels(slice->channels);
  device_[value] = buffer;
}

ActView Compiler::ViewOf(Slot s, const ir::Value* v, int64_t c_blocks, int64_t h, int64_t w) const {
  ActView view = NchwView(s, c_blocks, h, w);
  if (auto sl = slices_.find(v->name()); sl != slices_.end()) {
    view.base = sl->second.offset / cfg_.block_in * h * w;
    view.stride_n = CeilDiv(sl->second.channels, cfg_.block_in) * h * w;
  }
  return view;
}

Status Compiler::Upload(const ir::Value* v, bool rows) {
  if (!host_.count(v->name())) return InternalError("value '{}' is neither on the host nor on the device", v->name());
  TSR_RETURN_IF_ERROR(DeviceValue(v, rows).status());  // gives it a device buffer
  AddTransfer(tsr::Step::UPLOAD, v);
  uploaded_.insert(v->name());
  return OkStatus();
}

Status Compiler::Download(const ir::Value* v) {
  AddTransfer(tsr::Step::DOWNLOAD, v);
  host_.insert(v->name());
  return OkStatus();
}

void Compiler::AddTransfer(tsr::Step::Kind kind, const ir::Value* v) {
  tsr::Step* s = m_->add_steps();
  s->set_kind(kind);
  s->set_value(v->name());
  s->set_device_value(v->name());
}

StatusOr<std::string> Compiler::DeviceInput(const ir::Value* v, bool rows) {
  if (device_.count(v->name()) && (produced_on_device_.count(v->name()) || uploaded_.count(v->name())))
    return device_[v->name()];
  TSR_RETURN_IF_ERROR(Upload(v, rows));
  return device_[v->name()];
}

StatusOr<std::string> Compiler::WeightsUpload(const ir::Value* b, const ir::Node* n) {
  if (!host_.count(b->name())) TSR_RETURN_IF_ERROR(Download(b));
  const ir::Shape& t = b->type().shape;
  const int64_t k = t[t.size() - 2], cols = t.back(), groups = b->type().numel() / (k * cols);
  const std::string dv = b->name() + "@weights:" + n->output()->name();
  const uint64_t bytes = static_cast<uint64_t>(groups) * PackedWeightBytes(cfg_, MatrixPacking(cfg_, cols, k));
  const std::string buf = NewBuffer("act:" + dv, bytes);
  tsr::DeviceValue* d = m_->add_device_values();
  d->set_value(dv);
  d->set_buffer(buf);
  for (int64_t x : {groups, k, cols, int64_t{1}}) d->add_act_shape(x);
  d->set_weights(true);
  device_[dv] = buf;
  tsr::Step* s = m_->add_steps();
  s->set_kind(tsr::Step::UPLOAD);
  s->set_value(b->name());
  s->set_device_value(dv);
  uploaded_.insert(b->name());
  return buf;
}

Status Compiler::CpuStep(const Placement& p) {
  for (const ir::Value* v : p.node->inputs())
    if (!v->is_constant() && !host_.count(v->name())) TSR_RETURN_IF_ERROR(Download(v));
  tsr::Step* s = m_->add_steps();
  s->set_kind(tsr::Step::CPU);
  s->set_node(p.node->Label());
  s->set_value(p.node->output(0)->name());  // identifies the node on load
  s->set_op(p.node->op());
  s->set_reason(p.reason);
  for (const ir::Value* v : p.node->outputs()) host_.insert(v->name());
  return OkStatus();
}

Status Compiler::Alias(const Placement& p) {
  const ir::Value* in = p.node->input(0);
  const ir::Value* out = p.node->output();
  if (p.node->op() == "concat") {  // its operands wrote their slices of its buffer
    TSR_RETURN_IF_ERROR(DeviceValue(out).status());
  } else {
    ActShape s;
    ActShapeOf(out->type(), &s.n, &s.c, &s.h, &s.w);
    AddDeviceValue(out->name(), device_.at(in->name()), s);
  }
  produced_on_device_.insert(out->name());
  return OkStatus();
}

StatusOr<std::unique_ptr<tsr::Model>> CompileGraph(const ir::Graph& g, const HwConfig& cfg,
                                                   const BackendOptions& opts) {
  // Stride phases ordered for a device pixel shuffle (conv_shuffle.h) and
  // concats padded to channel blocks to run in place (align_concat.h).
  if (ConcatsInPlace(cfg)) {
    std::unique_ptr<ir::Graph> copy = g.Clone();
    const int shuffles = OrderShufflePhases(*copy, cfg.block_in);
    if (shuffles + AlignChannelConcats(*copy, cfg.block_in) > 0) {
      const Status v = ir::Verify(*copy);
      TSR_CHECK(v.ok(), "shuffle-phase ordering or align-concat built an invalid graph: {}", v.ToString());
      return Compiler(*copy, cfg, opts).Run();
    }
  }
  return Compiler(g, cfg, opts).Run();
}

}  // namespace tessera::backend
