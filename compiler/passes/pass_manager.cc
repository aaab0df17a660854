#include "compiler/passes/pass_manager.h"

#include <fmt/format.h>

#include <chrono>

#include "compiler/ir/verifier.h"

namespace tessera::passes {

void PassStats::Count(const std::string& what, int64_t n) {
  if (n == 0) return;
  changed = true;
  for (auto& [k, v] : counts)
    if (k == what) {
      v += n;
      return;
    }
  counts.emplace_back(what, n);
}

std::string PassStats::Summary() const {
  if (counts.empty()) return "no change";
  std::string s;
  for (const auto& [k, v] : counts) s += (s.empty() ? "" : ", ") + fmt::format("{} {}", v, k);
  return s;
}

std::string PassReport::ToString() const { return pass + ": " + stats.Summary(); }

const std::vector<PassInfo>& AllPasses() {
  static const std::vector<PassInfo> passes = {
      {"shape-inference", InferShapes, "recompute every result type from the graph inputs"},
      {"eliminate-identity", EliminateIdentity, "remove identity ops and no-op reshapes/transposes/pads"},
      {"constant-folding", FoldConstants, "evaluate nodes whose operands are all constants"},
      {"fold-batchnorm", FoldBatchNorm, "fold batch_norm into the preceding conv's weights and bias"},
      {"batchnorm-to-conv", BatchNormToConv,
       "rewrite a batch_norm that did not fold as a depthwise 1x1 conv (per-channel weight and bias)"},
      {"fuse-bias", FuseBias, "fold a constant add into conv/gemm/matmul as its bias"},
      {"fuse-activation", FuseActivation, "fold relu/clip into conv/gemm/matmul/add as act_min/act_max"},
      {"fold-channel-shuffle", FoldChannelShuffle,
       "rewrite channel shuffles and channel slices as gathers and fold them into the convs that read them"},
      {"hoist-rnn-input", HoistRnnInput, "move the input projections x W^T of lstm/gru/rnn into one matmul"},
      {"conv-transpose-to-conv", ConvTransposeToConv,
       "rewrite a conv_transpose as one conv over its stride phases, a pixel shuffle (reshape/transpose) and a crop"},
      {"fuse-hard-swish", FuseHardSwish, "rewrite x * hard_sigmoid(x) (alpha 1/6, beta 1/2) as hard_swish(x)"},
      {"fold-qdq", FoldQdq,
       "rewrite dequantize -> op -> quantize into int8 ops (qconv, qmatmul, qadd, qmul, qavg_pool, qhard_sigmoid, "
       "qhard_swish, requantize)"},
      {"fold-requantize", FoldRequantize, "fold a requantize into the qconv/qmatmul whose only use it is"},
      {"channel-gather-to-conv", ChannelGatherToConv,
       "run an int8 channel gather as a 1x1 qconv with 0/1 weights and unit requantization"},
      {"dce", EliminateDeadCode, "remove nodes and constants nothing uses"},
  };
  return passes;
}

const PassInfo* FindPass(const std::string& name) {
  for (const PassInfo& p : AllPasses())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> DefaultPipeline() {
  // After fold-qdq, the int8 form of an already-quantized model: its shuffles
  // fold, what gathers remain run on the GEMM core, concat operands'
  // requantizations join their producers.
  return {"eliminate-identity",     "constant-folding", "fold-batchnorm",
          "batchnorm-to-conv",      "fuse-bias",        "fuse-activation",
          "fold-channel-shuffle",   "hoist-rnn-input",  "conv-transpose-to-conv",
          "fuse-hard-swish",        "fold-qdq",         "fold-channel-shuffle",
          "channel-gather-to-conv", "fold-requantize",  "dce"};
}

StatusOr<std::vector<std::string>> ParsePassList(const std::string& list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    if (!name.empty()) {
      if (!FindPass(name)) {
        std::string known;
        for (const PassInfo& p : AllPasses()) known += (known.empty() ? "" : ", ") + std::string(p.name);
        return NotFoundError("unknown pass '{}' (known: {})", name, known);
      }
      names.push_back(name);
    }
    start = end + 1;
  }
  return names;
}

StatusOr<std::vector<PassReport>> RunPasses(ir::Graph& graph, const std::vector<std::string>& names, bool verify_each) {
  std::vector<PassReport> reports;
  for (const std::string& name : names) {
    const PassInfo* p = FindPass(name);
    if (!p) return NotFoundError("unknown pass '{}'", name);
    const auto t0 = std::chrono::steady_clock::now();
    StatusOr<PassStats> stats = p->run(graph);
    if (!stats.ok()) return stats.status().WithContext(fmt::format("pass '{}'", name));
    PassReport r{name, *stats, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    if (verify_each) {
      Status v = ir::Verify(graph);
      if (!v.ok()) return v.WithContext(fmt::format("after pass '{}'", name));
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

}  // namespace tessera::passes
