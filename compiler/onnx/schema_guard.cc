#include "compiler/onnx/schema_guard.h"

#include <cstddef>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"

namespace tessera::frontend {
namespace {

// Wraps the inference of every definition of `op` older than `checked_since`
// (the first version whose inference checks ranks itself): inputs 0..n-1 with
// a known shape must have rank `rank` before the original runs.
void RequireInputRanks(const char* op, int checked_since, size_t n, int rank) {
  for (int v = 1; v < checked_since; ++v) {
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op, v, "");
    if (!s || s->SinceVersion() != v || !s->has_type_and_shape_inference_function()) continue;
    // The registry owns its schemas as non-const objects; it hands out const
    // pointers only. Wrapping happens once, before the importer first infers.
    auto* schema = const_cast<onnx::OpSchema*>(s);
    onnx::InferenceFunction inner = schema->GetTypeAndShapeInferenceFunction();
    std::vector<std::string> names;
    for (size_t i = 0; i < n && i < schema->inputs().size(); ++i) names.push_back(schema->inputs()[i].GetName());
    schema->TypeAndShapeInferenceFunction([inner, op, names, rank](onnx::InferenceContext& ctx) {
      for (size_t i = 0; i < names.size(); ++i)
        if (onnx::hasInputShape(ctx, i) && onnx::getInputShape(ctx, i).dim_size() != rank)
          fail_shape_inference("input ", names[i], " has rank ", onnx::getInputShape(ctx, i).dim_size(), "; ", op,
                               " needs rank ", rank);
      inner(ctx);
    });
  }
}

}  // namespace

void GuardOnnxSchemas() {
  static const bool guarded = [] {
    RequireInputRanks("Gemm", 7, 2, 2);
    return true;
  }();
  (void)guarded;
}

}  // namespace tessera::frontend
