// The front half as one call chain: load a model (.onnx through the
// importer, .tir through the parser and verifier), run the float passes,
// quantize with calibration data. Used by the CLI, benchmarks and tests;
// issue 6's back half starts from the graph this returns.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/tensor.h"
#include "compiler/onnx/importer.h"
#include "compiler/passes/pass_manager.h"
#include "compiler/quant/quantizer.h"

namespace tessera::compiler {

// Where a model comes from: a file (.onnx or .tir by extension) or a
// serialized ONNX ModelProto held in memory (the Python binding's
// onnx.ModelProto), named `name` in messages.
struct ModelSource {
  std::string path;                 // a file, or the name of in-memory bytes
  std::vector<uint8_t> onnx_bytes;  // non-empty: in memory
  std::string base_dir;             // in memory: where external data lives (empty: refused)

  static ModelSource File(std::string path) { return ModelSource{std::move(path), {}, {}}; }
  static ModelSource OnnxBytes(std::vector<uint8_t> bytes, std::string name, std::string base_dir = "") {
    return ModelSource{std::move(name), std::move(bytes), std::move(base_dir)};
  }
  bool in_memory() const { return !onnx_bytes.empty(); }
  bool is_onnx() const;
};

StatusOr<std::unique_ptr<ir::Graph>> LoadModel(const ModelSource& source, const frontend::ImportOptions& options = {});
StatusOr<std::unique_ptr<ir::Graph>> LoadModel(const std::string& path, const frontend::ImportOptions& options = {});

struct CompileOptions {
  frontend::ImportOptions import;
  std::vector<std::string> passes = passes::DefaultPipeline();
  bool quantize = false;
  const ir::Tensor* calibration = nullptr;  // required when quantize
  quant::CalibrationOptions calib;
};

struct CompileResult {
  std::unique_ptr<ir::Graph> graph;
  std::vector<passes::PassReport> pass_reports;
  quant::QuantizeReport quant_report;  // when quantized
  double import_seconds = 0, pass_seconds = 0, quant_seconds = 0;
};

// Load + passes (+ calibration and quantization). When the calibration batch
// does not split into pieces of the graph's batch, a second copy of the model
// bound to the calibration shape is calibrated and its ranges applied.
StatusOr<CompileResult> Compile(const ModelSource& source, const CompileOptions& options);
StatusOr<CompileResult> Compile(const std::string& path, const CompileOptions& options);

}  // namespace tessera::compiler
