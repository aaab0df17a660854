// Recurrent layers (ONNX LSTM, GRU, RNN semantics; sequence-major). Per
// direction and time step the gate pre-activations are x_t W^T + h_{t-1} R^T
// + biases (float accumulation), optionally clipped, then the gate functions
// of `activations` (ONNX names, with activation_alpha/beta taken in order).
// With input_projected (hoist-rnn-input) x_t W^T is read from x.
#include <cmath>
#include <sstream>

#include "compiler/exec/kernel.h"

namespace tessera::exec {
namespace {

using ir::Tensor;

struct Act {
  std::string name;
  float alpha = 0, beta = 0;
  float operator()(float x) const {
    if (name == "Sigmoid") return 1.f / (1.f + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return std::max(x, 0.f);
    if (name == "Affine") return alpha * x + beta;
    if (name == "LeakyRelu") return x < 0 ? alpha * x : x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0.f;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "HardSigmoid") return std::max(0.f, std::min(1.f, alpha * x + beta));
    if (name == "Elu") return x < 0 ? alpha * (std::exp(x) - 1.f) : x;
    if (name == "Softsign") return x / (1.f + std::fabs(x));
    return x > 20.f ? x : std::log1p(std::exp(x));  // Softplus
  }
};

struct Config {
  std::string op;
  int64_t t = 0, b = 0, i = 0, h = 0, dirs = 1, gates = 1;
  bool reverse = false, input_forget = false, linear_before_reset = false;
  bool projected = false;  // x holds x W^T [T, B, D*G*H] (hoist-rnn-input)
  float clip = 0;          // 0: none
  std::vector<Act> acts;   // per direction: lstm 3, gru 2, rnn 1
};

// The default activations, or the node's list with alpha/beta consumed in order.
std::vector<Act> ReadActs(const ir::Node& node, int per_dir, int64_t dirs) {
  const std::string op = node.op();
  std::vector<std::string> names;
  std::stringstream ss(node.attrs().Str("activations", ""));
  for (std::string s; std::getline(ss, s, ',');) names.push_back(s);
  if (names.empty()) {
    const std::vector<std::string> def = op == "lstm"  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                         : op == "gru" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                       : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs; ++d) names.insert(names.end(), def.begin(), def.end());
  }
  const auto alphas = node.attrs().Floats("activation_alpha", {}), betas = node.attrs().Floats("activation_beta", {});
  size_t ai = 0, bi = 0;
  std::vector<Act> acts;
  for (const std::string& n : names) {
    Act a{n};
    const bool has_alpha = n == "Affine" || n == "LeakyRelu" || n == "ThresholdedRelu" || n == "ScaledTanh" ||
                           n == "HardSigmoid" || n == "Elu";
    const bool has_beta = n == "Affine" || n == "ScaledTanh" || n == "HardSigmoid";
    a.alpha = n == "LeakyRelu" ? 0.01f : n == "HardSigmoid" ? 0.2f : 1.f;
    a.beta = n == "HardSigmoid" ? 0.5f : 0.f;
    if (has_alpha && ai < alphas.size()) a.alpha = alphas[ai++];
    if (has_beta && bi < betas.size()) a.beta = betas[bi++];
    acts.push_back(a);
  }
  acts.resize(per_dir * dirs, acts.empty() ? Act{"Tanh"} : acts.back());
  return acts;
}

// out[g*H + j] = sum_k x[k] * w[(g*H + j) * K + k] for all rows of w.
void MatVec(const float* x, const float* w, int64_t rows, int64_t k, float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    const float* wr = w + r * k;
    for (int64_t c = 0; c < k; ++c) s += x[c] * wr[c];
    out[r] += s;
  }
}

