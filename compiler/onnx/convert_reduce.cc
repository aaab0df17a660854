// Converters for reductions and normalizations: Reduce* (axes as attribute or,
// for ReduceSum from opset 13, a constant input), ArgMax/ArgMin, Softmax/
// LogSoftmax/Hardmax (opset < 13: over the flattened trailing axes), CumSum,
// LayerNormalization and InstanceNormalization. A ReduceMean over the two
// spatial axes of an NCHW tensor becomes global_avg_pool, which quantizes and
// runs on the accelerator.
#include <algorithm>
#include <iterator>

#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;

std::string IrReduceName(const std::string& onnx) {
  static const std::pair<const char*, const char*> kNames[] = {{"ReduceSum", "reduce_sum"},
                                                               {"ReduceMean", "reduce_mean"},
                                                               {"ReduceMax", "reduce_max"},
                                                               {"ReduceMin", "reduce_min"},
                                                               {"ReduceProd", "reduce_prod"},
                                                               {"ReduceL1", "reduce_l1"},
                                                               {"ReduceL2", "reduce_l2"},
                                                               {"ReduceLogSum", "reduce_log_sum"},
                                                               {"ReduceLogSumExp", "reduce_log_sum_exp"},
                                                               {"ReduceSumSquare", "reduce_sum_square"}};
  for (const auto& [o, i] : kNames)
    if (onnx == o) return i;
  return "";
}

Status ConvertReduce(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  const int64_t keepdims = ar.Int("keepdims", 1);
  const bool noop = ar.Int("noop_with_empty_axes", 0) != 0;
  std::vector<int64_t> axes = ar.Ints("axes", {});
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (ctx.HasInput(n, 1)) {
    TSR_ASSIGN_OR_RETURN(axes, ctx.ConstInts(n, 1, "axes"));
  }
  const int r = x->type().rank();
  if (axes.empty()) {
    if (noop || r == 0) return ctx.Emit(n, "identity", {x}, {}).status();
    for (int i = 0; i < r; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    if (a < -r || a >= r) return ctx.Error(n, "axis {} out of range for rank {}", a, r);
    if (a < 0) a += r;
  }
  std::sort(axes.begin(), axes.end());
  if (n.op_type() == "ReduceMean" && r == 4 && axes == std::vector<int64_t>{2, 3}) {
    if (keepdims) return ctx.Emit(n, "global_avg_pool", {x}, {}).status();
    TSR_ASSIGN_OR_RETURN(ir::Value * p, ctx.EmitInternal(n, "global_avg_pool", {x}, {}, n.output(0) + ".pool"));
    Attrs f;
    f.Set("axis", int64_t{1});
    return ctx.Emit(n, "flatten", {p}, f).status();
  }
  Attrs a;
  a.Set("axes", axes);
  a.Set("keepdims", keepdims);
  return ctx.Emit(n, IrReduceName(n.op_type()), {x}, a).status();
}

Status ConvertArg(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("axis", ar.Int("axis", 0));
  a.Set("keepdims", ar.Int("keepdims", 1));
  a.Set("select_last_index", ar.Int("select_last_index", 0));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  return ctx.Emit(n, n.op_type() == "ArgMax" ? "arg_max" : "arg_min", {x}, a).status();
}

// Softmax, LogSoftmax, Hardmax.
Status ConvertSoftmax(ImportContext& ctx, const onnx::NodeProto& n) {
  const std::string op = n.op_type() == "Softmax" ? "softmax" : n.op_type() == "LogSoftmax" ? "log_softmax" : "hardmax";
  AttrReader ar(ctx, n);
  const bool legacy = ctx.Version(n) < 13;
  int64_t axis = ar.Int("axis", legacy ? 1 : -1);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  const int r = x->type().rank();
  if (axis < -r || axis >= r) return ctx.Error(n, "axis {} out of range for rank {}", axis, r);
  if (axis < 0) axis += r;
  Attrs a;
  if (!legacy || axis == r - 1) {
    a.Set("axis", legacy ? int64_t{-1} : axis);
    return ctx.Emit(n, op, {x}, a).status();
  }
  // Opset < 13: the op runs over the flattened trailing dimensions [axis, r).
  Attrs f;
  f.Set("axis", axis);
  TSR_ASSIGN_OR_RETURN(ir::Value * flat, ctx.EmitInternal(n, "flatten", {x}, f, n.output(0) + ".2d"));
  a.Set("axis", int64_t{1});
  TSR_ASSIGN_OR_RETURN(ir::Value * sm, ctx.EmitInternal(n, op, {flat}, a, n.output(0) + ".2d"));
  Attrs rs;
  rs.Set("shape", x->type().shape);
  return ctx.Emit(n, "reshape", {sm}, rs).status();
}

Status ConvertCumSum(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("exclusive", ar.Int("exclusive", 0));
  a.Set("reverse", ar.Int("reverse", 0));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstInts(n, 1, "axis"));
  if (axis.size() != 1) return ctx.Error(n, "input 'axis' must be a scalar");
  a.Set("axis", axis[0]);
  return ctx.Emit(n, "cumsum", {x}, a).status();
}

