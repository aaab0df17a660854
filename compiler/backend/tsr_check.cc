#include "compiler/backend/tsr_check.h"

#include <openssl/sha.h>

#include <cstring>
#include <map>
#include <set>

#include "compiler/backend/batch_matmul.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/partition.h"
#include "compiler/backend/tsr.pb.h"

namespace tessera::backend {
namespace {

// Model.content_sha256 (field 15, length-delimited), 32 bytes.
constexpr uint8_t kSealTag = (15 << 3) | 2;
constexpr uint8_t kSealLength = SHA256_DIGEST_LENGTH;
static_assert(kTsrSealBytes == 2 + SHA256_DIGEST_LENGTH);

// Every dimension of a device value or an im2col parameter is at most this;
// the products are then bounded by the buffer (and so by DRAM).
constexpr int64_t kMaxDim = int64_t{1} << 31;

using Wide = unsigned __int128;

struct DevValue {
  const tsr::DeviceValue* proto = nullptr;
  ActShape shape;
  int64_t first_block = 0, end_block = 0;  // the channel blocks of its buffer it occupies
};

bool SameShape(const ActShape& a, const ActShape& b) { return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w; }

std::string ShapeText(const ActShape& s) { return fmt::format("[{}, {}, {}, {}]", s.n, s.c, s.h, s.w); }

// The step's role for messages: "step 7 (UPLOAD of 'x')".
std::string StepName(int i, const tsr::Step& st) {
  const char* kind = tsr::Step::Kind_IsValid(st.kind()) ? tsr::Step::Kind_Name(st.kind()).c_str() : "?";
  return fmt::format("step {} ({} of '{}')", i, kind, st.kind() == tsr::Step::ACCEL ? st.node() : st.value());
}

class Checker {
 public:
  Checker(const tsr::Model& m, const HwConfig& cfg, const ir::Graph& g) : m_(m), cfg_(cfg), g_(g) {}

  Status Run() {
    if (m_.isa_fingerprint() != cfg_.isa_fingerprint)
      return DataLossError("compiled model: isa fingerprint 0x{:016x} does not match its config's 0x{:016x}",
                           m_.isa_fingerprint(), cfg_.isa_fingerprint);
    for (const ir::Value* v : g_.inputs()) host_.insert(v->name());
    TSR_RETURN_IF_ERROR(Buffers());
    TSR_RETURN_IF_ERROR(DeviceValues());
    for (int i = 0; i < m_.steps_size(); ++i)
      TSR_RETURN_IF_ERROR(Step(m_.steps(i)).WithContext("compiled model: " + StepName(i, m_.steps(i))));
    for (const ir::Value* v : g_.outputs())
      if (!host_.count(v->name()))
        return DataLossError("compiled model: graph output '{}' is never brought to the host by the steps", v->name());
    return OkStatus();
  }

 private:
  Status Buffers() {
    for (const tsr::DeviceBuffer& b : m_.buffers()) {
      if (b.name().empty() || !buffers_.emplace(b.name(), &b).second)
        return DataLossError("compiled model: device buffer '{}' is unnamed or appears twice", b.name());
      if (b.bytes() == 0 || b.bytes() > cfg_.dram_size_bytes)
        return DataLossError("compiled model: device buffer '{}' of {} bytes does not fit DRAM ({} bytes)", b.name(),
                             b.bytes(), cfg_.dram_size_bytes);
      if (b.data().size() > b.bytes())
        return DataLossError("compiled model: device buffer '{}' holds {} bytes of data but is {} bytes", b.name(),
                             b.data().size(), b.bytes());
    }
    return OkStatus();
  }

