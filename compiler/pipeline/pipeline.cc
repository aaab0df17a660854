#include "compiler/pipeline/pipeline.h"

#include <chrono>

#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/verifier.h"
#include "isa/base/file.h"

namespace tessera::compiler {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool ModelSource::is_onnx() const { return in_memory() || EndsWith(path, ".onnx"); }

StatusOr<std::unique_ptr<ir::Graph>> LoadModel(const ModelSource& source, const frontend::ImportOptions& options) {
  if (source.in_memory()) return frontend::ImportOnnxBytes(source.onnx_bytes, source.path, source.base_dir, options);
  const std::string& path = source.path;
  if (EndsWith(path, ".onnx")) return frontend::ImportOnnxFile(path, options);
  if (EndsWith(path, ".tir")) {
    TSR_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
    TSR_ASSIGN_OR_RETURN(auto g, ir::ParseGraph(text, path));
    TSR_RETURN_IF_ERROR(ir::Verify(*g).WithContext(path));
    return g;
  }
  return InvalidArgumentError("{}: unknown model format (expected .onnx or .tir)", path);
}

StatusOr<std::unique_ptr<ir::Graph>> LoadModel(const std::string& path, const frontend::ImportOptions& options) {
  return LoadModel(ModelSource::File(path), options);
}

StatusOr<CompileResult> Compile(const std::string& path, const CompileOptions& options) {
  return Compile(ModelSource::File(path), options);
}

StatusOr<CompileResult> Compile(const ModelSource& source, const CompileOptions& options) {
  CompileResult r;
  auto t0 = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(r.graph, LoadModel(source, options.import));
  r.import_seconds = Since(t0);
  t0 = std::chrono::steady_clock::now();
  TSR_ASSIGN_OR_RETURN(r.pass_reports, passes::RunPasses(*r.graph, options.passes));
  r.pass_seconds = Since(t0);
  if (!options.quantize) return r;
  if (!options.calibration) return InvalidArgumentError("quantization needs calibration data");
  t0 = std::chrono::steady_clock::now();
  const ir::Tensor& calib = *options.calibration;
  const auto& inputs = r.graph->inputs();
  const bool splits = inputs.size() == 1 && inputs[0]->type().rank() == calib.rank() && calib.rank() > 0 &&
                      inputs[0]->type().shape[0] > 0 && calib.dim(0) % inputs[0]->type().shape[0] == 0;
  quant::Ranges ranges;
  if (splits || inputs.size() != 1 || !source.is_onnx()) {
    TSR_ASSIGN_OR_RETURN(ranges, quant::Calibrate(*r.graph, calib, options.calib));
  } else {
    frontend::ImportOptions io = options.import;
    io.input_shapes[inputs[0]->name()] = calib.shape();
    TSR_ASSIGN_OR_RETURN(auto cg, LoadModel(source, io));
    TSR_RETURN_IF_ERROR(passes::RunPasses(*cg, options.passes).status());
    TSR_ASSIGN_OR_RETURN(ranges, quant::Calibrate(*cg, calib, options.calib));
  }
  TSR_ASSIGN_OR_RETURN(r.quant_report, quant::QuantizeGraph(*r.graph, ranges));
  r.quant_seconds = Since(t0);
  return r;
}

}  // namespace tessera::compiler
