// The integer hard_sigmoid / hard_swish (compiler/quant/alu_program.h)
// against the float functions: for every int8 input and a spread of scales,
// the int8 result is within 0.51 output steps of the exact f(x * s_x) / s_y
// (clamped to int8): the final rounding plus at most 0.01 from the
// fixed-point gate and multiplier, so within one step of the rounded float. The int8 CPU kernel after fold-qdq runs the
// same program (checked on all 256 inputs), and requantize's program is the accelerator's requantization (isa/alu.h).
#include "compiler/quant/alu_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compiler/exec/kernel.h"
#include "compiler/exec/test_util.h"
#include "compiler/passes/pass_manager.h"

namespace tessera::quant {
namespace {

double HardSigmoid(double x, double alpha, double beta) { return std::clamp(alpha * x + beta, 0.0, 1.0); }

struct Fn {
  double alpha, beta;
  bool swish;
  double operator()(double x) const { return swish ? x * HardSigmoid(x, alpha, beta) : HardSigmoid(x, alpha, beta); }
};

// Float reference of one int8 input.
int64_t Reference(const Fn& f, int64_t q, double sx, double sy) {
  return std::clamp<int64_t>(std::llround(f(q * sx) / sy), -128, 127);
}

TEST(AluProgram, HardActivationsWithinOneStepOfFloat) {
  const Fn fns[] = {{1.0 / 6, 0.5, false}, {1.0 / 6, 0.5, true}, {0.2, 0.5, false}, {0.5, -0.25, false}};
  for (const Fn& f : fns)
    for (double limit_x : {0.05, 0.5, 3.0, 6.0, 8.0, 20.0, 200.0}) {
      const double sx = limit_x / 127;
      double hi = 0;
      for (int q = -128; q <= 127; ++q) hi = std::max(hi, std::fabs(f(q * sx)));
      const double sy = f.swish ? std::max(hi, 1e-3) / 127 : 1.0 / 127;
      auto h = ChooseHardAct(f.alpha, f.beta, sx, sy, f.swish);
      ASSERT_TRUE(h.ok()) << h.status().ToString();
      const AluProgram p = HardActProgram(*h, f.swish);
      for (int q = -128; q <= 127; ++q) {
        const int64_t got = RunAluProgram(p, q);
        const double real = std::clamp(f(q * sx) / sy, -128.0, 127.0);
        EXPECT_LE(std::fabs(got - real), 0.51)
            << "alpha " << f.alpha << " swish " << f.swish << " sx " << sx << " q " << q;
        EXPECT_LE(std::abs(got - Reference(f, q, sx, sy)), 1);
      }
    }
}

TEST(AluProgram, RefusesNegativeSlopeAndDegenerateScales) {
  EXPECT_FALSE(ChooseHardAct(-0.2, 0.5, 0.01, 0.01, false).ok());
  EXPECT_FALSE(ChooseHardAct(0.2, 0.5, 0, 0.01, false).ok());
  EXPECT_FALSE(ChooseHardAct(1.0 / 6, 0.5, 1e-9, 0.01, true).ok());  // gate range beyond 2^23 steps
}

TEST(AluProgram, RequantizeIsTheAcceleratorsRequantization) {
  for (int64_t q = -128; q <= 127; ++q)
    for (auto [m, s, lo, hi] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{1518500250, 31, -128, 127},
                                {1073741824, 29, 0, 100},
                                {2147483647, 40, -5, 5}})
      EXPECT_EQ(RunAluProgram(RequantizeProgram(m, s, lo, hi), q), alu::Requantize(q, 0, m, s, lo, hi, 32));
}

// quantize -> dequantize -> hard_swish / hard_sigmoid -> quantize, folded,
// on the int8 executor: the same program and the float bound above.
TEST(AluProgram, FoldedKernelsRunTheProgram) {
  for (const char* op : {"hard_swish", "hard_sigmoid"}) {
    const bool swish = std::string(op) == "hard_swish";
    const std::string text = fmt::format(
        "graph @g(%x: i8[1,2,16,8]<s=0.05>) {{\n"
        "  %d: f32[1,2,16,8] = dequantize(%x)\n"
        "  %h: f32[1,2,16,8] = {}(%d){}\n"
        "  %y: i8[1,2,16,8]<s={}> = quantize(%h)\n"
        "  return %y\n}}\n",
        op, swish ? "" : " {alpha=0.166666672, beta=0.5}", swish ? 0.05 : 1.0 / 127);
    auto g = exec::test::Parse(text);
    ASSERT_TRUE(g);
    auto r = passes::RunPasses(*g, {"fold-qdq", "dce"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(g->num_nodes(), 1);
    const ir::Node* n = g->nodes()[0];
    EXPECT_EQ(n->op(), std::string("q") + op);
    ir::Tensor x(ir::DType::kI8, {1, 2, 16, 8});
    for (int i = 0; i < 256; ++i) x.data<int8_t>()[i] = static_cast<int8_t>(i - 128);
    std::vector<ir::Tensor> y = exec::test::RunGraph(*g, {x});
    ASSERT_EQ(y.size(), 1u);
    const AluProgram p = exec::AluProgramOf(*n);
    const Fn f{1.0 / 6, 0.5, swish};
    for (int i = 0; i < 256; ++i) {
      EXPECT_EQ(y[0].data<int8_t>()[i], RunAluProgram(p, i - 128));
      EXPECT_LE(std::abs(y[0].data<int8_t>()[i] - Reference(f, i - 128, 0.05, swish ? 0.05 : 1.0 / 127)), 1);
    }
  }
}

}  // namespace
}  // namespace tessera::quant
