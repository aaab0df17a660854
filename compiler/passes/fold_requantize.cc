// fold-requantize: a requantize to another scale right after a qconv/qmatmul
// (its only use) becomes part of the layer's own requantization: the
// multipliers absorb the scale ratio and the clamp bounds are carried over.
// The same for a requantization with zero points (fold-qdq writes it as a
// 1x1 qconv with identity weights) after a qconv: the layer takes the new
// zero point too, and its clamp bounds move with it. The quantizer and
// fold-qdq put one before every concat operand whose parameters differ from
// the concat's; folded, the operand's producer writes the concat's
// parameters directly and the concat can run in place on the device. One
// rounding instead of two: the int8 graph changes (closer to fp32), the CPU
// reference and the accelerator still agree because both run the rewritten
// graph.
//   before: %c: i8<s=0.02> = qconv(%x, %w, %b) {act_min=0, multiplier=[M], shift=s}
//           %r: i8<s=0.05> = requantize(%c) {multiplier=[M2], shift=s2}
//   after:  %r: i8<s=0.05> = qconv(%x, %w, %b) {act_min=0, multiplier=[M * 0.4], shift=s'}
#include <algorithm>
#include <cmath>

#include "compiler/ir/graph.h"
#include "compiler/passes/fold_qdq.h"
#include "compiler/passes/pass.h"
#include "compiler/passes/rewrite.h"
#include "compiler/quant/fixed_point.h"

namespace tessera::passes {
namespace {

bool Fold(ir::Graph& g, ir::Node* r) {
  ir::Value* x = r->input(0);
  ir::Node* p = x->producer();
  if (p == nullptr || (p->op() != "qconv" && p->op() != "qmatmul") || !SingleNodeUse(g, x) ||
      !qdq::PerTensorI8(x->type()) || !qdq::PerTensorI8(r->output()->type()) ||
      (r->op() != "requantize" && !(p->op() == "qconv" && IsIdentitySelection(*r))))
    return false;
  const double ratio = double(x->type().quant->scale[0]) / r->output()->type().quant->scale[0];
  const int64_t zx = qdq::ZeroPoint(x->type()), zr = qdq::ZeroPoint(r->output()->type());
  const auto moved = [&](int64_t v) { return std::clamp(std::lround((v - zx) * ratio) + zr, -128L, 127L); };
  const int shift = static_cast<int>(p->attrs().Int("shift"));
  std::vector<double> real;
  for (int64_t m : p->attrs().Ints("multiplier")) real.push_back(quant::FixedPointValue(m, shift) * ratio);
  auto fp = quant::ChooseFixedPoint(real);
  if (!fp.ok()) return false;
  // The layer clamps to [lo, hi] in its old scale; the requantize to [lo2, hi2].
  const int64_t lo = std::max(r->attrs().Int("act_min", -128), moved(p->attrs().Int("act_min", -128)));
  const int64_t hi = std::min(r->attrs().Int("act_max", 127), moved(p->attrs().Int("act_max", 127)));
  if (lo > hi) return false;
  ir::Attrs a = p->attrs();
  a.Set("multiplier", fp->multiplier);
  a.Set("shift", static_cast<int64_t>(fp->shift));
  a.Erase("act_min"), a.Erase("act_max");
  qdq::SetActBounds(&a, lo, hi);
  p->attrs() = a;
  x->set_type(r->output()->type());
  Forward(g, r, r->output(), x);
  return true;
}

}  // namespace

StatusOr<PassStats> FoldRequantize(ir::Graph& g) {
  PassStats stats;
  std::vector<ir::Node*> work;
  for (ir::Node* n : g.nodes())
    if (n->op() == "requantize" || IsIdentitySelection(*n)) work.push_back(n);
  for (ir::Node* r : work)
    if (Fold(g, r)) stats.Count("folded");
  return stats;
}

}  // namespace tessera::passes
