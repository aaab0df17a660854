// Helpers shared by the end-to-end model tests: compile a generated model for
// a config and compare an engine's outputs with the int8 CPU reference.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/backend/compile.h"
#include "compiler/backend/runner.h"
#include "compiler/backend/tsr.pb.h"
#include "compiler/exec/executor.h"
#include "compiler/pipeline/npy_tensor.h"
#include "compiler/pipeline/pipeline.h"
#include "tests/support/random_isa.h"

namespace tessera::backend {

inline const std::string kModels = TESSERA_MODELS_DIR;

struct Compiled {
  std::unique_ptr<ir::Graph> graph;  // the int8 graph (golden)
  std::unique_ptr<tsr::Model> model;
};

// Compiles a generated model for `cfg`. On any error it records a test
// failure naming the step and returns a Compiled without a model (callers
// ASSERT_TRUE(c.model)); it never dereferences an errored StatusOr.
inline Compiled CompileModel(const std::string& name, const HwConfig& cfg) {
  const std::string dir = kModels + "/" + name;
  Compiled c;
  auto calib = compiler::LoadNpyTensor(dir + "/calib.npy");
  if (!calib.ok()) {
    ADD_FAILURE() << name << ": calibration data: " << calib.status().ToString();
    return c;
  }
  compiler::CompileOptions co;
  co.import.symbolic_dim_value = 1;
  co.quantize = true;
  co.calibration = &*calib;
  auto front = compiler::Compile(dir + "/model.onnx", co);
  if (!front.ok()) {
    ADD_FAILURE() << name << ": front half: " << front.status().ToString();
    return c;
  }
  auto m = CompileGraph(*front->graph, cfg, BackendOptions{});
  if (!m.ok()) {
    ADD_FAILURE() << name << " on " << cfg.name << ": " << m.status().ToString();
    return c;
  }
  c.graph = std::move(front->graph);
  c.model = std::move(*m);
  return c;
}

// The first `count` inputs of `file` (split along dimension 0 into the model's
// batch). Fewer than `count` (none at all included) is a test failure.
inline std::vector<ir::Tensor> Inputs(const std::string& file, const ir::TensorType& t, int count) {
  std::vector<ir::Tensor> out;
  auto x = compiler::LoadNpyTensor(file);
  if (!x.ok()) {
    ADD_FAILURE() << x.status().ToString();
    return out;
  }
  const size_t bytes = ir::Tensor(t.dtype, t.shape).nbytes();
  if (x->dtype() != t.dtype || bytes == 0) {
    ADD_FAILURE() << file << ": holds " << ir::DTypeName(x->dtype()) << ", the model takes " << ir::TypeToString(t);
    return out;
  }
  for (int i = 0; i < count && (i + 1) * bytes <= x->nbytes(); ++i) {
    ir::Tensor piece(t.dtype, t.shape);
    std::memcpy(piece.raw(), x->raw() + i * bytes, bytes);
    out.push_back(std::move(piece));
  }
  if (static_cast<int>(out.size()) < count)
    ADD_FAILURE() << file << ": " << out.size() << " input(s) of " << ir::TypeToString(t) << ", " << count << " wanted";
  return out;
}

// Runs `inputs` on `target` and on the golden executor and asserts the outputs
// are equal bit for bit; counts the accelerator layers of the last run. No
// inputs (or no model) is a failure: the check would compare nothing.
inline void ExpectBitExact(const Compiled& c, const std::string& target, const std::vector<ir::Tensor>& inputs,
                           int64_t* accel_layers = nullptr) {
  ASSERT_TRUE(c.model && c.graph) << "no compiled model";
  ASSERT_FALSE(inputs.empty()) << c.model->name() << " on " << target << ": no inputs to compare";
  RunnerOptions ro;
  ro.target = target;
  auto runner = ModelRunner::Create(*c.model, ro);
  ASSERT_TRUE(runner.ok()) << runner.status().ToString();
  auto golden = exec::Executor::Create(*c.graph);
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  for (size_t i = 0; i < inputs.size(); ++i) {
    RunProfile prof;
    auto got = (*runner)->Run({inputs[i]}, &prof);
    ASSERT_TRUE(got.ok()) << target << " input " << i << ": " << got.status().ToString();
    auto want = (*golden)->Run({inputs[i]});
    ASSERT_TRUE(want.ok()) << "golden, input " << i << ": " << want.status().ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < got->size(); ++k)
      ASSERT_TRUE((*got)[k].BytesEqual((*want)[k])) << c.model->name() << " on " << target << ": output " << k
                                                    << " of input " << i << " differs from the int8 CPU reference";
    if (accel_layers) {
      *accel_layers = 0;
      for (const LayerProfile& l : prof.layers) *accel_layers += l.accel;
    }
    if ((*runner)->has_timing()) {
      EXPECT_GT(prof.device.cycles, 0);
    }
  }
}

}  // namespace tessera::backend
