// Helpers for executor tests: parse a graph, make random tensors, run.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "compiler/exec/executor.h"
#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"

namespace tessera::exec::test {

inline std::unique_ptr<ir::Graph> Parse(const std::string& text) {
  auto g = ir::ParseGraph(text, "test.tir");
  EXPECT_TRUE(g.ok()) << g.status().ToString() << "\n" << text;
  return g.ok() ? std::move(*g) : nullptr;
}

inline ir::Tensor RandomFloat(ir::Shape shape, std::mt19937& rng, float lo = -1, float hi = 1) {
  ir::Tensor t(ir::DType::kF32, std::move(shape));
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

template <typename T>
ir::Tensor RandomInt(ir::Shape shape, std::mt19937& rng, int lo, int hi) {
  ir::Tensor t(ir::DTypeOf<T>::value, std::move(shape));
  std::uniform_int_distribution<int> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(u(rng));
  return t;
}

inline std::vector<ir::Tensor> RunGraph(const ir::Graph& g, const std::vector<ir::Tensor>& inputs) {
  auto ex = Executor::Create(g);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  if (!ex.ok()) return {};
  auto out = (*ex)->Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(*out) : std::vector<ir::Tensor>{};
}

}  // namespace tessera::exec::test
