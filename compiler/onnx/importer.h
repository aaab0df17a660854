// ONNX import: ModelProto (opsets 11-17) -> graph IR, through the ONNX C++
// library's checker and shape inference. Every failure is a Status naming
// the file, node, op type, attribute or tensor at fault; no exception leaves
// this library. Supported ops and limits: docs/compiler.md.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/tensor.h"
#include "isa/base/status.h"

namespace tessera::ir {
class Graph;
}

namespace tessera::frontend {

struct ImportOptions {
  // Model file plus all external data; larger models are refused.
  uint64_t max_model_bytes = uint64_t{1} << 30;
  // Concrete shapes for graph inputs (overrides what the model declares).
  std::map<std::string, ir::Shape> input_shapes;
  // Shape for the graph's only input, whatever its name (a model with another
  // number of inputs is an error); input_shapes takes precedence.
  std::optional<ir::Shape> sole_input_shape;
  // Value for symbolic dimensions not fixed by input_shapes; <= 0: error.
  int64_t symbolic_dim_value = 0;
  // Graph inputs frozen to constants (becoming initializers), e.g. a Reshape
  // shape or quantization scale that a model passes as an input.
  std::map<std::string, ir::Tensor> constant_inputs;
};

StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxFile(const std::string& path, const ImportOptions& options = {});

// `name` is used in messages; external data is resolved inside `base_dir`
// (empty: external data is refused).
StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxBytes(const std::vector<uint8_t>& bytes, const std::string& name,
                                                     const std::string& base_dir, const ImportOptions& options = {});
StatusOr<std::unique_ptr<ir::Graph>> ImportOnnxData(const uint8_t* data, uint64_t size, const std::string& name,
                                                    const std::string& base_dir, const ImportOptions& options = {});

// A serialized onnx.TensorProto (the conformance tests' input_*.pb files).
StatusOr<ir::Tensor> ParseOnnxTensor(const std::vector<uint8_t>& bytes, const std::string& name);

// ONNX op types the importer accepts (for docs and tests).
std::vector<std::string> SupportedOnnxOps();

}  // namespace tessera::frontend
