// AlignChannelConcats: a concat of two 24-channel qconv results is padded to
// 32 + 24 = 56 channels (BLOCK_IN 16) and the executor's results stay bit for
// bit; where the padded concat could not run in place nothing changes.
#include "compiler/backend/align_concat.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "compiler/exec/executor.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace tessera::backend {
namespace {

// A constant of n random values in [lo, hi] as IR text.
std::string Ints(int64_t n, int lo, int hi, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(lo, hi);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += fmt::format("{}{}", i ? ", " : "", u(rng));
  return s + "]";
}

// Two 24-channel qconvs %a (with a bias) and %b of %x joined by %c, then
// `tail` (the readers and the return).
std::string Block(const std::string& tail, const std::string& params = "", const char* b_scale = "0.5") {
  std::mt19937 rng(7);
  return fmt::format(
      "graph @g(%x: i8[1,8,4,4]<s=0.5>{}) {{\n"
      "  %wa: i8[24,8,1,1]<s=0.01> = const {}\n"
      "  %ba: i32[24] = const {}\n"
      "  %wb: i8[24,8,1,1]<s=0.01> = const {}\n"
      "  %wd: i8[48,1,3,3]<s=0.01> = const {}\n"
      "  %bd: i32[48] = const {}\n"
      "  %wy: i8[8,48,1,1]<s=0.01> = const {}\n"
      "  %a: i8[1,24,4,4]<s=0.5> = qconv(%x, %wa, %ba) {{multiplier=[1073741824], shift=36}}\n"
      "  %b: i8[1,24,4,4]<s={}> = qconv(%x, %wb) {{multiplier=[1073741824], shift=36}}\n"
      "  %c: i8[1,48,4,4]<s=0.5> = concat(%a, %b) {{axis=1}}\n"
      "{}}}\n",
      params, Ints(24 * 8, -127, 127, rng), Ints(24, -500, 500, rng), Ints(24 * 8, -127, 127, rng),
      Ints(48 * 9, -127, 127, rng), Ints(48, -500, 500, rng), Ints(8 * 48, -127, 127, rng), b_scale, tail);
}

const char* kDepthwise =
    "  %d: i8[1,48,4,4]<s=0.5> = qconv(%c, %wd, %bd) {group=48, multiplier=[1073741824], pads=[1, 1, 1, 1], "
    "shift=34}\n";

std::vector<ir::Tensor> Execute(const ir::Graph& g, const std::vector<ir::Tensor>& in) {
  auto ex = exec::Executor::Create(g);
  EXPECT_TRUE(ex.ok()) << ex.status().ToString();
  auto out = (*ex)->Run(in);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return std::move(*out);
}

ir::Tensor RandomInt8(ir::Shape shape, std::mt19937& rng) {
  ir::Tensor t(ir::DType::kI8, std::move(shape));
  std::uniform_int_distribution<int> u(-128, 127);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(u(rng));
  return t;
}

TEST(AlignChannelConcats, PadsTo32And56AndKeepsEveryResult) {
  // %c is read by a depthwise qconv (then a group-1 one) and by a group-1 qconv.
  const std::string text = Block(std::string(kDepthwise) +
                                 "  %y: i8[1,8,4,4]<s=0.5> = qconv(%d, %wy) {multiplier=[1073741824], shift=38}\n"
                                 "  %z: i8[1,8,4,4]<s=0.5> = qconv(%c, %wy) {multiplier=[1073741824], shift=38}\n"
                                 "  return %y, %z\n");
  auto g = ir::ParseGraph(text);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  std::mt19937 rng(3);
  const std::vector<ir::Tensor> in = {RandomInt8({1, 8, 4, 4}, rng)};
  const std::vector<ir::Tensor> before = Execute(**g, in);
  ASSERT_EQ(AlignChannelConcats(**g, 16), 1);
  ASSERT_TRUE(ir::Verify(**g).ok()) << ir::PrintGraph(**g);
  EXPECT_EQ((*g)->FindValue("a")->type().shape[1], 32);
  EXPECT_EQ((*g)->FindValue("b")->type().shape[1], 24);
  EXPECT_EQ((*g)->FindValue("c")->type().shape[1], 56);
  EXPECT_EQ((*g)->FindValue("d")->type().shape[1], 56);
  const std::vector<ir::Tensor> after = Execute(**g, in);
  ASSERT_EQ(after.size(), before.size());
  int64_t distinct = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_TRUE(after[i].BytesEqual(before[i])) << "output " << i;
    for (int64_t k = 1; k < before[i].numel(); ++k)
      distinct += before[i].data<int8_t>()[k] != before[i].data<int8_t>()[0];
  }
  EXPECT_GT(distinct, 0);  // the outputs are not constant
}

TEST(AlignChannelConcats, LeavesConcatsThatCouldNotRunInPlace) {
  const std::string qconv_reader = "  %z: i8[1,8,4,4]<s=0.5> = qconv(%c, %wy) {multiplier=[1073741824], shift=38}\n";
  const struct {
    const char* what;
    std::string text;
  } cases[] = {
      {"read by a qadd", Block("  %z: i8[1,48,4,4]<s=0.5> = qadd(%c, %c) {multiplier=[1073741824, 1073741824], "
                               "post_shift=20, shift=[11, 11]}\n  return %z\n")},
      {"read by a max_pool",
       Block("  %z: i8[1,48,2,2]<s=0.5> = max_pool(%c) {kernel=[2, 2], strides=[2, 2]}\n  return %z\n")},
      {"a graph output", Block(qconv_reader + "  return %z, %c\n")},
      {"a depthwise reader feeding a max_pool",
       Block(std::string(kDepthwise) +
             "  %z: i8[1,48,2,2]<s=0.5> = max_pool(%d) {kernel=[2, 2], strides=[2, 2]}\n  return %z\n")},
      {"a depthwise reader with a bias that is not a constant",
       Block("  %d: i8[1,48,4,4]<s=0.5> = qconv(%c, %wd, %bias) {group=48, multiplier=[1073741824], "
             "pads=[1, 1, 1, 1], shift=34}\n  %z: i8[1,8,4,4]<s=0.5> = qconv(%d, %wy) {multiplier=[1073741824], "
             "shift=38}\n  return %z\n",
             ", %bias: i32[48]")},
      {"an operand with two uses",
       Block(qconv_reader + "  %u: i8[1,24,2,2]<s=0.5> = max_pool(%a) {kernel=[2, 2], strides=[2, 2]}\n"
                            "  return %z, %u\n")},
      {"an operand at another scale", Block(qconv_reader + "  return %z\n", "", "0.25")},
  };
  for (const auto& c : cases) {
    auto g = ir::ParseGraph(c.text);
    ASSERT_TRUE(g.ok()) << c.what << ": " << g.status().ToString();
    const std::string before = ir::PrintGraph(**g);
    EXPECT_EQ(AlignChannelConcats(**g, 16), 0) << c.what;
    EXPECT_EQ(ir::PrintGraph(**g), before) << c.what;
  }
}

}  // namespace
}  // namespace tessera::backend
