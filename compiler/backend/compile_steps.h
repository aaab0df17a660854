// Compiler: CompileGraph's walk over a partition (compile.h). Values,
// buffers, transfers and CPU/alias steps are in compile.cc, accelerator
// layers (one JIT stream each) in accel_step.cc.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/backend/channel_slices.h"
#include "compiler/backend/compile.h"
#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/conv_schedule.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/tsr.pb.h"

namespace tessera::backend {

class Compiler {
 public:
  Compiler(const ir::Graph& g, const HwConfig& cfg, const BackendOptions& opts) : g_(g), cfg_(cfg), opts_(opts) {}

  // The artifact: every placement's step in order (compile.h CompileGraph).
  StatusOr<std::unique_ptr<tsr::Model>> Run();

 private:
  // ---- values and buffers ----
  // Buffer names are unique: activations are "act:<value>", a layer's
  // constants "<kind>:<its first result>" (node names may repeat or be empty).
  std::string NewBuffer(const std::string& name, uint64_t bytes, const std::vector<uint8_t>* data = nullptr);

  tsr::DeviceBuffer* Buffer(const std::string& name) { return m_->mutable_buffers(buffer_index_.at(name)); }

  // The device value for an activation, creating its buffer on first use (a
  // value in a channel slice: its root's buffer; `rows`: packed as the rows
  // of a qbatch_matmul operand, batch_matmul.h).
  StatusOr<std::string> DeviceValue(const ir::Value* v, bool rows = false);
  void AddDeviceValue(const std::string& value, const std::string& buffer, const ActShape& s,
                      const ChannelSlice* slice = nullptr);
  // The tiles of activation v (c_blocks x h x w per batch block) in slot s.
  ActView ViewOf(Slot s, const ir::Value* v, int64_t c_blocks, int64_t h, int64_t w) const;

  Status Upload(const ir::Value* v, bool rows = false);
  Status Download(const ir::Value* v);
  void AddTransfer(tsr::Step::Kind kind, const ir::Value* v);
  // An activation input of an accelerator layer: on the device already, or uploaded now.
  StatusOr<std::string> DeviceInput(const ir::Value* v, bool rows = false);
  // A qbatch_matmul's second operand b [..., K, N], uploaded as G weight
  // matrices b_g^T (a host repack; a device result is downloaded first).
  StatusOr<std::string> WeightsUpload(const ir::Value* b, const ir::Node* n);

  // ---- steps ----
  // A node on the host; its device inputs downloaded first.
  Status CpuStep(const Placement& p);
  // A value that is another's device buffer (a reshape, an in-place concat).
  Status Alias(const Placement& p);
  // A GEMM layer's schedule (conv_schedule.h), as the options ask.
  StatusOr<ScheduleChoice> Schedule(Stream& s, const Placement& p, const EmitLayerFn& emit);

  // The placement's reason with the GEMM layer's schedule: its tiling if that
  // changed, and which schedule it runs.
  std::string Reason(const Placement& p, const std::optional<ScheduleChoice>& schedule) const;

  // An accelerator layer (accel_step.cc): its stream, slots and predicted cycles.
  Status AccelStep(const Placement& p);
  // Uploads a convolution's input as patches [N, C*kh*kw, oh*ow, 1].
  StatusOr<std::string> Im2colUpload(const Placement& p);

  const ir::Graph& g_;
  const HwConfig& cfg_;
  const BackendOptions& opts_;
  std::unique_ptr<tsr::Model> m_;
  std::set<std::string> host_, uploaded_, produced_on_device_;
  std::map<std::string, int> buffer_index_;     // buffer name -> index in m_->buffers()
  std::map<std::string, std::string> device_;   // value -> buffer
  std::map<std::string, ChannelSlice> slices_;  // values stored in a slice of another value's buffer
};

}  // namespace tessera::backend
