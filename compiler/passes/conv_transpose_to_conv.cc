// conv-transpose-to-conv: a 2-D conv_transpose (group 1, no dilation,
// constant weights) becomes one ordinary conv computing its s_h*s_w output
// phases as channels, then a pixel shuffle and a crop. Output pixel
// o = q*s + r - p (phase r, pad p) sums the taps t = r + s*j of the kernel
// over input q - j, j < T = ceil(k/s): a T-tap correlation with the phase's
// taps reversed (taps past k are zero). The conv is then quantized and placed
// like any other (int8 on the GEMM core); shuffle and crop keep its scale.
//   before: %y: [N,M,OH,OW] = conv_transpose(%x, %w[C,M,kh,kw], %b[M]) {strides=[sh,sw], pads=[pt,pl,..]}
//   after:  %t: [N,M*sh*sw,LH,LW] = conv(%x, %w.ct[M*sh*sw,C,TH,TW], %b.ct) {pads=[TH-1-qh0, TW-1-qw0, ..]}
//           %u = reshape(transpose(reshape(%t, [N,M,sh,sw,LH,LW]), [0,1,4,2,5,3]), [N,M,LH*sh,LW*sw])
//           %y = slice(%u) {starts=[0,0,pt-qh0*sh,pl-qw0*sw], ends=[.., +OH, +OW]}   (omitted when empty)
// with q0 = floor(p/s) .. q1 = floor((p+O-1)/s) the input-grid rows the output
// needs and L = q1 - q0 + 1. Stride = kernel without padding (U-Net's 2x2/2)
// is a 1x1 conv and needs no crop. A clamp fused into the conv_transpose
// moves to the conv (it is per element).
#include <algorithm>

#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"

namespace tessera::passes {
namespace {

// The conv's geometry along one spatial axis.
struct Axis {
  int64_t in = 0, k = 0, s = 1, p = 0, out = 0;  // conv_transpose input, kernel, stride, begin pad, output
  int64_t taps = 0, q0 = 0, len = 0, pad0 = 0, pad1 = 0, crop = 0;