  Status DeviceValues() {
    for (const tsr::DeviceValue& v : m_.device_values()) {
      const std::string what = fmt::format("compiled model: device value '{}'", v.value());
      if (v.value().empty() || dev_values_.count(v.value()))
        return DataLossError("{} is unnamed or appears twice", what);
      auto b = buffers_.find(v.buffer());
      if (b == buffers_.end()) return DataLossError("{} is in unknown buffer '{}'", what, v.buffer());
      if (v.act_shape_size() != 4) return DataLossError("{} has {} dimensions, not 4", what, v.act_shape_size());
      for (int64_t d : v.act_shape())
        if (d < 1 || d > kMaxDim) return DataLossError("{}: dimension {} is out of range", what, d);
      ActShape s{v.act_shape(0), v.act_shape(1), v.act_shape(2), v.act_shape(3)};
      if (v.weights()) {  // [G, K, N, 1]: G packed weight matrices; it occupies the whole buffer
        const Wide bytes = Wide(s.n) * Wide(PackedWeightBytes(cfg_, MatrixPacking(cfg_, s.h, s.c)));
        if (s.w != 1 || v.buffer_channels() != 0 || v.channel_offset() != 0 || bytes > Wide(b->second->bytes()))
          return DataLossError("{}: {} weight matrices [{}, {}] do not fit its buffer '{}' of {} bytes", what, s.n, s.h,
                               s.c, v.buffer(), b->second->bytes());
        dev_values_[v.value()] = {&v, s, 0, INT64_MAX};
        by_buffer_[v.buffer()].push_back(v.value());
        continue;
      }
      const int64_t wide = v.buffer_channels() ? v.buffer_channels() : s.c;  // the buffer's channels
      if (v.buffer_channels() < 0 || v.buffer_channels() > kMaxDim || v.channel_offset() < 0 ||
          v.channel_offset() % cfg_.block_in != 0 || v.channel_offset() > wide - s.c)
        return DataLossError("{}: channels [{}, {}) are not a block-aligned slice of its buffer's {} channels", what,
                             v.channel_offset(), v.channel_offset() + s.c, wide);
      const Wide tiles = Wide(CeilDivU(s.n, cfg_.batch)) * Wide(CeilDivU(wide, cfg_.block_in)) * Wide(s.h) * Wide(s.w);
      if (tiles * Wide(cfg_.inp_tile_bytes) > Wide(b->second->bytes()))
        return DataLossError("{} {} needs more than the {} bytes of its buffer '{}'", what, ShapeText(s),
                             b->second->bytes(), v.buffer());
      const int64_t first = v.channel_offset() / cfg_.block_in;
      dev_values_[v.value()] = {&v, s, first, first + static_cast<int64_t>(CeilDivU(s.c, cfg_.block_in))};
      by_buffer_[v.buffer()].push_back(v.value());
    }
    return OkStatus();
  }

  static uint64_t CeilDivU(int64_t a, int64_t b) { return static_cast<uint64_t>((a + b - 1) / b); }

  StatusOr<const ir::Value*> GraphValue(const std::string& name) const {
    const ir::Value* v = g_.FindValue(name);
    if (v == nullptr) return DataLossError("unknown graph value '{}'", name);
    return v;
  }

  StatusOr<const DevValue*> Device(const std::string& name) const {
    auto it = dev_values_.find(name);
    if (it == dev_values_.end()) return DataLossError("unknown device value '{}'", name);
    return &it->second;
  }

  // The transferred graph value must be int8 with exactly the device value's shape.
  Status SameLayout(const ir::Value& v, const DevValue& dv) const {
    if (dv.proto->weights()) {  // [..., K, N] as [G, K, N, 1]
      const ir::Shape& t = v.type().shape;
      if (v.type().dtype != ir::DType::kI8 || t.size() < 2 || t[t.size() - 2] != dv.shape.c || t.back() != dv.shape.h ||
          v.type().numel() != dv.shape.n * dv.shape.c * dv.shape.h)
        return DataLossError("value '{}' {} does not match weight device value '{}' {}", v.name(),
                             ir::TypeToString(v.type()), dv.proto->value(), ShapeText(dv.shape));
      return OkStatus();
    }
    ActShape s;
    // A qbatch_matmul operand or result may also be packed as rows (batch_matmul.h).
    const bool rows = v.type().rank() >= 2 && SameShape(RowsShapeOf(v.type()), dv.shape);
    if (v.type().dtype != ir::DType::kI8 ||
        (!rows && (!ActShapeOf(v.type(), &s.n, &s.c, &s.h, &s.w) || !SameShape(s, dv.shape))))
      return DataLossError("value '{}' {} does not match device value '{}' {}", v.name(), ir::TypeToString(v.type()),
                           dv.proto->value(), ShapeText(dv.shape));
    return OkStatus();
  }

