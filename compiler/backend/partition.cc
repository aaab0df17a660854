#include "compiler/backend/partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "compiler/backend/batch_matmul.h"
#include "compiler/backend/fuse_conv_add.h"
#include "compiler/backend/fuse_conv_pool.h"
#include "compiler/backend/fuse_conv_shuffle.h"
#include "compiler/backend/layout.h"
#include "compiler/backend/weight_tiles.h"
#include "isa/base/check.h"
#include "isa/base/math.h"
#include "isa/config.h"

namespace tessera::backend {
namespace {

bool IsInt8(const ir::Value* v) { return v->type().dtype == ir::DType::kI8; }

bool Symmetric(const ir::Value* v) { return !v->type().quant || v->type().quant->symmetric(); }

// Checks every input/output is int8 with zero point 0 (any per-tensor zero
// point with `zero_points`: qconv/qmatmul); returns the reason when not.
std::string Int8Problem(const ir::Node& n, int count, bool zero_points = false) {
  for (int i = 0; i < count && i < n.num_inputs(); ++i)
    if (!IsInt8(n.input(i)) || (!zero_points && !Symmetric(n.input(i))))
      return fmt::format("input {} is {} (the accelerator reads {}int8)", i,
                         std::string(ir::DTypeName(n.input(i)->type().dtype)), zero_points ? "" : "symmetric ");
  if (!IsInt8(n.output()) || (!zero_points && !Symmetric(n.output())))
    return zero_points ? "its result is not int8" : "its result is not symmetric int8";
  return {};
}

// Why a float conv/gemm/matmul (QDQ) or a qlinear_conv/qlinear_matmul
// (QOperator) stayed on the CPU: which of its operands fold-qdq could not
// turn into a qconv/qmatmul.
std::string QuantLayerReason(const ir::Node* n) {
  const bool qop = n->op() == "qlinear_conv" || n->op() == "qlinear_matmul";
  auto dq = [qop](const ir::Value* v) -> const ir::Value* {
    const ir::Node* p = v->producer();
    return qop ? v : p && p->op() == "dequantize" ? p->input(0) : nullptr;
  };
  const ir::Value* x = dq(n->input(0));
  const ir::Value* w = n->num_inputs() > 1 ? dq(n->input(1)) : nullptr;
  std::string why;
  if (!x && !w) {
    why = "a float layer (compile with --calib to quantize it)";
  } else if (!x) {
    why = "its input is not quantized";
  } else if (!w || !w->is_constant()) {
    why = "its weights are not a quantized constant";
  } else if ((x->type().dtype != ir::DType::kI8 && x->type().dtype != ir::DType::kU8) || x->type().quant->per_axis()) {
    why = fmt::format("its input is {} quantized {}", ir::DTypeName(x->type().dtype),
                      x->type().quant->per_axis() ? "per axis" : "per tensor");
  } else if (w->type().dtype != ir::DType::kI8) {
    why = fmt::format("its weights are {} (the GEMM core multiplies int8 weights)", ir::DTypeName(w->type().dtype));
  } else if (!w->type().quant->symmetric()) {
    why =
        "its weights have non-zero zero points (the correction sum_k x*zw depends on the input; only symmetric "
        "int8 weights run on the accelerator)";
  } else if (x->type().dtype == ir::DType::kU8 || n->output()->type().dtype == ir::DType::kU8) {
    why =
        "a uint8 operand or result could not become int8 (it is a graph input or output, or an op without "
        "zero-point support reads it)";
  } else {
    why = "its quantization (result type, scales or bias) has no fixed-point int8 form";
  }
  return fmt::format("{} '{}' not folded into an int8 layer: {}", qop ? "QOperator" : "float", n->op(), why);
}

// Which weight tiles of `w` (constant int8, [OC][IC/groups][KH][KW] or
// [OC][K]) hold a non-zero weight when the layer is tiled as `g`.
WeightTileMask NonzeroTilesOf(const HwConfig& cfg, const ConvGeometry& g, const ir::Value* w) {
  auto b = BlockConv(cfg, g);
  if (!b.ok()) return {};
  return NonzeroWeightTiles(cfg, WeightPackingOf(g, *b), w->data().data<int8_t>());
}

// How a grouped convolution maps onto the GEMM core: BlockConv's choice.
std::string GroupsReason(const HwConfig& cfg, const ConvGeometry& g) {
  if (g.groups == 1) return "";
  auto b = BlockConv(cfg, g);
  TSR_CHECK(b.ok());  // PlanConv succeeded, and it blocks the same geometry
  const int64_t icg = g.ic / g.groups, ocg = g.oc / g.groups;
  if (b->depthwise && icg == 1) return "depthwise (block-diagonal weight tiles); ";
  if (b->depthwise) return fmt::format("{} groups of {} channels as block-diagonal weight tiles; ", g.groups, icg);
  return fmt::format("{} independent group GEMMs ({} -> {} channels each); ", g.groups, icg, ocg);
}

Placement PlaceConv(const ir::Node* n, const HwConfig& cfg, const std::set<const ir::Value*>& host,
                    const PartitionOptions& opts) {
  if (std::string why = Int8Problem(*n, 1, true); !why.empty()) return CpuPlacement(n, why);
  const ir::Value* x = n->input(0);
  const ir::Value* w = n->input(1);
  if (!w->is_constant() || w->type().dtype != ir::DType::kI8)
    return CpuPlacement(n, "weights are not a constant int8 tensor");
  if (n->num_inputs() > 2 && !n->input(2)->is_constant()) return CpuPlacement(n, "bias is not constant");
  if (x->type().rank() != 4) return CpuPlacement(n, "only 2-D convolutions (rank-4 input) are tensorized");
  const auto& xs = x->type().shape;
  const auto& ws = w->type().shape;
  const auto& ys = n->output()->type().shape;
  const auto strides = n->attrs().Ints("strides", {1, 1});
  const auto pads = n->attrs().Ints("pads", {0, 0, 0, 0});
  const auto dilations = n->attrs().Ints("dilations", {1, 1});
  ConvGeometry g;
  g.n = xs[0], g.ic = xs[1], g.ih = xs[2], g.iw = xs[3];
  g.oc = ws[0], g.kh = ws[2], g.kw = ws[3];
  g.groups = n->attrs().Int("group", 1);
  g.sh = strides[0], g.sw = strides[1], g.pt = pads[0], g.pl = pads[1];
  g.dh = dilations[0], g.dw = dilations[1];
  g.oh = ys[2], g.ow = ys[3];
  const ConvEpilogue epi = EpilogueOf(*n);
  Placement p;
  p.node = n;
  p.useful_macs = g.n * g.oc * g.oh * g.ow * (g.ic / g.groups) * g.kh * g.kw;
  // A first layer with few channels wastes most of the GEMM on channel
  // padding; with its input on the host, patches are gathered there instead.
  if (g.groups == 1 && g.dh == 1 && g.dw == 1 && g.ic < std::min<int64_t>(opts.im2col_max_channels, cfg.block_in) &&
      host.count(x) && g.kh * g.kw > 1) {
    ConvGeometry m;
    m.n = g.n;
    m.ic = g.ic * g.kh * g.kw;
    m.oc = g.oc;
    // A 1x1 convolution over the [oh, ow] plane of patches (the packed bytes of
    // [N, K, oh*ow, 1]): its tiles' DMAs move rows of pixels, not one
    // 16-byte element per burst.
    m.ih = m.oh = g.oh;
    m.iw = m.ow = g.ow;
    WeightTileMask nz = NonzeroTilesOf(cfg, m, w);
    auto t = PlanConv(cfg, m, epi, nz);
    if (t.ok()) {
      p.kind = PlaceKind::kAccel;
      p.op = AccelOp::kConv;
      p.im2col = true;
      p.nonzero = std::move(nz);
      p.geo = m;
      p.tiling = *t;
      p.epilogue = epi;
      p.reason = fmt::format("{}x{} conv over {} channels as a matmul on host-gathered patches (K = {}); {}", g.kh,
                             g.kw, g.ic, m.ic, t->ToString());
      return p;
    }
  }
  p.nonzero = NonzeroTilesOf(cfg, g, w);
  auto t = PlanConv(cfg, g, epi, p.nonzero);
  if (!t.ok()) return DoesNotFit(n, t.status());
  p.kind = PlaceKind::kAccel;
  p.op = AccelOp::kConv;
  p.geo = g;
  p.tiling = *t;
  p.epilogue = epi;
  p.reason = GroupsReason(cfg, g) +
             (g.dh > 1 || g.dw > 1
                  ? fmt::format("dilation {}x{} (the input window spans the dilated kernel, GEMM uops pick its taps); ",
                                g.dh, g.dw)
                  : "") +
             t->ToString();
  return p;
}

Placement PlaceMatMul(const ir::Node* n, const HwConfig& cfg) {
  if (std::string why = Int8Problem(*n, 1, true); !why.empty()) return CpuPlacement(n, why);
  const ir::Value* x = n->input(0);
  const ir::Value* w = n->input(1);
  if (!w->is_constant() || w->type().dtype != ir::DType::kI8 || w->type().rank() != 2)
    return CpuPlacement(n, "weights are not a constant int8 matrix");
  if (n->num_inputs() > 2 && !n->input(2)->is_constant()) return CpuPlacement(n, "bias is not constant");
  if (x->type().rank() != 2 && x->type().rank() != 3)
    return CpuPlacement(n, "only [rows, K] and [B, T, K] inputs are tensorized");
  // [B, T, K] (any leading dims): the rows of the flattened [B*T, K] matrix.
  ConvGeometry g;
  const int64_t rows = x->type().numel() / x->type().shape.back();
  g.n = 1;
  g.ic = x->type().shape.back();
  g.oc = w->type().shape[0];
  g.ih = g.oh = CeilDiv(rows, cfg.batch);  // rows of batch tiles
  g.iw = g.ow = 1;
  WeightTileMask nz = NonzeroTilesOf(cfg, g, w);
  const ConvEpilogue epi = EpilogueOf(*n);
  auto t = PlanConv(cfg, g, epi, nz);
  if (!t.ok()) return DoesNotFit(n, t.status());
  Placement p;
  p.node = n;
  p.kind = PlaceKind::kAccel;
  p.op = AccelOp::kDense;
  p.nonzero = std::move(nz);
  p.geo = g;
  p.tiling = *t;
  p.epilogue = epi;
  p.useful_macs = rows * g.ic * g.oc;
  p.reason = x->type().rank() > 2 ? fmt::format("{} rows of [..., {}] flattened; {}", rows, g.ic, t->ToString())
                                  : t->ToString();
  return p;
}

Placement PlacePool(const ir::Node* n, const HwConfig& cfg, bool max) {
  // Max commutes with the zero-point offset (and pads with -128, the minimum).
  if (std::string why = Int8Problem(*n, 1, max); !why.empty()) return CpuPlacement(n, why);
  const ir::Value* x = n->input(0);
  if (x->type().rank() != 4) return CpuPlacement(n, "only 2-D pooling is offloaded");
  for (int64_t d : n->attrs().Ints("dilations", {1, 1}))
    if (d != 1) return CpuPlacement(n, "dilated pooling");
  const auto& xs = x->type().shape;
  const auto& ys = n->output()->type().shape;
  const auto k = n->attrs().Ints("kernel");
  const auto strides = n->attrs().Ints("strides", {1, 1});
  const auto pads = n->attrs().Ints("pads", {0, 0, 0, 0});
  PoolCodegen pc;
  pc.name = n->Label();
  pc.max = max;
  pc.n = xs[0], pc.c = xs[1], pc.ih = xs[2], pc.iw = xs[3];
  pc.oh = ys[2], pc.ow = ys[3];
  pc.kh = k.size() == 2 ? k[0] : xs[2], pc.kw = k.size() == 2 ? k[1] : xs[3];
  pc.sh = strides[0], pc.sw = strides[1], pc.pt = pads[0], pc.pl = pads[1];
  if (!max) {
    const auto m = n->attrs().Ints("multiplier");
    if (m.size() != 1) return CpuPlacement(n, "per-channel average pool multipliers are not offloaded");
    pc.shift = static_cast<int>(n->attrs().Int("shift"));
  }
  if (Status s = CheckPool(cfg, pc); !s.ok()) return DoesNotFit(n, s);
  Placement p;
  p.node = n;
  p.kind = PlaceKind::kAccel;
  p.op = AccelOp::kPool;
  p.pool = pc;
  p.reason = fmt::format("{} pool {}x{} on the ALU", max ? "max" : "average", pc.kh, pc.kw);
  return p;
}

}  // namespace

Placement CpuPlacement(const ir::Node* n, std::string reason) {
  Placement p;
  p.node = n;
  p.kind = PlaceKind::kCpu;
  p.reason = std::move(reason);
  return p;
}

Placement DoesNotFit(const ir::Node* n, const Status& s) {
  Placement p = CpuPlacement(n, s.message());
  p.cannot_fit = s.code() == StatusCode::kResourceExhausted;
  return p;
}

Placement AccelPlacement(const ir::Node* n, AccelOp op, std::string reason) {
  Placement p;
  p.node = n;
  p.kind = PlaceKind::kAccel;
  p.op = op;
  p.reason = std::move(reason);
  return p;
}

bool ActShapeOf(const ir::TensorType& t, int64_t* n, int64_t* c, int64_t* h, int64_t* w) {
  if (t.rank() == 4) {
    *n = t.shape[0], *c = t.shape[1], *h = t.shape[2], *w = t.shape[3];
    return true;
  }
  if (t.rank() == 2 || t.rank() == 3) {  // rank 3: the rows of a [B, T, K] matmul operand
    *c = t.shape.back(), *n = *c ? t.numel() / *c : 0, *h = *w = 1;
    return true;
  }
  return false;
}

int64_t ZeroPointOf(const ir::Value* v) {
  const auto& q = v->type().quant;
  return q && !q->per_axis() && !q->zero_point.empty() ? q->zero_point[0] : 0;
}

ConvEpilogue EpilogueOf(const ir::Node& n) {
  return ConvEpilogue::ForRange(n.attrs().Int("act_min", -128), n.attrs().Int("act_max", 127), ZeroPointOf(n.output()));
}

bool RetileForFusion(const HwConfig& cfg, const ConvEpilogue& e, const std::string& what, Placement* conv) {
  StatusOr<ConvTiling> t = PlanConv(cfg, conv->geo, e, conv->nonzero);
  if (!t.ok()) return false;
  const std::string before = conv->tiling.ToString();
  if (size_t at = conv->reason.find(before); at != std::string::npos)
    conv->reason.replace(at, before.size(), what + " fused into the epilogue; " + t->ToString());
  conv->tiling = *t;
  conv->epilogue = e;
  return true;
}

StatusOr<std::vector<Placement>> Partition(const ir::Graph& g, const HwConfig& cfg, const PartitionOptions& opts) {
  std::vector<Placement> out;
  std::set<const ir::Value*> host(g.inputs().begin(), g.inputs().end());
  std::set<const ir::Value*> device;
  std::set<const ir::Value*> rows;  // rank >= 4 device values packed as rows (batch_matmul.h)
  if (cfg.block_in != cfg.block_out) {
    for (const ir::Node* n : g.nodes()) out.push_back(CpuPlacement(n, "the config's BLOCK_IN differs from BLOCK_OUT"));
    return out;
  }
  for (const ir::Node* n : g.nodes()) {
    Placement p;
    const std::string& op = n->op();
    if (op == "qconv") {
      p = PlaceConv(n, cfg, host, opts);
    } else if (op == "qmatmul") {
      p = PlaceMatMul(n, cfg);
    } else if (op == "qbatch_matmul") {
      p = PlaceBatchMatMul(n, cfg, device, rows);
    } else if (op == "max_pool") {
      p = PlacePool(n, cfg, true);
    } else if (op == "qavg_pool") {
      p = PlacePool(n, cfg, false);
    } else if (op == "qadd") {
      if (std::string why = Int8Problem(*n, 2); !why.empty())
        p = CpuPlacement(n, why);
      else if (n->input(0)->type().shape != n->input(1)->type().shape)
        p = CpuPlacement(n, "broadcasting add");
      else if (n->input(0)->type().rank() != 4 && n->input(0)->type().rank() != 2)
        p = CpuPlacement(n, "rank other than 2 or 4");
      else
        p = AccelPlacement(n, AccelOp::kAdd, "element-wise on the ALU");
    } else if (op == "qmul") {
      const ir::TensorType& a = n->input(0)->type();
      if (std::string why = Int8Problem(*n, 2); !why.empty())
        p = CpuPlacement(n, why);
      else if (a.rank() != 4 && a.rank() != 2)
        p = CpuPlacement(n, "rank other than 2 or 4");
      else if (a.shape == n->input(1)->type().shape &&
               std::any_of(n->inputs().begin(), n->inputs().end(),
                           [&](const ir::Value* v) { return v->producer() && host.count(v); }))
        // SiLU's x * sigmoid(x) with the sigmoid on the CPU: the ALU would need that whole operand uploaded.
        p = CpuPlacement(n, "element-wise product with an operand computed on the CPU");
      else
        p = AccelPlacement(n, AccelOp::kMul,
                           a.shape == n->input(1)->type().shape
                               ? "element-wise product on the ALU"
                               : "per-channel scaling on the ALU (one factor tile per plane)");
    } else if (op == "qhard_sigmoid" || op == "qhard_swish" ||
               (op == "requantize" && n->attrs().Ints("multiplier").size() == 1)) {
      const ir::TensorType& x = n->input(0)->type();
      if (std::string why = Int8Problem(*n, 1); !why.empty())
        p = CpuPlacement(n, why);
      else if (x.rank() != 4 && x.rank() != 2)
        p = CpuPlacement(n, "rank other than 2 or 4");
      else if (!device.count(n->input(0)))
        p = CpuPlacement(n, "element-wise op on a value computed on the CPU (the ALU would need it uploaded)");
      else if (n->input(0)->producer() && n->input(0)->producer()->op() == "concat")
        p = CpuPlacement(
            n, "reads a concat, which may be channel slices of another buffer (the program reads whole tiles)");
      else
        p = AccelPlacement(n, AccelOp::kUnary, "element-wise ALU program");
    } else if (op == "flatten" && device.count(n->input(0)) && n->input(0)->type().rank() == 4 &&
               n->input(0)->type().shape[2] == 1 && n->input(0)->type().shape[3] == 1 &&
               n->attrs().Int("axis", 1) == 1) {
      p.node = n;
      p.kind = PlaceKind::kAlias;
      p.reason = "[N, C, 1, 1] -> [N, C] has the same packed layout";
    } else if (op == "conv" || op == "gemm" || op == "matmul" || op == "qlinear_conv" || op == "qlinear_matmul") {
      p = CpuPlacement(n, QuantLayerReason(n));
    } else {
      p = CpuPlacement(n, fmt::format("no accelerator form for '{}'", op));
    }
    if (p.cannot_fit && !opts.cpu_fallback)
      return ResourceExhaustedError(
          "{} cannot run on config '{}': {}; use a larger config, or compile with "
          "--cpu-fallback to run it on the CPU",
          n->Describe(), cfg.name, p.reason);
    if (p.cannot_fit) p.reason = "does not fit the accelerator: " + p.reason;
    if (p.kind != PlaceKind::kCpu && p.op != AccelOp::kBatchMatMul &&
        std::any_of(n->inputs().begin(), n->inputs().end(), [&](const ir::Value* v) { return rows.count(v) > 0; }))
      p = CpuPlacement(n, "reads a matrix product's result held as rows");
    if (p.op == AccelOp::kBatchMatMul && n->output()->type().rank() >= 4) rows.insert(n->output());
    for (const ir::Value* v : n->outputs()) (p.kind == PlaceKind::kCpu ? host : device).insert(v);
    out.push_back(std::move(p));
  }
  // An element-wise program whose result only the host reads runs there: the
  // host would download its input or its result, and the input's download
  // may serve other host readers too (DenseNet's per-concat requantizes).
  std::map<const ir::Node*, size_t> index;
  for (size_t i = 0; i < out.size(); ++i) index[out[i].node] = i;
  for (size_t i = out.size(); i-- > 0;) {
    if (out[i].kind != PlaceKind::kAccel || out[i].op != AccelOp::kUnary) continue;
    const std::vector<ir::Node*> users = out[i].node->output()->users();
    if (std::all_of(users.begin(), users.end(),
                    [&](const ir::Node* u) { return out[index.at(u)].kind == PlaceKind::kCpu; }))
      out[i] = CpuPlacement(out[i].node, "element-wise op whose result only the CPU reads");
  }
  FuseConvShuffle(g, cfg, &out);
  if (opts.fuse_pools) FuseConvMaxPool(g, cfg, &out);
  if (opts.fuse_adds) FuseConvAdd(g, cfg, &out);
  return out;
}

}  // namespace tessera::backend
