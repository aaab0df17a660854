#include "tools/tessera/compile_flags.h"

#include "compiler/pipeline/npy_tensor.h"
#include "tools/tessera/cli.h"

namespace tessera::cli {

void AddCompileFlags(CLI::App* cmd, CompileFlags* f, bool with_batch) {
  cmd->add_option("--calib", f->calib, "Calibration batch (.npy); quantizes the model to int8");
  cmd->add_option("--observer", f->observer, "Calibration observer: minmax or percentile")
      ->check(CLI::IsMember({"minmax", "percentile"}));
  cmd->add_option("--percentile", f->percentile, "Percentile of |x| for --observer percentile (default 99.99)");
  if (with_batch)
    cmd->add_option("--batch", f->batch, "Value for symbolic input dimensions (e.g. batch size)")->check(AtLeast(1));
  cmd->add_option("--input-shape", f->input_shapes, "Input shape NAME=D0xD1x... (repeatable)");
}

Status ApplyCompileFlags(const CompileFlags& f, compiler::CompileOptions* o, std::unique_ptr<ir::Tensor>* calib) {
  o->import.symbolic_dim_value = f.batch;
  for (const std::string& spec : f.input_shapes) {
    const size_t eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgumentError("--input-shape '{}': expected NAME=D0xD1...", spec);
    ir::Shape shape;
    std::string dims = spec.substr(eq + 1);
    size_t start = 0;
    while (start <= dims.size()) {
      size_t x = dims.find('x', start);
      if (x == std::string::npos) x = dims.size();
      const std::string d = dims.substr(start, x - start);
      char* end = nullptr;
      const long long v = std::strtoll(d.c_str(), &end, 10);
      if (d.empty() || *end || v < 0) return InvalidArgumentError("--input-shape '{}': bad dimension '{}'", spec, d);
      shape.push_back(v);
      start = x + 1;
    }
    o->import.input_shapes[spec.substr(0, eq)] = shape;
  }
  o->calib.observer = f.observer == "percentile" ? quant::Observer::kPercentile : quant::Observer::kMinMax;
  o->calib.percentile = f.percentile;
  if (!f.calib.empty()) {
    TSR_ASSIGN_OR_RETURN(ir::Tensor t, compiler::LoadNpyTensor(f.calib));
    TSR_RETURN_IF_ERROR(quant::CheckFinite(t, f.calib));
    *calib = std::make_unique<ir::Tensor>(std::move(t));
    o->quantize = true;
    o->calibration = calib->get();
  }
  return OkStatus();
}

}  // namespace tessera::cli
