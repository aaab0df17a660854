#include "compiler/backend/constants.h"

#include "compiler/backend/partition.h"
#include "compiler/backend/tsr.pb.h"
#include "isa/alu.h"
#include "isa/config.h"

namespace tessera::backend {
namespace {

// Bounds every packing dimension so that products of them cannot overflow.
constexpr int64_t kMaxDim = int64_t{1} << 24;

bool InRange(int64_t v) { return v > 0 && v <= kMaxDim; }

StatusOr<const ir::Node*> PackedNode(const ir::Graph& g, const tsr::DeviceBuffer& b) {
  const ir::Value* v = g.FindValue(b.packing().node());
  if (v == nullptr || v->producer() == nullptr)
    return DataLossError("constant buffer '{}': packs unknown node '{}'", b.name(), b.packing().node());
  return v->producer();
}

// Values of a per-channel operand: 1 (broadcast) or `oc` of them.
Status CheckChannels(const tsr::DeviceBuffer& b, const char* what, size_t n, int64_t oc, bool optional) {
  if ((optional && n == 0) || n == 1 || static_cast<int64_t>(n) == oc) return OkStatus();
  return DataLossError("constant buffer '{}': {} has {} values for {} channels", b.name(), what, n, oc);
}

Status CheckBytes(const tsr::DeviceBuffer& b, uint64_t want) {
  if (b.bytes() == std::max<uint64_t>(want, 1)) return OkStatus();
  return DataLossError("constant buffer '{}' has {} bytes, its packing makes {}", b.name(), b.bytes(), want);
}

StatusOr<const uint8_t*> PackWeights(const HwConfig& cfg, const ir::Graph& g, const tsr::DeviceBuffer& b,
                                     std::vector<uint8_t>* out) {
  const tsr::Packing& p = b.packing();
  TSR_ASSIGN_OR_RETURN(const ir::Node* n, PackedNode(g, b));
  const WeightPacking wp{p.oc(), p.icg(), p.kk(), p.ocb(), p.ibpo(), p.depthwise()};
  if (!InRange(wp.oc) || !InRange(wp.icg) || !InRange(wp.kk) || !InRange(wp.ocb) || !InRange(wp.ibpo) ||
      wp.ocb * cfg.block_out < wp.oc ||
      (wp.depthwise ? wp.icg < 1 || cfg.block_in % wp.icg || wp.ibpo != 1 : wp.ibpo * cfg.block_in < wp.icg))
    return DataLossError("constant buffer '{}': malformed weight packing (oc {}, icg {}, kk {}, ocb {}, ibpo {})",
                         b.name(), wp.oc, wp.icg, wp.kk, wp.ocb, wp.ibpo);
  const ir::Value* w = n->num_inputs() > 1 ? n->input(1) : nullptr;
  if (w == nullptr || !w->is_constant() || w->type().dtype != ir::DType::kI8 ||
      w->data().numel() != wp.oc * wp.icg * wp.kk)
    return DataLossError("constant buffer '{}': node '{}' has no int8 weight constant of {}x{}x{} elements", b.name(),
                         p.node(), wp.oc, wp.icg, wp.kk);
  const uint64_t bytes = PackedWeightBytes(cfg, wp);
  TSR_RETURN_IF_ERROR(CheckBytes(b, bytes));
  out->resize(bytes);
  PackConvWeightsInto(cfg, wp, w->data().data<int8_t>(), out->data());
  return out->data();
}

StatusOr<const uint8_t*> PackParams(const HwConfig& cfg, const ir::Graph& g, const tsr::DeviceBuffer& b,
                                    std::vector<uint8_t>* out) {
  const int64_t oc = b.packing().oc();
  TSR_ASSIGN_OR_RETURN(const ir::Node* n, PackedNode(g, b));
  if (!InRange(oc)) return DataLossError("constant buffer '{}': {} channels", b.name(), oc);
  std::vector<int64_t> bias;
  if (n->num_inputs() > 2) {
    const ir::Value* v = n->input(2);
    if (!v->is_constant() || v->type().dtype != ir::DType::kI32)
      return DataLossError("constant buffer '{}': the bias of node '{}' is not an int32 constant", b.name(),
                           b.packing().node());
    const int32_t* d = v->data().data<int32_t>();
    bias.assign(d, d + v->data().numel());
  }
  TSR_RETURN_IF_ERROR(CheckChannels(b, "the bias", bias.size(), oc, true));
  // An input zero point zx: the GEMM sums w * x (padding is zx), so the bias
  // takes -zx * sum_k w[c][k]: sum w * (x - zx) + bias (wraps like the accumulator).
  if (const int64_t zx = ZeroPointOf(n->input(0)); zx != 0) {
    const ir::Value* w = n->num_inputs() > 1 ? n->input(1) : nullptr;
    if (w == nullptr || !w->is_constant() || w->type().dtype != ir::DType::kI8 || w->type().shape.empty() ||
        w->type().shape[0] != oc)
      return DataLossError("constant buffer '{}': node '{}' has no int8 weight constant with {} channels", b.name(),
                           b.packing().node(), oc);
    bias.resize(static_cast<size_t>(oc), bias.size() == 1 ? bias[0] : 0);
    const int64_t per = w->data().numel() / oc;
    const int8_t* wd = w->data().data<int8_t>();
    for (int64_t c = 0; c < oc; ++c) {
      int64_t sum = 0;
      for (int64_t k = 0; k < per; ++k) sum += wd[c * per + k];
      bias[c] = alu::Wrap(bias[c] - zx * sum, 32);
    }
  }
  const auto it = n->attrs().map().find("multiplier");
  if (it == n->attrs().map().end() || ir::KindOf(it->second) != ir::AttrKind::kInts)
    return DataLossError("constant buffer '{}': node '{}' has no multiplier", b.name(), b.packing().node());
  const auto& mult = std::get<std::vector<int64_t>>(it->second);
  TSR_RETURN_IF_ERROR(CheckChannels(b, "the multiplier", mult.size(), oc, false));
  const uint64_t bytes = PackedChannelParamBytes(cfg, oc);
  TSR_RETURN_IF_ERROR(CheckBytes(b, bytes));
  out->resize(bytes);
  PackChannelParamsInto(cfg, oc, bias, mult, out->data());
  return out->data();
}

}  // namespace

bool IsConstantBuffer(const tsr::DeviceBuffer& b) {
  return !b.data().empty() || b.packing().kind() != tsr::Packing::NONE;
}

void SetWeightPacking(const HwConfig& cfg, const ir::Node& n, const WeightPacking& p, tsr::DeviceBuffer* b) {
  tsr::Packing* k = b->mutable_packing();
  k->set_kind(tsr::Packing::CONV_WEIGHTS);
  k->set_node(n.output()->name());
  k->set_oc(p.oc), k->set_icg(p.icg), k->set_kk(p.kk), k->set_ocb(p.ocb), k->set_ibpo(p.ibpo);
  k->set_depthwise(p.depthwise);
  b->set_bytes(std::max<uint64_t>(PackedWeightBytes(cfg, p), 1));
}

void SetChannelParamPacking(const HwConfig& cfg, const ir::Node& n, int64_t oc, tsr::DeviceBuffer* b) {
  tsr::Packing* k = b->mutable_packing();
  k->set_kind(tsr::Packing::CHANNEL_PARAMS);
  k->set_node(n.output()->name());
  k->set_oc(oc);
  b->set_bytes(std::max<uint64_t>(PackedChannelParamBytes(cfg, oc), 1));
}

StatusOr<const uint8_t*> ConstantContents(const HwConfig& cfg, const ir::Graph& g, const tsr::DeviceBuffer& b,
                                          std::vector<uint8_t>* scratch) {
  switch (b.packing().kind()) {
    case tsr::Packing::NONE:
      if (b.data().size() != b.bytes())
        return DataLossError("constant buffer '{}' has {} bytes of data for {} bytes", b.name(), b.data().size(),
                             b.bytes());
      return reinterpret_cast<const uint8_t*>(b.data().data());
    case tsr::Packing::CONV_WEIGHTS: return PackWeights(cfg, g, b, scratch);
    case tsr::Packing::CHANNEL_PARAMS: return PackParams(cfg, g, b, scratch);
    default: break;
  }
  return DataLossError("constant buffer '{}': unknown packing kind {}", b.name(), static_cast<int>(b.packing().kind()));
}

}  // namespace tessera::backend
