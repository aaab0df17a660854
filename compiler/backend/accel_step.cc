// Compiler::AccelStep (compile_steps.h): one accelerator layer as a JIT
// stream over the slots of its buffers, its schedule, reason and predicted cycles.
#include <map>
#include <optional>
#include <set>

#include "compiler/backend/batch_matmul.h"
#include "compiler/backend/channel_slices.h"
#include "compiler/backend/compile_steps.h"
#include "compiler/backend/constants.h"
#include "compiler/backend/conv_schedule.h"
#include "compiler/backend/cost_model.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/exec/kernel.h"
#include "isa/base/check.h"
#include "isa/base/math.h"
#include "isa/config.h"

namespace tessera::backend {

StatusOr<ScheduleChoice> Compiler::Schedule(Stream& s, const Placement& p, const EmitLayerFn& emit) {
  return EmitScheduled(s, cfg_, opts_.conv_schedule, p.geo, p.epilogue, p.nonzero, p.tiling, emit);
}

std::string Compiler::Reason(const Placement& p, const std::optional<ScheduleChoice>& schedule) const {
  std::string r = p.reason;
  if (!schedule) return r;
  const std::string planned = p.tiling.ToString(), kept = schedule->tiling.ToString();
  if (size_t at = r.find(planned); at != std::string::npos && kept != planned) r.replace(at, planned.size(), kept);
  const std::string d = schedule->Describe(cfg_);
  return d.empty() ? r : r + "; " + d;
}

Status Compiler::AccelStep(const Placement& p) {
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
        c.in = p.im2col ? NchwView(sx, blocks.icb, p.geo.ih, p.geo.iw) : ViewOf(sx, x, blocks.icb, p.geo.ih, p.geo.iw);
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

StatusOr<std::string> Compiler::Im2colUpload(const Placement& p) {
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

}  // namespace tessera::backend