  // A device value holds its data when it was written since the channel
  // blocks it occupies were last written by another value, or it is the
  // result of a step-less node (a reshape, an in-place concat) over such
  // values in the same buffer.
  bool OnDevice(const std::string& name, int depth = 0) const {
    if (valid_.count(name)) return true;
    const ir::Value* v = g_.FindValue(name);
    auto dv = dev_values_.find(name);
    if (depth > 1 << 12 || v == nullptr || v->producer() == nullptr || computed_.count(v->producer()) ||
        dv == dev_values_.end())
      return false;
    const ir::Node* n = v->producer();
    if (n->num_inputs() < 1) return false;
    for (const ir::Value* in : n->inputs()) {
      if (in->is_constant()) continue;
      auto src = dev_values_.find(in->name());
      if (src == dev_values_.end() || src->second.proto->buffer() != dv->second.proto->buffer() ||
          !OnDevice(in->name(), depth + 1))
        return false;
    }
    return true;
  }

  // `name` now holds its data; every other value overlapping it in its buffer does not.
  void Write(const std::string& name) {
    const DevValue& w = dev_values_.at(name);
    for (const std::string& other : by_buffer_[w.proto->buffer()]) {
      const DevValue& o = dev_values_.at(other);
      if (o.first_block < w.end_block && w.first_block < o.end_block) valid_.erase(other);
    }
    valid_.insert(name);
  }

  Status Compute(const ir::Node* n) {
    if (!computed_.insert(n).second) return DataLossError("node '{}' is computed twice", n->Label());
    return OkStatus();
  }

  Status Im2colShape(const tsr::Step& st, const ir::Value& v, const DevValue& dv) const {
    if (v.type().dtype != ir::DType::kI8 || v.type().rank() != 4)
      return DataLossError("im2col of '{}' {}: needs an int8 [N, C, H, W] value", v.name(), ir::TypeToString(v.type()));
    for (int k = 0; k < 8; ++k) {
      const int64_t x = st.im2col(k), lo = k == 4 || k == 5 ? 0 : 1;
      if (x < lo || x > kMaxDim) return DataLossError("im2col parameter {} = {} is out of range", k, x);
    }
    const auto& s = v.type().shape;
    const Wide k_all = Wide(s[1]) * Wide(st.im2col(0)) * Wide(st.im2col(1)),
               pix = Wide(st.im2col(6)) * Wide(st.im2col(7));
    if (Wide(dv.shape.n) != Wide(s[0]) || Wide(dv.shape.c) != k_all || Wide(dv.shape.h) != pix || dv.shape.w != 1)
      return DataLossError("im2col patches of '{}' {} do not match device value '{}' {}", v.name(),
                           ir::TypeToString(v.type()), dv.proto->value(), ShapeText(dv.shape));
    return OkStatus();
  }

