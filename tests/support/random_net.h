// Random int8 networks in the graph IR for differential tests: a
// convolution (kernel 1/3/5/7, stride, padding, odd channel counts, or
// depthwise), an optional max pool, a residual add with a 1x1 branch, global
// average pool, flatten and a dense layer. Every layer but flatten fits the
// accelerator. Same seed, same network.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tessera::testing {

// Choices Make leaves to the seed unless set: -1 random, 0 no, 1 yes.
struct NetChoices {
  int depthwise = -1;
  int max_pool = -1;
  int64_t max_channels = 0;  // > 0: channels and classes at most this, images at most 8x8 (small configs)
};

class NetBuilder {
 public:
  explicit NetBuilder(uint64_t seed) : rng_(seed), g_(std::make_unique<ir::Graph>("random")) {}

  int64_t U(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  // The network; `desc` gets a one-line description (input type, kernel, layers).
  std::unique_ptr<ir::Graph> Make(std::string* desc, NetChoices choices = {});

 private:
  float Scale() { return std::uniform_real_distribution<float>(0.01f, 0.2f)(rng_); }
  ir::Value* Node(const std::string& op, const std::vector<ir::Value*>& in, ir::Attrs a);
  std::vector<int64_t> Multipliers(int64_t n);
  ir::Value* Weights(ir::Shape shape);
  ir::Value* Bias(int64_t n);
  ir::Value* Conv(ir::Value* x, int64_t oc, int64_t k, int64_t s, int64_t p, int64_t groups, bool relu);

  std::mt19937_64 rng_;
  std::unique_ptr<ir::Graph> g_;
  int count_ = 0;
};

}  // namespace tessera::testing
