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
namespace {

class Compiler {
 public:
  Compiler(const ir::Graph& g, const HwConfig& cfg, const BackendOptions& opts) : g_(g), cfg_(cfg), opts_(opts) {}

  StatusOr<std::unique_ptr<tsr::Model>> Run() {
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

 private:
  // ---- values and buffers ----
  // Buffer names are unique: activations are "act:<value>", a layer's
  // constants "<kind>:<its first result>" (node names may repeat or be empty).
  std::string NewBuffer(const std::string& name, uint64_t bytes, const std::vector<uint8_t>* data = nullptr) {
    TSR_CHECK(buffer_index_.emplace(name, m_->buffers_size()).second, "device buffer '{}' declared twice", name);
    tsr::DeviceBuffer* b = m_->add_buffers();
    b->set_name(name);
    b->set_bytes(std::max<uint64_t>(bytes, 1));
    if (data) b->set_data(data->data(), data->size());
    return name;
  }

  tsr::DeviceBuffer* Buffer(const std::string& name) { return m_->mutable_buffers(buffer_index_.at(name)); }

  // The device value for an activation, creating its buffer on first use (a
  // value in a channel slice: its root's buffer; `rows`: packed as the rows
  // of a qbatch_matmul operand, batch_matmul.h).
  StatusOr<std::string> DeviceValue(const ir::Value* v, bool rows = false) {
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
  void AddDeviceValue(const std::string& value, const std::string& buffer, const ActShape& s,
                      const ChannelSlice* slice = nullptr) {
    tsr::DeviceValue* d = m_->add_device_values();
    d->set_value(value);
    d->set_buffer(buffer);
    for (int64_t x : {s.n, s.c, s.h, s.w}) d->add_act_shape(x);
    if (slice) d->set_channel_offset(slice->offset), d->set_buffer_channels(slice->channels);
    device_[value] = buffer;
  }
  // The tiles of activation v (c_blocks x h x w per batch block) in slot s.
  ActView ViewOf(Slot s, const ir::Value* v, int64_t c_blocks, int64_t h, int64_t w) const {
    ActView view = NchwView(s, c_blocks, h, w);
    if (auto sl = slices_.find(v->name()); sl != slices_.end()) {
      view.base = sl->second.offset / cfg_.block_in * h * w;
      view.stride_n = CeilDiv(sl->second.channels, cfg_.block_in) * h * w;
    }
    return view;
  }

  Status Upload(const ir::Value* v, bool rows = false) {
    if (!host_.count(v->name())) return InternalError("value '{}' is neither on the host nor on the device", v->name());
    TSR_RETURN_IF_ERROR(DeviceValue(v, rows).status());  // gives it a device buffer
    AddTransfer(tsr::Step::UPLOAD, v);
    uploaded_.insert(v->name());
    return OkStatus();
  }
  Status Download(const ir::Value* v) {
    AddTransfer(tsr::Step::DOWNLOAD, v);
    host_.insert(v->name());
    return OkStatus();
  }
  void AddTransfer(tsr::Step::Kind kind, const ir::Value* v) {
    tsr::Step* s = m_->add_steps();
    s->set_kind(kind);
    s->set_value(v->name());
    s->set_device_value(v->name());
  }
  // An activation input of an accelerator layer: on the device already, or uploaded now.
  StatusOr<std::string> DeviceInput(const ir::Value* v, bool rows = false) {
    if (device_.count(v->name()) && (produced_on_device_.count(v->name()) || uploaded_.count(v->name())))
      return device_[v->name()];
    TSR_RETURN_IF_ERROR(Upload(v, rows));
    return device_[v->name()];
  }
  // A qbatch_matmul's second operand b [..., K, N], uploaded as G weight
  // matrices b_g^T (a host repack; a device result is downloaded first).
  StatusOr<std::string> WeightsUpload(const ir::Value* b, const ir::Node* n) {
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

  // ---- steps ----
  Status CpuStep(const Placement& p) {
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

  Status Alias(const Placement& p) {
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

  // A GEMM layer's schedule (conv_schedule.h), as the options ask.
  StatusOr<ScheduleChoice> Schedule(Stream& s, const Placement& p, const EmitLayerFn& emit) {
    return EmitScheduled(s, cfg_, opts_.conv_schedule, p.geo, p.epilogue, p.nonzero, p.tiling, emit);
  }

  // The placement's reason with the GEMM layer's schedule: its tiling if that
  // changed, and which schedule it runs.
  std::string Reason(const Placement& p, const std::optional<ScheduleChoice>& schedule) const {
    std::string r = p.reason;
    if (!schedule) return r;
    const std::string planned = p.tiling.ToString(), kept = schedule->tiling.ToString();
    if (size_t at = r.find(planned); at != std::string::npos && kept != planned) r.replace(at, planned.size(), kept);
    const std::string d = schedule->Describe(cfg_);
    return d.empty() ? r : r + "; " + d;
  }

  Status AccelStep(const Placement& p) {
    const ir::Node* n = p.node;
    Stream stream(cfg_, n->Label());
    std::optional<ScheduleChoice> schedule;  // GEMM layers
    std::vector<std::string> slot_buffers;
    std::map<std::string, Slot> slots;  // one slot per buffer (slices of one buffer share it)
    auto slot = [&](const std::string& buffer, uint64_t bytes) -> StatusOr<Slot> {
      if (auto it = slots.find(buffer); it != slots.end()) return it->second;
      slot_buffers.push_back(buffer);
      TSR_ASSIGN_OR_RETURN(Slot s, stream.DeclareSlot(buffer, std::max<uint64_t>(bytes, 1)));
      return slots[buffer] = s;
    };
    auto buffer_bytes = [&](const std::string& name) -> uint64_t { return Buffer(name)->bytes(); };
    auto buffer_slot = [&](const std::string& buffer) { return slot(buffer, buffer_bytes(buffer)); };
    // ALU parameter rows (each value broadcast over a row) in a new buffer named after `owner`'s output.
    auto param_rows = [&](const ir::Node* owner, const std::vector<int64_t>& values) -> StatusOr<Slot> {
      std::vector<uint8_t> pp = PackBroadcastRows(cfg_, static_cast<int64_t>(values.size()), values);
      return slot(NewBuffer("p:" + owner->output()->name(), pp.size(), &pp), pp.size());
    };
    // What every GEMM layer's codegen shares: geometry, tiling, requantize, and its channel parameters
    // packed into a new buffer; the weight and parameter slots follow the caller's input and output slots.
    auto gemm_layer = [&](const ConvBlocking& blocks, const std::string& wb) -> StatusOr<ConvCodegen> {
      const std::string pb = NewBuffer("p:" + n->output()->name(), PackedChannelParamBytes(cfg_, p.geo.oc));
      SetChannelParamPacking(cfg_, *n, p.geo.oc, Buffer(pb));
      ConvCodegen c;
      c.name = n->Label();
      c.geo = p.geo, c.blocks = blocks, c.tiling = p.tiling;
      TSR_ASSIGN_OR_RETURN(c.weights, buffer_slot(wb));
      TSR_ASSIGN_OR_RETURN(c.params, buffer_slot(pb));
      c.shift = static_cast<int>(n->attrs().Int("shift"));
      c.act_min = n->attrs().Int("act_min", -128);
      c.act_max = n->attrs().Int("act_max", 127);
      return c;
    };
    switch (p.op) {
      case AccelOp::kConv:
      case AccelOp::kDense: {
        const ir::Value* x = n->input(0);
        std::string in_buf;
        if (p.im2col) {
          TSR_ASSIGN_OR_RETURN(in_buf, Im2colUpload(p));
        } else {
          TSR_ASSIGN_OR_RETURN(in_buf, DeviceInput(x));
        }
        // A fused max pool's result is the layer's (conv_pool.h).
        const ir::Node* last = p.fused_pool               ? p.fused_pool
                               : p.fused_add              ? p.fused_add
                               : !p.shuffle.nodes.empty() ? p.shuffle.nodes.back()
                                                          : n;
        TSR_ASSIGN_OR_RETURN(std::string out_buf, DeviceValue(last->output()));
        TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg_, p.geo));
        // Weights and channel parameters stay in the graph; the buffers record how they are packed.
        const WeightPacking wp = WeightPackingOf(p.geo, blocks);
        const std::string wb = NewBuffer("w:" + n->output()->name(), PackedWeightBytes(cfg_, wp));
        SetWeightPacking(cfg_, *n, wp, Buffer(wb));
        TSR_ASSIGN_OR_RETURN(Slot sx, buffer_slot(in_buf));
        TSR_ASSIGN_OR_RETURN(Slot sy, buffer_slot(out_buf));
        TSR_ASSIGN_OR_RETURN(ConvCodegen c, gemm_layer(blocks, wb));
        c.nonzero = p.nonzero;
        if (p.op == AccelOp::kDense) {
          c.in = ActView{sx, 0, 0, 1, blocks.icb};
          c.out = ActView{sy, 0, 0, 1, blocks.ocb};
        } else {
          const int64_t f = p.fused_pool ? 2 : 1;
          c.in =
              p.im2col ? NchwView(sx, blocks.icb, p.geo.ih, p.geo.iw) : ViewOf(sx, x, blocks.icb, p.geo.ih, p.geo.iw);
          c.out = ViewOf(sy, last->output(), blocks.ocb, p.geo.oh / f, p.geo.ow / f);
          if (!p.shuffle.nodes.empty()) {  // the shuffled result (conv_shuffle.h)
            const PixelShuffle& sh = p.shuffle.geo;
            c.out = ViewOf(sy, last->output(), blocks.ocb / sh.phases(), sh.oh, sh.ow);
          }
        }
        c.in_zero_point = ZeroPointOf(x);
        c.out_zero_point = ZeroPointOf(n->output());
        if (p.fused_add) {
          const ir::Node* a = p.fused_add;
          const int k = p.add_operand;
          TSR_ASSIGN_OR_RETURN(std::string rb, DeviceInput(a->input(1 - k)));
          Slot sr = sx;  // one buffer, one slot
          if (rb != in_buf) {
            TSR_ASSIGN_OR_RETURN(sr, buffer_slot(rb));
          }
          c.residual = NchwView(sr, blocks.ocb, p.geo.oh, p.geo.ow);
          const auto mult = a->attrs().Ints("multiplier"), shift = a->attrs().Ints("shift");
          TSR_ASSIGN_OR_RETURN(c.add_params, param_rows(a, {mult.at(k), mult.at(1 - k), 1}));
          c.add_shift_conv = static_cast<int>(shift.at(k)), c.add_shift_res = static_cast<int>(shift.at(1 - k));
          c.add_post_shift = static_cast<int>(a->attrs().Int("post_shift"));
          c.add_min = a->attrs().Int("act_min", -128), c.add_max = a->attrs().Int("act_max", 127);
        }
        TSR_ASSIGN_OR_RETURN(schedule, Schedule(stream, p, [&](Stream& st, const HwConfig& ecfg, const ConvTiling& t) {
                               ConvCodegen ct = c;
                               ct.tiling = t;
                               return EmitConv(st, ecfg, ct);
                             }));
        break;
      }
      case AccelOp::kBatchMatMul: {  // batch_matmul.h: one dense layer per product
        TSR_ASSIGN_OR_RETURN(std::string in_buf, DeviceInput(n->input(0), true));
        TSR_ASSIGN_OR_RETURN(std::string wb, WeightsUpload(n->input(1), n));
        TSR_ASSIGN_OR_RETURN(std::string out_buf, DeviceValue(n->output(), true));
        TSR_ASSIGN_OR_RETURN(ConvBlocking blocks, BlockConv(cfg_, p.geo));
        const WeightPacking wp = MatrixPacking(cfg_, p.geo.oc, p.geo.ic);
        TSR_CHECK(wp.ocb == blocks.ocb && wp.ibpo == blocks.ibpo && !blocks.depthwise, "matmul blocking of {}",
                  n->Label());
        TSR_ASSIGN_OR_RETURN(Slot sx, buffer_slot(in_buf));
        TSR_ASSIGN_OR_RETURN(Slot sy, buffer_slot(out_buf));
        TSR_ASSIGN_OR_RETURN(ConvCodegen c, gemm_layer(blocks, wb));
        const int64_t row_blocks = p.geo.ih, matrix_tiles = wp.ocb * wp.ibpo;
        auto products = [&](Stream& st, const HwConfig& ecfg, const ConvTiling& t) -> Status {
          c.tiling = t;
          for (int64_t g = 0; g < p.products; ++g) {
            if (g > 0) {  // the next product's loads overwrite the input and weight tiles the last one's GEMMs read
              TSR_RETURN_IF_ERROR(st.Push(Module::kCompute, Module::kLoad));
              TSR_RETURN_IF_ERROR(st.Pop(Module::kCompute, Module::kLoad));
            }
            c.in = ActView{sx, g * row_blocks * blocks.icb, 0, 1, blocks.icb};
            c.out = ActView{sy, g * row_blocks * blocks.ocb, 0, 1, blocks.ocb};
            c.weight_base = g * matrix_tiles;
            TSR_RETURN_IF_ERROR(EmitConv(st, ecfg, c));
          }
          return OkStatus();
        };
        TSR_ASSIGN_OR_RETURN(schedule, Schedule(stream, p, products));
        break;
      }
      case AccelOp::kPool: {
        PoolCodegen pc = p.pool;
        TSR_ASSIGN_OR_RETURN(std::string in_buf, DeviceInput(n->input(0)));
        TSR_ASSIGN_OR_RETURN(std::string out_buf, DeviceValue(n->output()));
        const int64_t cb = CeilDiv(pc.c, cfg_.block_in);
        TSR_ASSIGN_OR_RETURN(Slot sx, buffer_slot(in_buf));
        TSR_ASSIGN_OR_RETURN(Slot sy, buffer_slot(out_buf));
        pc.in = ViewOf(sx, n->input(0), cb, pc.ih, pc.iw);
        pc.out = ViewOf(sy, n->output(), cb, pc.oh, pc.ow);
        if (!pc.max) {
          TSR_ASSIGN_OR_RETURN(pc.params, param_rows(n, {n->attrs().Ints("multiplier").at(0)}));
        }
        TSR_RETURN_IF_ERROR(EmitPool(stream, cfg_, pc));
        break;
      }
      case AccelOp::kAdd: {
        AddCodegen a;
        a.name = n->Label();
        ActShape s;
        ActShapeOf(n->output()->type(), &s.n, &s.c, &s.h, &s.w);
        a.tiles = ActTiles(cfg_, s);
        TSR_ASSIGN_OR_RETURN(std::string ba, DeviceInput(n->input(0)));
        TSR_ASSIGN_OR_RETURN(std::string bb, DeviceInput(n->input(1)));
        TSR_ASSIGN_OR_RETURN(std::string by, DeviceValue(n->output()));
        const auto mult = n->attrs().Ints("multiplier"), shift = n->attrs().Ints("shift");
        TSR_ASSIGN_OR_RETURN(a.a, buffer_slot(ba));
        TSR_ASSIGN_OR_RETURN(a.b, buffer_slot(bb));  // y = c + c: one buffer, one slot
        TSR_ASSIGN_OR_RETURN(a.out, buffer_slot(by));
        TSR_ASSIGN_OR_RETURN(a.params, param_rows(n, {mult.at(0), mult.at(1), 1}));
        a.shift_a = static_cast<int>(shift.at(0)), a.shift_b = static_cast<int>(shift.at(1));
        a.post_shift = static_cast<int>(n->attrs().Int("post_shift"));
        a.act_min = n->attrs().Int("act_min", -128), a.act_max = n->attrs().Int("act_max", 127);
        TSR_RETURN_IF_ERROR(EmitAdd(stream, cfg_, a));
        break;
      }
      case AccelOp::kMul: {
        MulCodegen mc;
        mc.name = n->Label();
        ActShape s;
        ActShapeOf(n->output()->type(), &s.n, &s.c, &s.h, &s.w);
        mc.broadcast = n->input(1)->type().shape != n->output()->type().shape;
        mc.planes = CeilDiv(s.n, cfg_.batch) * CeilDiv(s.c, cfg_.block_in);
        mc.plane_tiles = s.h * s.w;
        TSR_ASSIGN_OR_RETURN(std::string ba, DeviceInput(n->input(0)));
        TSR_ASSIGN_OR_RETURN(std::string bb, DeviceInput(n->input(1)));
        TSR_ASSIGN_OR_RETURN(std::string by, DeviceValue(n->output()));
        TSR_ASSIGN_OR_RETURN(mc.a, buffer_slot(ba));
        TSR_ASSIGN_OR_RETURN(mc.b, buffer_slot(bb));
        TSR_ASSIGN_OR_RETURN(mc.out, buffer_slot(by));
        TSR_ASSIGN_OR_RETURN(mc.params, param_rows(n, {n->attrs().Int("multiplier")}));
        mc.shift = static_cast<int>(n->attrs().Int("shift"));
        mc.act_min = n->attrs().Int("act_min", -128), mc.act_max = n->attrs().Int("act_max", 127);
        TSR_RETURN_IF_ERROR(EmitMul(stream, cfg_, mc));
        break;
      }
      case AccelOp::kUnary: {
        UnaryCodegen u;
        u.name = n->Label();
        ActShape sh;
        ActShapeOf(n->output()->type(), &sh.n, &sh.c, &sh.h, &sh.w);
        u.tiles = ActTiles(cfg_, sh);
        u.program = exec::AluProgramOf(*n);
        TSR_ASSIGN_OR_RETURN(std::string bx, DeviceInput(n->input(0)));
        TSR_ASSIGN_OR_RETURN(std::string by, DeviceValue(n->output()));
        TSR_ASSIGN_OR_RETURN(u.in, buffer_slot(bx));
        TSR_ASSIGN_OR_RETURN(u.out, buffer_slot(by));
        const std::vector<int64_t> params = ProgramParams(u.program);
        if (!params.empty()) {
          TSR_ASSIGN_OR_RETURN(u.params, param_rows(n, params));
        }
        TSR_RETURN_IF_ERROR(EmitUnary(stream, cfg_, u));
        break;
      }
      case AccelOp::kNone: return InternalError("accelerator placement without an op");
    }
    TSR_ASSIGN_OR_RETURN(Recording rec, stream.Finish());
    // The reported prediction: the recorded stream on the timing engine (the
    // schedule choice timed this very stream already).
    int64_t predicted = schedule ? schedule->cycles : -1;
    if (predicted < 0) {
      TSR_ASSIGN_OR_RETURN(DeviceCounters c, PredictRecording(cfg_, rec));
      predicted = c.cycles;
    }
    std::vector<uint8_t> bytes = rec.Serialize();
    tsr::Step* s = m_->add_steps();
    s->set_kind(tsr::Step::ACCEL);
    s->set_node(n->Label());
    s->set_value(n->output()->name());  // identifies the node on load
    const ir::Node* fused = p.fused_pool ? p.fused_pool : p.fused_add;
    s->set_op(fused ? n->op() + "+" + fused->op() : p.shuffle.nodes.empty() ? n->op() : n->op() + "+shuffle");
    s->set_reason(Reason(p, schedule));
    if (fused) s->add_fused(fused->output()->name());
    for (const ir::Node* f : p.shuffle.nodes) s->add_fused(f->output()->name());
    if (!p.shuffle.nodes.empty()) produced_on_device_.insert(p.shuffle.nodes.back()->output()->name());
    s->set_recording(bytes.data(), bytes.size());
    for (const std::string& b : slot_buffers) s->add_slot_buffers(b);
    s->set_predicted_cycles(predicted);
    s->set_useful_macs(p.useful_macs);
    for (const ir::Value* v : n->outputs()) produced_on_device_.insert(v->name());
    if (fused) produced_on_device_.insert(fused->output()->name());
    return OkStatus();
  }

  // Uploads a convolution's input as patches [N, C*kh*kw, oh*ow, 1].
  StatusOr<std::string> Im2colUpload(const Placement& p) {
    const ir::Node* n = p.node;
    const ir::Value* x = n->input(0);
    const auto& ws = n->input(1)->type().shape;
    const auto strides = n->attrs().Ints("strides", {1, 1});
    const auto pads = n->attrs().Ints("pads", {0, 0, 0, 0});
    const auto& ys = n->output()->type().shape;
    const std::string dv = x->name() + "@im2col:" + n->output()->name();
    ActShape s{p.geo.n, p.geo.ic, p.geo.ih * p.geo.iw, 1};
    const std::string buf = NewBuffer("act:" + dv, ActBytes(cfg_, s));
    AddDeviceValue(dv, buf, s);
    tsr::Step* st = m_->add_steps();
    st->set_kind(tsr::Step::UPLOAD);
    st->set_value(x->name());
    st->set_device_value(dv);
    for (int64_t v : {ws[2], ws[3], strides[0], strides[1], pads[0], pads[1], ys[2], ys[3]}) st->add_im2col(v);
    return buf;
  }

  const ir::Graph& g_;
  const HwConfig& cfg_;
  const BackendOptions& opts_;
  std::unique_ptr<tsr::Model> m_;
  std::set<std::string> host_, uploaded_, produced_on_device_;
  std::map<std::string, int> buffer_index_;     // buffer name -> index in m_->buffers()
  std::map<std::string, std::string> device_;   // value -> buffer
  std::map<std::string, ChannelSlice> slices_;  // values stored in a slice of another value's buffer
};

}  // namespace

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