  Status Step(const tsr::Step& st) {
    if (!tsr::Step::Kind_IsValid(st.kind())) return DataLossError("unknown step kind {}", static_cast<int>(st.kind()));
    if (st.kind() != tsr::Step::UPLOAD && st.im2col_size() != 0)
      return DataLossError("im2col parameters on a step that is not an upload");
    switch (st.kind()) {
      case tsr::Step::UPLOAD: {
        TSR_ASSIGN_OR_RETURN(const ir::Value* v, GraphValue(st.value()));
        TSR_ASSIGN_OR_RETURN(const DevValue* dv, Device(st.device_value()));
        if (dv->proto->weights() && st.im2col_size() != 0)
          return DataLossError("im2col parameters on an upload as weights");
        if (st.im2col_size() == 8) {
          TSR_RETURN_IF_ERROR(Im2colShape(st, *v, *dv));
        } else if (st.im2col_size() != 0) {
          return DataLossError("{} im2col parameters, not 8", st.im2col_size());
        } else {
          TSR_RETURN_IF_ERROR(SameLayout(*v, *dv));
        }
        if (!host_.count(v->name())) return DataLossError("'{}' is uploaded before it is on the host", v->name());
        uploaded_.insert(v->name());
        Write(st.device_value());
        return OkStatus();
      }
      case tsr::Step::DOWNLOAD: {
        TSR_ASSIGN_OR_RETURN(const ir::Value* v, GraphValue(st.value()));
        TSR_ASSIGN_OR_RETURN(const DevValue* dv, Device(st.device_value()));
        TSR_RETURN_IF_ERROR(SameLayout(*v, *dv));
        if (dv->proto->weights())
          return DataLossError("'{}' is held as weight tiles: it cannot be downloaded", v->name());
        if (!OnDevice(st.device_value()))
          return DataLossError("'{}' is downloaded before it is computed on the device", v->name());
        host_.insert(v->name());
        return OkStatus();
      }
      case tsr::Step::CPU: {
        TSR_ASSIGN_OR_RETURN(const ir::Value* v, GraphValue(st.value()));
        const ir::Node* n = v->producer();
        if (n == nullptr) return DataLossError("'{}' is not computed by a node", v->name());
        TSR_RETURN_IF_ERROR(Compute(n));
        for (const ir::Value* in : n->inputs())
          if (!in->is_constant() && !host_.count(in->name()))
            return DataLossError("operand '{}' is not on the host yet", in->name());
        for (const ir::Value* out : n->outputs()) host_.insert(out->name());
        return OkStatus();
      }
      case tsr::Step::ACCEL: {
        for (const std::string& b : st.slot_buffers())
          if (!buffers_.count(b)) return DataLossError("unknown buffer '{}'", b);
        TSR_ASSIGN_OR_RETURN(const ir::Value* v, GraphValue(st.value()));
        const ir::Node* n = v->producer();
        if (n == nullptr) return DataLossError("'{}' is not computed by a node", v->name());
        TSR_RETURN_IF_ERROR(Compute(n));
        for (const ir::Value* in : n->inputs())
          if (!in->is_constant() && !OnDevice(in->name()) && !uploaded_.count(in->name()))
            return DataLossError("operand '{}' is not on the device yet", in->name());
        for (const std::string& f : st.fused()) {  // each fused node reads its predecessor's result
          TSR_ASSIGN_OR_RETURN(const ir::Value* fv, GraphValue(f));
          const ir::Node* m = fv->producer();
          if (m == nullptr) return DataLossError("fused '{}' is not computed by a node", fv->name());
          TSR_RETURN_IF_ERROR(Compute(m));
          for (const ir::Value* in : m->inputs())
            if (!in->is_constant() && in->producer() != n && !OnDevice(in->name()) && !uploaded_.count(in->name()))
              return DataLossError("operand '{}' of fused '{}' is not on the device yet", in->name(), m->Label());
          n = m;
        }
        for (const ir::Value* out : n->outputs()) {
          if (!dev_values_.count(out->name())) return DataLossError("result '{}' has no device value", out->name());
          Write(out->name());
        }
        return OkStatus();
      }
      default: return DataLossError("unknown step kind {}", static_cast<int>(st.kind()));
    }
  }

  const tsr::Model& m_;
  const HwConfig& cfg_;
  const ir::Graph& g_;
  std::map<std::string, const tsr::DeviceBuffer*> buffers_;
  std::map<std::string, DevValue> dev_values_;
  std::map<std::string, std::vector<std::string>> by_buffer_;  // buffer -> its device values
  std::set<std::string> host_, valid_, uploaded_;
  std::set<const ir::Node*> computed_;
};

}  // namespace

std::string SealModelBytes(std::string serialized) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(serialized.data()), serialized.size(), digest);
  serialized.push_back(static_cast<char>(kSealTag));
  serialized.push_back(static_cast<char>(kSealLength));
  serialized.append(reinterpret_cast<const char*>(digest), sizeof(digest));
  return serialized;
}

StatusOr<size_t> CheckModelSeal(const uint8_t* file, size_t size, const std::string& path) {
  const size_t n = size;
  if (n < kTsrSealBytes || file[n - kTsrSealBytes] != kSealTag || file[n - kTsrSealBytes + 1] != kSealLength)
    return DataLossError(
        "{}: not a Tessera compiled model (.tsr): it does not end with an integrity digest (truncated, damaged, or "
        "not written by tessera compile)",
        path);
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(file, n - kTsrSealBytes, digest);
  if (std::memcmp(digest, &file[n - SHA256_DIGEST_LENGTH], SHA256_DIGEST_LENGTH) != 0)
    return DataLossError("{}: the compiled model is damaged: its content does not match its SHA-256 digest", path);
  return n - kTsrSealBytes;
}

Status CheckModel(const tsr::Model& m, const HwConfig& cfg, const ir::Graph& graph) {
  return Checker(m, cfg, graph).Run();
}

}  // namespace tessera::backend
