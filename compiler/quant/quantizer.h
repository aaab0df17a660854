// Post-training int8 quantization. From activation ranges (calibrate.h) it
// rewrites a float graph into QDQ form -- quantize/dequantize around every
// activation an int8-capable op reads or writes (symmetric per-tensor scale
// limit/127), weights as dequantize(int8 constant) with symmetric per-output-
// channel scales max|w|/127 -- then runs fold-qdq, which turns the QDQ
// patterns into qconv / qmatmul / qbatch_matmul (a matmul of two
// activations, both symmetric int8) / qadd / qavg_pool / requantize and int8
// data movement. Whatever does not fold stays float between dequantize and
// quantize and runs on the CPU. Arithmetic: docs/quantization.md.
#pragma once

#include <string>
#include <vector>

#include "compiler/quant/calibrate.h"

namespace tessera::quant {

struct QuantizeReport {
  int64_t int8_ops = 0;                // nodes computing on integers
  std::vector<std::string> float_ops;  // nodes left in float ("op 'name'")
  std::string fold_summary;            // fold-qdq's counts
  std::string ToString() const;
};

// Rewrites `graph` in place. Ranges must cover the float activations.
StatusOr<QuantizeReport> QuantizeGraph(ir::Graph& graph, const Ranges& ranges);

// Calibrate + QuantizeGraph.
StatusOr<QuantizeReport> QuantizePostTraining(ir::Graph& graph, const ir::Tensor& calibration,
                                              const CalibrationOptions& options = {});

// Per-output-channel symmetric int8 weights along `axis`: scale[c] = max|w_c|/127
// (1 for an all-zero channel), q = clamp(round_half_even(w / scale[c]), -127, 127).
ir::Tensor QuantizeWeights(const ir::Tensor& w, int axis, std::vector<float>* scales);

}  // namespace tessera::quant
