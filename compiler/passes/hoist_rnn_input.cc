// hoist-rnn-input: the input projections x_t W^T of a recurrent layer (lstm,
// gru, rnn) for all time steps are one matrix product, independent of the
// recurrence: it moves out of the layer into a matmul over [T, B, I] (which
// the quantizer makes a [T*B, I] x [I, D*G*H] qmatmul on the GEMM core); the
// layer keeps the recurrence h_{t-1} R^T and its biases, reads the projected
// input (attribute input_projected = 1) and gets an empty w [D, G*H, 0].
//   before: %y, %h, %c = lstm(%x, %w, %r, %b, %h0, %c0) {hidden_size=48}
//   after:  %x.proj = matmul(%x, %w.t)                   (%w.t: f32[I, D*4H])
//           %y, %h, %c = lstm(%x.proj, %w.none, %r, %b, %h0, %c0) {hidden_size=48, input_projected=1}
#include "compiler/ir/graph.h"
#include "compiler/passes/pass.h"

namespace tessera::passes {

StatusOr<PassStats> HoistRnnInput(ir::Graph& g) {
  PassStats stats;
  for (ir::Node* n : g.nodes()) {
    if ((n->op() != "lstm" && n->op() != "gru" && n->op() != "rnn") || n->attrs().Int("input_projected", 0)) continue;
    ir::Value* x = n->input(0);
    const ir::Value* w = n->input(1);
    if (!w->is_constant() || w->type().dtype != ir::DType::kF32 || w->type().rank() != 3 || x->type().rank() != 3)
      continue;
    const ir::Shape& ws = w->type().shape;  // [D, G*H, I]
    const int64_t d = ws[0], gh = ws[1], in = ws[2];
    ir::Tensor wt(ir::DType::kF32, {in, d * gh});  // wt[i][dd*GH + r] = w[dd][r][i]
    const float* src = w->data().data<float>();
    for (int64_t dd = 0; dd < d; ++dd)
      for (int64_t r = 0; r < gh; ++r)
        for (int64_t i = 0; i < in; ++i) wt.data<float>()[i * d * gh + dd * gh + r] = src[(dd * gh + r) * in + i];
    ir::Value* wv = g.AddConstant(g.UniqueName(w->name() + ".t"), std::move(wt));
    ir::Node* mm = g.AddNode("matmul", {x, wv}, {g.UniqueName(x->name() + ".proj")}, {}, n->name() + ".proj", n);
    const ir::Shape& xs = x->type().shape;
    mm->output()->set_type(ir::TensorType(ir::DType::kF32, {xs[0], xs[1], d * gh}));
    ir::Value* none = g.AddConstant(g.UniqueName(w->name() + ".none"), ir::Tensor(ir::DType::kF32, {d, gh, 0}));
    n->SetInput(0, mm->output());
    n->SetInput(1, none);
    n->attrs().Set("input_projected", int64_t{1});
    stats.Count("hoisted");
  }
  return stats;
}

}  // namespace tessera::passes
