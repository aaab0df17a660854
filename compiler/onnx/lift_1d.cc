// 1-D convolutions and pools (x[N,C,L]) run as 2-D ones over [N,C,1,L]: the
// node is rewritten with a unit height -- kernel [1,k], strides [1,s],
// dilations [1,d], pads [0,b,0,e], output_padding [0,p], output_shape [1,L'] --
// its operands unsqueezed at axis 2 and its result squeezed back.
//   Conv(x[1,2,9], w[4,2,3]) -> squeeze(conv(unsqueeze(x), w[4,2,1,3]))
#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

// A rank-3 operand as rank 4 with a unit axis 2 (constants are reshaped).
StatusOr<std::string> Lift(ImportContext& ctx, const onnx::NodeProto& n, int i) {
  TSR_ASSIGN_OR_RETURN(ir::Value * v, ctx.Input(n, i));
  if (v->type().rank() != 3) return ctx.Error(n, "input {} '{}' must have rank 3", i, n.input(i));
  const std::string name = ctx.NewName(v->name() + ".2d");
  ir::Shape s = v->type().shape;
  s.insert(s.begin() + 2, 1);
  if (v->is_constant()) {
    ir::Tensor t = v->data();
    t.Reshape(s);
    ctx.Define(name, ctx.graph().AddConstant(name, std::move(t)));
    return name;
  }
  ir::Attrs a;
  a.Set("axes", std::vector<int64_t>{2});
  TSR_ASSIGN_OR_RETURN(ir::Value * u, ctx.EmitInternal(n, "unsqueeze", {v}, a, v->name() + ".2d"));
  ctx.Define(name, u);
  return name;
}

void Prepend(onnx::AttributeProto* a, int64_t value, bool pads) {
  std::vector<int64_t> v(a->ints().begin(), a->ints().end());
  a->clear_ints();
  if (pads && v.size() == 2)
    v = {0, v[0], 0, v[1]};
  else
    v.insert(v.begin(), value);
  for (int64_t x : v) a->add_ints(x);
}

}  // namespace

Status ConvertLifted1D(ImportContext& ctx, const onnx::NodeProto& n, Converter convert2d) {
  onnx::NodeProto n2 = n;
  // Operands: x, and the weight for Conv / ConvTranspose (inputs beyond stay).
  const bool conv = n.op_type() == "Conv" || n.op_type() == "ConvTranspose";
  for (int i = 0; i < (conv ? 2 : 1); ++i) {
    TSR_ASSIGN_OR_RETURN(std::string lifted, Lift(ctx, n, i));
    n2.set_input(i, lifted);
  }
  for (auto& a : *n2.mutable_attribute()) {
    const std::string& k = a.name();
    if (k == "kernel_shape" || k == "strides" || k == "dilations" || k == "output_padding")
      Prepend(&a, 1, false);
    else if (k == "pads")
      Prepend(&a, 0, true);
    else if (k == "output_shape")
      Prepend(&a, 1, false);
  }
  const std::string out2d = ctx.NewName(n.output(0) + ".2d");
  n2.set_output(0, out2d);
  TSR_RETURN_IF_ERROR(convert2d(ctx, n2));
  ir::Value* y = ctx.Lookup(out2d);
  TSR_CHECK(y != nullptr, "lifted converter produced no result");
  ir::Attrs a;
  a.Set("axes", std::vector<int64_t>{2});
  onnx::NodeProto squeeze = n;
  squeeze.clear_output();
  squeeze.add_output(n.output(0));
  for (int i = 1; i < n.output_size(); ++i) squeeze.add_output(n.output(i));
  return ctx.Emit(squeeze, "squeeze", {y}, a).status();
}

}  // namespace tessera::frontend