  // False when the begin padding exceeds the kernel (the conv would need a
  // negative padding); such a conv_transpose stays as it is.
  bool Plan() {
    taps = (k + s - 1) / s;
    q0 = p / s;
    len = (p + out - 1) / s - q0 + 1;
    pad0 = taps - 1 - q0;
    pad1 = std::max<int64_t>(0, len - 1 + taps - in - pad0);  // conv output rows >= len; the crop drops extras
    crop = p - q0 * s;
    return pad0 >= 0;
  }
  int64_t ConvOut() const { return in + pad0 + pad1 - taps + 1; }
};

bool AllEqual(const std::vector<int64_t>& v, int64_t x) {
  return std::all_of(v.begin(), v.end(), [x](int64_t e) { return e == x; });
}

bool Rewritable(const ir::Node& n) {
  if (n.op() != "conv_transpose" || n.num_inputs() < 2 || n.input(0)->type().dtype != ir::DType::kF32) return false;
  const ir::Value* w = n.input(1);
  if (!w->is_constant() || w->type().dtype != ir::DType::kF32) return false;
  if (n.num_inputs() > 2 && (!n.input(2)->is_constant() || n.input(2)->type().dtype != ir::DType::kF32)) return false;
  return n.attrs().Int("group", 1) == 1 && AllEqual(n.attrs().Ints("dilations", {1, 1}), 1);
}

ir::Node* Add(ir::Graph& g, ir::Node* n, const char* op, std::vector<ir::Value*> in, const std::string& name,
              ir::Attrs a, ir::Shape shape) {
  ir::Node* r = g.AddNode(op, in, {g.UniqueName(name)}, std::move(a), n->name(), n);
  r->output()->set_type(ir::TensorType(ir::DType::kF32, std::move(shape)));
  return r;
}

}  // namespace

StatusOr<PassStats> ConvTransposeToConv(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    if (!Rewritable(*n)) continue;
    const ir::Tensor& w = n->input(1)->data();
    const auto& xs = n->input(0)->type().shape;
    const auto& ys = n->output()->type().shape;
    const auto strides = n->attrs().Ints("strides", {1, 1});
    const auto pads = n->attrs().Ints("pads", {0, 0, 0, 0});
    const int64_t N = xs[0], C = w.dim(0), M = w.dim(1);
    Axis ax[2];
    bool ok = true;
    for (int i = 0; i < 2; ++i) {
      ax[i].in = xs[2 + i], ax[i].k = w.dim(2 + i), ax[i].s = strides[i], ax[i].p = pads[i], ax[i].out = ys[2 + i];
      ok = ok && ax[i].Plan();
    }
    if (!ok) continue;
    const Axis &h = ax[0], &v = ax[1];
    const int64_t ph = h.s * v.s, oc = M * ph;
    // w.ct[(m, rh, rw), c, a, b] = w[c, m, rh + sh*(TH-1-a), rw + sw*(TW-1-b)] (zero past the kernel).
    ir::Tensor nw(ir::DType::kF32, {oc, C, h.taps, v.taps});
    std::fill(nw.data<float>(), nw.data<float>() + nw.numel(), 0.f);
    const float* src = w.data<float>();
    for (int64_t c = 0; c < C; ++c)
      for (int64_t m = 0; m < M; ++m)
        for (int64_t i = 0; i < h.k; ++i)
          for (int64_t j = 0; j < v.k; ++j) {
            const int64_t o = (m * h.s + i % h.s) * v.s + j % v.s;
            const int64_t a = h.taps - 1 - i / h.s, b = v.taps - 1 - j / v.s;
            nw.data<float>()[((o * C + c) * h.taps + a) * v.taps + b] = src[((c * M + m) * h.k + i) * v.k + j];
          }
    const std::string base = n->output()->name();
    std::vector<ir::Value*> in = {n->input(0), g.AddConstant(g.UniqueName(n->input(1)->name() + ".ct"), std::move(nw))};
    if (n->num_inputs() > 2) {
      ir::Tensor nb(ir::DType::kF32, {oc});
      for (int64_t o = 0; o < oc; ++o) nb.data<float>()[o] = n->input(2)->data().data<float>()[o / ph];
      in.push_back(g.AddConstant(g.UniqueName(n->input(2)->name() + ".ct"), std::move(nb)));
    }
    ir::Attrs ca = UnitConvAttrs(1);
    ca.Set("pads", std::vector<int64_t>{h.pad0, v.pad0, h.pad1, v.pad1});
    for (const char* a : {"act_min", "act_max"})
      if (n->attrs().Has(a)) ca.Set(a, n->attrs().Float(a));
    const int64_t LH = h.ConvOut(), LW = v.ConvOut();
    ir::Node* conv = Add(g, n, "conv", in, base + ".ct", ca, {N, oc, LH, LW});
    ir::Attrs r1, tp, r2;
    r1.Set("shape", std::vector<int64_t>{N, M, h.s, v.s, LH, LW});
    ir::Node* split = Add(g, n, "reshape", {conv->output()}, base + ".ct_phases", r1, {N, M, h.s, v.s, LH, LW});
    tp.Set("perm", std::vector<int64_t>{0, 1, 4, 2, 5, 3});
    ir::Node* tr = Add(g, n, "transpose", {split->output()}, base + ".ct_shuffle", tp, {N, M, LH, h.s, LW, v.s});
    r2.Set("shape", std::vector<int64_t>{N, M, LH * h.s, LW * v.s});
    ir::Node* last = Add(g, n, "reshape", {tr->output()}, base + ".ct_pixels", r2, {N, M, LH * h.s, LW * v.s});
    if (h.crop != 0 || v.crop != 0 || LH * h.s != h.out || LW * v.s != v.out) {
      ir::Attrs sa;
      sa.Set("starts", std::vector<int64_t>{0, 0, h.crop, v.crop});
      sa.Set("ends", std::vector<int64_t>{N, M, h.crop + h.out, v.crop + v.out});
      sa.Set("steps", std::vector<int64_t>{1, 1, 1, 1});
      last = Add(g, n, "slice", {last->output()}, base + ".ct_crop", sa, ys);
    }
    Forward(g, n, n->output(), last->output());
    stats.Count("rewritten");
  }
  return stats;
}

}  // namespace tessera::passes
