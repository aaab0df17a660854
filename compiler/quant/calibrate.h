// Calibration: runs the float graph over a calibration batch and records the
// range of every activation with an observer. min/max takes the extremes;
// percentile takes the p-th percentile of |x| (a second run fills a 2048-bin
// histogram of |x| over [0, max |x|]).
#pragma once

#include <string>
#include <unordered_map>

#include "compiler/ir/tensor.h"
#include "isa/base/status.h"

namespace tessera::ir {
class Graph;
}

namespace tessera::quant {

enum class Observer { kMinMax, kPercentile };

struct CalibrationOptions {
  Observer observer = Observer::kMinMax;
  double percentile = 99.99;  // for kPercentile
};

struct Range {
  float min = 0, max = 0;
  float abs_limit = 0;  // the symmetric range the scale covers: |x| <= abs_limit
};

// Range per value name (graph inputs and node results of float type).
using Ranges = std::unordered_map<std::string, Range>;

// `batch` is split along dimension 0 into pieces of the graph input's batch
// size (the rest of its shape must match the graph's single input). The batch
// and every float activation it produces must be finite: a NaN or infinity
// is an error naming the array (or value) and the element, never a silent
// fallback scale.
StatusOr<Ranges> Calibrate(const ir::Graph& graph, const ir::Tensor& batch, const CalibrationOptions& options = {});

// OK when every element of an f32 tensor is finite (other types always are);
// otherwise "<what>: element [i, j, ...] (flat index k) is nan".
Status CheckFinite(const ir::Tensor& t, const std::string& what);

}  // namespace tessera::quant
