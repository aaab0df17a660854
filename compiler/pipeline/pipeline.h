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

// .onnx or .tir by extension.
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
StatusOr<CompileResult> Compile(const std::string& path, const CompileOptions& options);

}  // namespace tessera::compiler