// The optional Mean and InvStdDev outputs (kept dimensions) are computed
// beside the fused layer_norm from reductions.
Status LayerNormStats(ImportContext& ctx, const onnx::NodeProto& n, ir::Value* x, int64_t axis, float eps) {
  const int r = x->type().rank();
  if (axis < 0) axis += r;
  std::vector<int64_t> axes;
  for (int64_t d = axis; d < r; ++d) axes.push_back(d);
  Attrs red;
  red.Set("axes", axes);
  red.Set("keepdims", int64_t{1});
  const std::string base = n.output(0);
  auto one_output = [&](int i) {
    onnx::NodeProto o = n;
    o.clear_output();
    o.add_output(n.output(i));
    return o;
  };
  const bool want_mean = n.output_size() > 1 && !n.output(1).empty();
  const bool want_inv = n.output_size() > 2 && !n.output(2).empty();
  ir::Value* mean;
  if (want_mean) {
    TSR_ASSIGN_OR_RETURN(mean, ctx.Emit(one_output(1), "reduce_mean", {x}, red));
  } else {
    TSR_ASSIGN_OR_RETURN(mean, ctx.EmitInternal(n, "reduce_mean", {x}, red, base + ".mean"));
  }
  if (!want_inv) return OkStatus();
  TSR_ASSIGN_OR_RETURN(ir::Value * d, ctx.EmitInternal(n, "sub", {x, mean}, {}, base + ".centered"));
  TSR_ASSIGN_OR_RETURN(ir::Value * sq, ctx.EmitInternal(n, "mul", {d, d}, {}, base + ".sq"));
  TSR_ASSIGN_OR_RETURN(ir::Value * var, ctx.EmitInternal(n, "reduce_mean", {sq}, red, base + ".var"));
  ir::Tensor e(ir::DType::kF32, {});
  e.data<float>()[0] = eps;
  ir::Value* ev = ctx.graph().AddConstant(ctx.NewName(base + ".eps"), std::move(e));
  TSR_ASSIGN_OR_RETURN(ir::Value * ve, ctx.EmitInternal(n, "add", {var, ev}, {}, base + ".var_eps"));
  TSR_ASSIGN_OR_RETURN(ir::Value * sd, ctx.EmitInternal(n, "sqrt", {ve}, {}, base + ".std"));
  return ctx.Emit(one_output(2), "reciprocal", {sd}, {}).status();
}

Status ConvertLayerNorm(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  const int64_t axis = ar.Int("axis", -1);
  const float eps = ar.Float("epsilon", 1e-5f);
  a.Set("axis", axis);
  a.Set("epsilon", eps);
  if (ar.Int("stash_type", 1) != 1) return ctx.Unsupported(n, "attribute 'stash_type' other than float");
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 2));
  TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 2, &ins));
  onnx::NodeProto first = n;
  first.clear_output();
  first.add_output(n.output(0));
  TSR_RETURN_IF_ERROR(ctx.Emit(first, "layer_norm", ins, a).status());
  if (n.output_size() > 1) return LayerNormStats(ctx, n, ins[0], axis, eps);
  return OkStatus();
}

Status ConvertInstanceNorm(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("epsilon", ar.Float("epsilon", 1e-5f));
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 3));
  return ctx.Emit(n, "instance_norm", ins, a).status();
}

const ConverterEntry kEntries[] = {
    {"ReduceSum", ConvertReduce, 1},
    {"ReduceMean", ConvertReduce, 1},
    {"ReduceMax", ConvertReduce, 1},
    {"ReduceMin", ConvertReduce, 1},
    {"ReduceProd", ConvertReduce, 1},
    {"ReduceL1", ConvertReduce, 1},
    {"ReduceL2", ConvertReduce, 1},
    {"ReduceLogSum", ConvertReduce, 1},
    {"ReduceLogSumExp", ConvertReduce, 1},
    {"ReduceSumSquare", ConvertReduce, 1},
    {"ArgMax", ConvertArg, 1},
    {"ArgMin", ConvertArg, 1},
    {"Softmax", ConvertSoftmax, 1},
    {"LogSoftmax", ConvertSoftmax, 1},
    {"Hardmax", ConvertSoftmax, 1},
    {"CumSum", ConvertCumSum},
    {"LayerNormalization", ConvertLayerNorm},
    {"InstanceNormalization", ConvertInstanceNorm, 6},
};

}  // namespace

std::vector<ConverterEntry> ReduceConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