Status Run(const Config& c, const Operands& in, std::vector<Tensor>& out) {
  const float *x = in[0]->data<float>(), *W = in[1]->data<float>(), *R = in[2]->data<float>(),
              *B = in[3]->data<float>(), *H0 = in[4]->data<float>();
  const bool lstm = c.op == "lstm", gru = c.op == "gru";
  const float* C0 = lstm ? in[5]->data<float>() : nullptr;
  const float* P = lstm && in.size() > 6 ? in[6]->data<float>() : nullptr;
  const int64_t H = c.h, G = c.gates, I = c.i, Bt = c.b;
  float* Y = out[0].data<float>();
  float* Yh = out[1].data<float>();
  float* Yc = lstm ? out[2].data<float>() : nullptr;
  std::vector<float> pre(G * H), rh(G * H), h(H), cell(H);
  auto clip = [&](float v) { return c.clip > 0 ? std::max(-c.clip, std::min(c.clip, v)) : v; };
  for (int64_t d = 0; d < c.dirs; ++d) {
    const bool rev = c.reverse || d == 1;
    const float *w = W + d * G * H * I, *r = R + d * G * H * H, *wb = B + d * 2 * G * H, *rb = wb + G * H;
    const Act* act = c.acts.data() + d * (lstm ? 3 : gru ? 2 : 1);
    for (int64_t b = 0; b < Bt; ++b) {
      std::copy(H0 + (d * Bt + b) * H, H0 + (d * Bt + b + 1) * H, h.begin());
      if (lstm) std::copy(C0 + (d * Bt + b) * H, C0 + (d * Bt + b + 1) * H, cell.begin());
      for (int64_t s = 0; s < c.t; ++s) {
        const int64_t t = rev ? c.t - 1 - s : s;
        for (int64_t k = 0; k < G * H; ++k) pre[k] = wb[k], rh[k] = rb[k];
        if (c.projected) {
          const float* xt = x + ((t * Bt + b) * c.dirs + d) * G * H;
          for (int64_t k = 0; k < G * H; ++k) pre[k] += xt[k];
        } else {
          MatVec(x + (t * Bt + b) * I, w, G * H, I, pre.data());
        }
        MatVec(h.data(), r, G * H, H, rh.data());
        if (lstm) {  // gates i, o, f, c
          for (int64_t j = 0; j < H; ++j) {
            const float* p = P ? P + d * 3 * H : nullptr;
            const float it = act[0](clip(pre[j] + rh[j] + (p ? p[j] * cell[j] : 0.f)));
            const float ft = c.input_forget
                                 ? 1.f - it
                                 : act[0](clip(pre[2 * H + j] + rh[2 * H + j] + (p ? p[2 * H + j] * cell[j] : 0.f)));
            const float ct = act[1](clip(pre[3 * H + j] + rh[3 * H + j]));
            cell[j] = ft * cell[j] + it * ct;
            const float ot = act[0](clip(pre[H + j] + rh[H + j] + (p ? p[H + j] * cell[j] : 0.f)));
            pre[j] = ot * act[2](cell[j]);  // new h, stored until all j are done
          }
          std::copy(pre.begin(), pre.begin() + H, h.begin());
        } else if (gru) {  // gates z, r, h
          std::vector<float> hn(H);
          if (c.linear_before_reset) {
            for (int64_t j = 0; j < H; ++j) {
              const float z = act[0](clip(pre[j] + rh[j])), rr = act[0](clip(pre[H + j] + rh[H + j]));
              const float ht = act[1](clip(pre[2 * H + j] + rr * rh[2 * H + j]));
              hn[j] = (1 - z) * ht + z * h[j];
            }
          } else {
            std::vector<float> rhp(H), hr(H);
            for (int64_t j = 0; j < H; ++j) rhp[j] = act[0](clip(pre[H + j] + rh[H + j])) * h[j];
            for (int64_t j = 0; j < H; ++j) hr[j] = rb[2 * H + j];
            MatVec(rhp.data(), r + 2 * H * H, H, H, hr.data());
            for (int64_t j = 0; j < H; ++j) {
              const float z = act[0](clip(pre[j] + rh[j]));
              const float ht = act[1](clip(pre[2 * H + j] + hr[j]));
              hn[j] = (1 - z) * ht + z * h[j];
            }
          }
          h = hn;
        } else {
          for (int64_t j = 0; j < H; ++j) h[j] = act[0](clip(pre[j] + rh[j]));
        }
        std::copy(h.begin(), h.end(), Y + ((t * c.dirs + d) * Bt + b) * H);
      }
      std::copy(h.begin(), h.end(), Yh + (d * Bt + b) * H);
      if (lstm) std::copy(cell.begin(), cell.end(), Yc + (d * Bt + b) * H);
    }
  }
  return OkStatus();
}

StatusOr<KernelFn> MakeRecurrent(const ir::Node& node) {
  Config c;
  c.op = node.op();
  const ir::Shape& xs = node.input(0)->type().shape;
  c.t = xs[0], c.b = xs[1], c.i = xs[2];
  c.h = node.attrs().Int("hidden_size");
  const std::string dir = node.attrs().Str("direction", "forward");
  c.dirs = dir == "bidirectional" ? 2 : 1;
  c.reverse = dir == "reverse";
  c.gates = c.op == "lstm" ? 4 : c.op == "gru" ? 3 : 1;
  c.clip = node.attrs().Float("clip", 0.f);
  c.input_forget = node.attrs().Int("input_forget", 0) != 0;
  c.linear_before_reset = node.attrs().Int("linear_before_reset", 0) != 0;
  c.projected = node.attrs().Int("input_projected", 0) != 0;
  if (c.projected) c.i = 0;  // w is empty
  c.acts = ReadActs(node, c.op == "lstm" ? 3 : c.op == "gru" ? 2 : 1, c.dirs);
  return KernelFn([c](const Operands& in, std::vector<Tensor>& out) { return Run(c, in, out); });
}

}  // namespace

KernelFactory FindRnnKernel(const std::string& op) {
  if (op == "lstm" || op == "gru" || op == "rnn") return MakeRecurrent;
  return nullptr;
}

}  // namespace tessera::exec
