// Converters for network ops: Conv, ConvTranspose, Gemm, MatMul, pooling and
// BatchNormalization. Spatial ops are 2-D (NCHW, 1-D lifted); auto_pad is
// resolved into explicit pads.
#include <cmath>
#include <iterator>

#include "compiler/onnx/context.h"

namespace tessera::frontend {
namespace {

using ir::Attrs;

// Reads strides, dilations, pads and auto_pad for a 2-D window of `kernel`
// over input spatial dims (h, w); writes explicit attributes into `out`.
Status ReadWindow(ImportContext& ctx, const onnx::NodeProto& n, AttrReader& ar, const ir::Shape& x,
                  const std::vector<int64_t>& kernel, bool dilations, Attrs* out) {
  auto strides = ar.Ints("strides", {1, 1});
  auto dil = dilations ? ar.Ints("dilations", {1, 1}) : std::vector<int64_t>{1, 1};
  auto pads = ar.Ints("pads", {0, 0, 0, 0});
  const std::string auto_pad = ar.Str("auto_pad", "NOTSET");
  if (strides.size() != 2) return ctx.Error(n, "attribute 'strides' must have 2 entries");
  if (dil.size() != 2) return ctx.Error(n, "attribute 'dilations' must have 2 entries");
  if (pads.size() != 4) return ctx.Error(n, "attribute 'pads' must have 4 entries");
  for (int i = 0; i < 2; ++i)
    if (strides[i] < 1 || dil[i] < 1) return ctx.Error(n, "strides and dilations must be positive");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      const int64_t in = x[2 + i], o = (in + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1 - in);
      const int64_t small = total / 2, large = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[i + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
  } else if (auto_pad == "VALID") {
    pads = {0, 0, 0, 0};
  } else if (auto_pad != "NOTSET") {
    return ctx.Unsupported(n, "attribute 'auto_pad' value '{}' is not supported", auto_pad);
  }
  out->Set("strides", strides);
  out->Set("pads", pads);
  if (dilations) out->Set("dilations", dil);
  return OkStatus();
}

Status Require2D(ImportContext& ctx, const onnx::NodeProto& n, ir::Value* x) {
  if (x->type().rank() != 4)
    return ctx.Unsupported(n, "only 1-D and 2-D (NCL, NCHW) inputs are supported, input '{}' has rank {}", x->name(),
                           x->type().rank());
  return OkStatus();
}

Status ConvertConv(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 1));
  Attrs a;
  TSR_RETURN_IF_ERROR(ReadConvAttrs(ctx, n, ar, x, w, &a));
  TSR_RETURN_IF_ERROR(ar.Finish());
  std::vector<ir::Value*> ins = {x, w};
  TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 2, &ins));
  return ctx.Emit(n, "conv", ins, a).status();
}

Status ConvertConvTranspose(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_ASSIGN_OR_RETURN(ir::Value * w, ctx.Input(n, 1));
  TSR_RETURN_IF_ERROR(Require2D(ctx, n, x));
  if (w->type().rank() != 4) return ctx.Error(n, "weight '{}' must have rank 4", w->name());
  const std::vector<int64_t> k = {w->type().shape[2], w->type().shape[3]};
  if (ar.Has("kernel_shape") && ar.Ints("kernel_shape", {}) != k)
    return ctx.Error(n, "attribute 'kernel_shape' disagrees with the weight shape");
  auto strides = ar.Ints("strides", {1, 1}), dil = ar.Ints("dilations", {1, 1}), pads = ar.Ints("pads", {0, 0, 0, 0}),
       op = ar.Ints("output_padding", {0, 0}), oshape = ar.Ints("output_shape", {});
  const std::string auto_pad = ar.Str("auto_pad", "NOTSET");
  const int64_t group = ar.Int("group", 1);
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4 || op.size() != 2)
    return ctx.Error(n, "strides, dilations, output_padding need 2 entries and pads 4");
  if (oshape.size() > 2) oshape.erase(oshape.begin(), oshape.end() - 2);  // accept [N, C, H, W] too
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")
    oshape = {x->type().shape[2] * strides[0], x->type().shape[3] * strides[1]};
  else if (auto_pad == "VALID")
    pads = {0, 0, 0, 0};
  else if (auto_pad != "NOTSET")
    return ctx.Unsupported(n, "attribute 'auto_pad' value '{}' is not supported", auto_pad);
  if (!oshape.empty()) {
    if (oshape.size() != 2) return ctx.Error(n, "attribute 'output_shape' must have 2 spatial entries");
    for (int i = 0; i < 2; ++i) {
      int64_t total = strides[i] * (x->type().shape[2 + i] - 1) + op[i] + (k[i] - 1) * dil[i] + 1 - oshape[i];
      if (total < 0) {  // the output extends past the last window: that is output padding
        op[i] -= total;
        total = 0;
      }
      const bool upper = auto_pad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
  }
  Attrs a;
  a.Set("strides", strides);
  a.Set("pads", pads);
  a.Set("dilations", dil);
  a.Set("group", group);
  if (op != std::vector<int64_t>{0, 0}) a.Set("output_padding", op);
  std::vector<ir::Value*> ins = {x, w};
  TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 2, &ins));
  return ctx.Emit(n, "conv_transpose", ins, a).status();
}

