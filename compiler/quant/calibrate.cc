#include "compiler/quant/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"

namespace tessera::quant {
namespace {

constexpr int kBins = 2048;

struct Stat {
  float min = INFINITY, max = -INFINITY;
  std::vector<uint64_t> hist;
};

int64_t FirstNonFinite(const ir::Tensor& t) {
  if (t.dtype() != ir::DType::kF32) return -1;
  const float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(p[i])) return i;
  return -1;
}

// Runs the graph on each piece of the batch, calling f(value name, tensor).
template <typename F>
Status ForEachActivation(const ir::Graph& g, const ir::Tensor& batch, F f) {
  if (g.inputs().size() != 1)
    return InvalidArgumentError("calibration needs a graph with one input, '{}' has {}", g.name(), g.inputs().size());
  const ir::Value* in = g.inputs()[0];
  const ir::Shape& s = in->type().shape;
  if (batch.dtype() != in->type().dtype)
    return InvalidArgumentError("calibration data ({}) and input '{}' ({}) must have the same element type",
                                ir::DTypeName(batch.dtype()), in->name(), ir::DTypeName(in->type().dtype));
  if (s.empty() || batch.rank() != static_cast<int>(s.size()) ||
      !std::equal(s.begin() + 1, s.end(), batch.shape().begin() + 1) || s[0] == 0 || batch.dim(0) % s[0] != 0)
    return InvalidArgumentError(
        "calibration data {} does not fit input '{}' {}: it needs the same shape apart from a batch that is a "
        "multiple of {}",
        ir::ShapeToString(batch.shape()), in->name(), ir::ShapeToString(s), s.empty() ? 0 : s[0]);
  TSR_RETURN_IF_ERROR(CheckFinite(batch, "calibration data"));
  TSR_ASSIGN_OR_RETURN(auto ex, exec::Executor::Create(g));
  const int64_t pieces = batch.dim(0) / s[0];
  ir::Tensor piece(in->type().dtype, s);  // f32 images, or integer tokens for an embedding
  for (int64_t p = 0; p < pieces; ++p) {
    std::memcpy(piece.raw(), batch.raw() + p * piece.nbytes(), piece.nbytes());
    if (piece.dtype() == ir::DType::kF32) f(in->name(), piece);
    Status bad;  // the first activation that is not finite
    auto out = ex->Run({piece}, [&](const ir::Node& n, const std::vector<const ir::Tensor*>& results) {
      for (int i = 0; i < n.num_outputs(); ++i) {
        if (results[i]->dtype() != ir::DType::kF32) continue;
        if (bad.ok())
          bad = CheckFinite(*results[i], fmt::format("calibration: value '{}' ({}) on calibration batch {}",
                                                     n.output(i)->name(), n.Describe(), p));
        f(n.output(i)->name(), *results[i]);
      }
    });
    if (!out.ok()) return out.status().WithContext("calibration");
    TSR_RETURN_IF_ERROR(bad);
  }
  return OkStatus();
}

}  // namespace

Status CheckFinite(const ir::Tensor& t, const std::string& what) {
  int64_t i = FirstNonFinite(t);
  if (i < 0) return OkStatus();
  std::vector<int64_t> index(t.shape().size());
  for (int64_t rest = i, d = t.rank() - 1; d >= 0; --d) {
    index[d] = t.dim(static_cast<int>(d)) ? rest % t.dim(static_cast<int>(d)) : 0;
    rest = t.dim(static_cast<int>(d)) ? rest / t.dim(static_cast<int>(d)) : 0;
  }
  return InvalidArgumentError("{}: element {} (flat index {}) is {}; the data must be finite", what,
                              ir::ShapeToString(index), i, t.data<float>()[i]);
}

StatusOr<Ranges> Calibrate(const ir::Graph& g, const ir::Tensor& batch, const CalibrationOptions& opt) {
  std::unordered_map<std::string, Stat> stats;
  TSR_RETURN_IF_ERROR(ForEachActivation(g, batch, [&](const std::string& name, const ir::Tensor& t) {
    Stat& s = stats[name];
    // 16 independent lanes so the loop vectorizes; std::min(lane, NaN) keeps the lane, so NaNs are skipped.
    constexpr int kLanes = 16;
    float lo[kLanes], hi[kLanes];
    std::fill(lo, lo + kLanes, s.min);
    std::fill(hi, hi + kLanes, s.max);
    const float* p = t.data<float>();
    const int64_t n = t.numel(), body = n / kLanes * kLanes;
    for (int64_t i = 0; i < body; i += kLanes)
      for (int j = 0; j < kLanes; ++j) {
        lo[j] = std::min(lo[j], p[i + j]);
        hi[j] = std::max(hi[j], p[i + j]);
      }
    for (int64_t i = body; i < n; ++i) {
      lo[0] = std::min(lo[0], p[i]);
      hi[0] = std::max(hi[0], p[i]);
    }
    s.min = *std::min_element(lo, lo + kLanes);
    s.max = *std::max_element(hi, hi + kLanes);
  }));
  if (opt.observer == Observer::kPercentile) {
    if (!(opt.percentile > 0 && opt.percentile <= 100))
      return InvalidArgumentError("percentile {} must be in (0, 100]", opt.percentile);
    TSR_RETURN_IF_ERROR(ForEachActivation(g, batch, [&](const std::string& name, const ir::Tensor& t) {
      Stat& s = stats[name];
      const float lim = std::max(std::fabs(s.min), std::fabs(s.max));
      if (s.hist.empty()) s.hist.assign(kBins, 0);
      if (!(lim > 0) || !std::isfinite(lim)) return;
      const float* p = t.data<float>();
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (std::isnan(p[i])) continue;
        const int b = std::min(kBins - 1, static_cast<int>(std::fabs(p[i]) / lim * kBins));
        ++s.hist[b];
      }
    }));
  }
  Ranges ranges;
  for (auto& [name, s] : stats) {
    Range r;
    r.min = std::isfinite(s.min) ? s.min : 0.f;
    r.max = std::isfinite(s.max) ? s.max : 0.f;
    r.abs_limit = std::max(std::fabs(r.min), std::fabs(r.max));
    if (opt.observer == Observer::kPercentile && !s.hist.empty() && r.abs_limit > 0) {
      uint64_t total = 0;
      for (uint64_t c : s.hist) total += c;
      const double want = opt.percentile / 100.0 * static_cast<double>(total);
      uint64_t acc = 0;
      for (int b = 0; b < kBins; ++b) {
        acc += s.hist[b];
        if (static_cast<double>(acc) >= want) {
          r.abs_limit = std::min(r.abs_limit, r.abs_limit * static_cast<float>(b + 1) / kBins);
          break;
        }
      }
    }
    ranges[name] = r;
  }
  return ranges;
}

}  // namespace tessera::quant