Status ConvertGemm(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  const float alpha = ar.Float("alpha", 1.f), beta = ar.Float("beta", 1.f);
  const int64_t ta = ar.Int("transA", 0), tb = ar.Int("transB", 0);
  if (ctx.Version(n) < 7) ar.Ignore("broadcast");  // C always broadcasts from opset 7 on
  TSR_RETURN_IF_ERROR(ar.Finish());
  if (alpha != 1.f) a.Set("alpha", alpha);
  if (beta != 1.f) a.Set("beta", beta);
  if (ta) a.Set("trans_a", int64_t{1});
  if (tb) a.Set("trans_b", int64_t{1});
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 2));
  TSR_RETURN_IF_ERROR(ctx.AppendOptionalInput(n, 2, &ins));
  return ctx.Emit(n, "gemm", ins, a).status();
}

Status ConvertPool(ImportContext& ctx, const onnx::NodeProto& n) {
  const bool max = n.op_type() == "MaxPool";
  AttrReader ar(ctx, n);
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  TSR_RETURN_IF_ERROR(Require2D(ctx, n, x));
  auto kernel = ar.Ints("kernel_shape", {});
  if (kernel.size() != 2) return ctx.Error(n, "attribute 'kernel_shape' must have 2 entries");
  Attrs a;
  a.Set("kernel", kernel);
  TSR_RETURN_IF_ERROR(ReadWindow(ctx, n, ar, x->type().shape, kernel, max, &a));
  if (ar.Int("ceil_mode", 0)) a.Set("ceil_mode", int64_t{1});
  if (max) {
    if (ar.Int("storage_order", 0) != 0) return ctx.Unsupported(n, "attribute 'storage_order' = 1 is not supported");
  } else if (ar.Int("count_include_pad", 0)) {
    a.Set("count_include_pad", int64_t{1});
  }
  TSR_RETURN_IF_ERROR(ar.Finish());
  return ctx.Emit(n, max ? "max_pool" : "avg_pool", {x}, a).status();
}

Status ConvertBatchNorm(ImportContext& ctx, const onnx::NodeProto& n) {
  AttrReader ar(ctx, n);
  Attrs a;
  a.Set("epsilon", ar.Float("epsilon", 1e-5f));
  ar.Ignore("momentum");  // only used in training
  if (ar.Int("training_mode", 0) != 0) return ctx.Unsupported(n, "attribute 'training_mode' = 1 is not supported");
  if (ar.Int("is_test", 1) == 0) return ctx.Unsupported(n, "attribute 'is_test' = 0 (training) is not supported");
  if (ar.Int("spatial", 1) != 1) return ctx.Unsupported(n, "attribute 'spatial' = 0 is not supported");
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, 5));
  return ctx.Emit(n, "batch_norm", ins, a).status();
}

// 2-D converters also take 1-D nodes, lifted to a unit height.
template <Converter convert2d>
Status SpatialConverter(ImportContext& ctx, const onnx::NodeProto& n) {
  TSR_ASSIGN_OR_RETURN(ir::Value * x, ctx.Input(n, 0));
  if (x->type().rank() == 3) return ConvertLifted1D(ctx, n, convert2d);
  return convert2d(ctx, n);
}

const ConverterEntry kEntries[] = {
    {"Conv", SpatialConverter<ConvertConv>, 1},
    {"ConvTranspose", SpatialConverter<ConvertConvTranspose>, 1},
    {"Gemm", ConvertGemm, 6},
    {"MatMul", [](ImportContext& c, const onnx::NodeProto& n) { return ConvertSimple(c, n, "matmul", 2); }, 1},
    {"GlobalAveragePool",
     [](ImportContext& c, const onnx::NodeProto& n) { return ConvertSimple(c, n, "global_avg_pool", 1); }},
    {"GlobalMaxPool",
     [](ImportContext& c, const onnx::NodeProto& n) { return ConvertSimple(c, n, "global_max_pool", 1); }},
    {"MaxPool", SpatialConverter<ConvertPool>, 1},
    {"AveragePool", SpatialConverter<ConvertPool>, 1},
    {"BatchNormalization", ConvertBatchNorm, 6},
};

}  // namespace

// Ops with only positional inputs and no attributes.
Status ConvertSimple(ImportContext& ctx, const onnx::NodeProto& n, const std::string& op, int inputs) {
  AttrReader ar(ctx, n);
  TSR_RETURN_IF_ERROR(ar.Finish());
  TSR_ASSIGN_OR_RETURN(std::vector<ir::Value*> ins, ctx.Inputs(n, inputs));
  return ctx.Emit(n, op, ins, {}).status();
}

Status ReadConvAttrs(ImportContext& ctx, const onnx::NodeProto& n, AttrReader& ar, ir::Value* x, ir::Value* w,
                     Attrs* out) {
  TSR_RETURN_IF_ERROR(Require2D(ctx, n, x));
  if (w->type().rank() != 4) return ctx.Error(n, "weight '{}' must have rank 4", w->name());
  const std::vector<int64_t> k = {w->type().shape[2], w->type().shape[3]};
  if (ar.Has("kernel_shape") && ar.Ints("kernel_shape", {}) != k)
    return ctx.Error(n, "attribute 'kernel_shape' disagrees with the weight shape {}",
                     ir::ShapeToString(w->type().shape));
  TSR_RETURN_IF_ERROR(ReadWindow(ctx, n, ar, x->type().shape, k, true, out));
  out->Set("group", ar.Int("group", 1));
  return OkStatus();
}

std::vector<ConverterEntry> NnConverters() { return {std::begin(kEntries), std::end(kEntries)}; }

}  // namespace tessera::frontend
