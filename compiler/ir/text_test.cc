#include <gtest/gtest.h>

#include "compiler/ir/graph.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace tessera::ir {
namespace {

std::string BigGraph() {
  // A graph with every attribute kind, quantized types, odd names and both
  // constant encodings.
  Graph g("my graph");
  Value* x = g.AddInput("x", TensorType(DType::kF32, {1, 3, 8, 8}));
  g.AddInput("odd name\x01", TensorType(DType::kF32, {2}));
  Tensor w(DType::kF32, {4, 3, 3, 3});
  for (int i = 0; i < w.numel(); ++i) w.data<float>()[i] = 0.01f * i - 0.3f;
  Value* wv = g.AddConstant("conv.weight", std::move(w));
  Tensor b(DType::kF32, {4});
  b.data<float>()[0] = -0.f;
  b.data<float>()[1] = 1e-7f;
  Value* bv = g.AddConstant("conv.bias", std::move(b));
  Attrs a;
  a.Set("strides", std::vector<int64_t>{1, 1});
  a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.Set("act_min", 0.f);
  Node* conv = g.AddNode("conv", {x, wv, bv}, {"/conv/Conv_output_0"}, a, "/conv/Conv");
  conv->output()->set_type(TensorType(DType::kF32, {1, 4, 8, 8}));
  Node* q = g.AddNode("quantize", {conv->output()}, {"q"});
  q->output()->set_type(TensorType(DType::kI8, {1, 4, 8, 8}, QuantParams::PerTensor(0.0625f)));
  Tensor qw(DType::kI8, {4, 4, 1, 1});
  for (int i = 0; i < qw.numel(); ++i) qw.data<int8_t>()[i] = static_cast<int8_t>(i * 9 - 70);
  Value* qwv = g.AddConstant("qw", std::move(qw), QuantParams::PerAxis(0, {0.5f, 0.25f, 0.125f, 1.f / 3.f}));
  Tensor qb(DType::kI32, {4});
  qb.data<int32_t>()[3] = -123456;
  Value* qbv = g.AddConstant("qb", std::move(qb));
  Attrs qa;
  qa.Set("multiplier", std::vector<int64_t>{1073741824, 1500000000, 2147483647, 1});
  qa.Set("shift", int64_t{35});
  qa.Set("act_min", int64_t{0});
  Node* qc = g.AddNode("qconv", {q->output(), qwv, qbv}, {"qc"}, qa);
  qc->output()->set_type(TensorType(DType::kI8, {1, 4, 8, 8}, QuantParams::PerTensor(0.03f)));
  Node* dq = g.AddNode("dequantize", {qc->output()}, {"dq"});
  dq->output()->set_type(TensorType(DType::kF32, {1, 4, 8, 8}));
  Attrs pa;
  pa.Set("pads", std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 1});
  pa.Set("mode", std::string("con\"st\\ant"));
  pa.Set("value", -1.5f);
  Node* pad = g.AddNode("pad", {dq->output()}, {"padded"}, pa);
  pad->output()->set_type(TensorType(DType::kF32, {1, 4, 10, 10}));
  Attrs sa;
  sa.Set("axis", int64_t{-1});
  Node* sm = g.AddNode("softmax", {pad->output()}, {"out"}, sa);
  sm->output()->set_type(TensorType(DType::kF32, {1, 4, 10, 10}));
  g.SetOutputs({sm->output(), conv->output()});
  return PrintGraph(g);
}

TEST(Text, PrintParseRoundTripIsIdentical) {
  const std::string text = BigGraph();
  auto g = ParseGraph(text, "big.tir");
  ASSERT_TRUE(g.ok()) << g.status().ToString() << "\n" << text;
  EXPECT_EQ(PrintGraph(**g), text);
  EXPECT_NE(text.find("graph @\"my graph\"(%x: f32[1,3,8,8], %\"odd name\\x01\": f32[2])"), std::string::npos);
  EXPECT_NE(text.find("%qw: i8[4,4,1,1]<axis=0, s=[0.5, 0.25, 0.125, 0.33333334]> = const [-70, -61,"),
            std::string::npos);
  EXPECT_NE(text.find("%conv.bias: f32[4] = const [-0, 1e-07, 0, 0]"), std::string::npos);
  EXPECT_NE(text.find("{act_min=0, pads=[1, 1, 1, 1], strides=[1, 1]} @/conv/Conv"), std::string::npos) << text;
  EXPECT_NE(text.find("mode=\"con\\\"st\\\\ant\""), std::string::npos);
  EXPECT_NE(text.find("return %out, %/conv/Conv_output_0"), std::string::npos);
  // The constant data survives bit for bit.
  EXPECT_TRUE((*g)->FindValue("conv.weight")
                  ->data()
                  .BytesEqual(*ParseGraph(text)->get()->FindValue("conv.weight")->data_ptr()));
}

TEST(Text, ElidedConstantsDoNotParse) {
  auto g = ParseGraph(BigGraph());
  ASSERT_TRUE(g.ok());
  PrintOptions o;
  o.elide_constants = true;
  std::string text = PrintGraph(**g, o);
  EXPECT_NE(text.find("= const <elided>"), std::string::npos);
  auto r = ParseGraph(text, "e.tir");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("printed with elided data"), std::string::npos);
}

TEST(Text, CommentsAndWhitespaceAreIgnored) {
  auto g = ParseGraph(R"(// leading comment
graph @g(%x: f32[2]) {   // trailing
  %y: f32[2] = relu(%x)
  // comment line
  return %y
})");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(PrintGraph(**g), "graph @g(%x: f32[2]) {\n  %y: f32[2] = relu(%x)\n  return %y\n}\n");
}

std::string ParseError(const std::string& text) {
  auto r = ParseGraph(text, "t.tir");
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}

TEST(Text, ParseErrorsNameTheLocation) {
  EXPECT_EQ(ParseError("grph @g() {}"), "t.tir:1:1: expected 'graph', got 'grph'");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = relu(%z)\n  return %y\n}"),
            "t.tir:2:21: use of undefined value '%z'");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %x: f32[2] = relu(%x)\n  return %x\n}"),
            "t.tir:2:3: value '%x' is defined twice");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = frobnicate(%x)\n  return %y\n}"),
            "t.tir:2:16: unknown op 'frobnicate'");
  EXPECT_EQ(ParseError("graph @g(%x: f33[2]) {\n  return %x\n}"), "t.tir:1:14: unknown element type 'f33'");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = relu(%x) {alpha=1}\n  return %y\n}"),
            "t.tir:2:26: op 'relu' has no attribute 'alpha'");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = softmax(%x) {axis=1.5}\n  return %y\n}"),
            "t.tir:2:34: '1.5' is not an integer");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: f32[3] = const [1, 2]\n  return %c\n}"),
            "t.tir:2:22: constant '%c' has 2 elements, its type needs 3");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: i8[1] = const [200]\n  return %c\n}"),
            "t.tir:2:22: 200 out of range for i8");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: i8[2] = const 0x01\n  return %c\n}"),
            "t.tir:2:21: constant '%c' needs 2 bytes of data, got 1");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: i8[1] = const 0xzz\n  return %c\n}"),
            "t.tir:2:21: bad hex digit in constant data");
  EXPECT_EQ(ParseError("graph @g(%x: i8[2]<s=0.5, zp=0>) {\n  return %x\n}"),
            "t.tir:1:19: write all-zero zero points by omitting 'zp'");
  EXPECT_EQ(ParseError("graph @g(%x: i8[2]<s=-1>) {\n  return %x\n}"),
            "t.tir:1:19: type: quantization scale -1 is not positive and finite");
  EXPECT_EQ(ParseError("graph @g(%x: i8[2]<q=1>) {\n  return %x\n}"), "t.tir:1:19: unknown quantization key 'q'");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  return %x\n} extra"),
            "t.tir:3:3: unexpected 'extra' after the graph");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = pad(%x) {mode=\"a\n"),
            "t.tir:2:30: unterminated string");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  return %x"), "t.tir:2:12: expected '}', got end of input");
  EXPECT_EQ(ParseError("graph @g(%x: f32[1000000,1000000,1000]) {\n  return %x\n}"),
            "t.tir:1:10: input '%x': shape [1000000,1000000,1000] exceeds the limit of 2147483648 elements");
  EXPECT_EQ(ParseError("graph @g(%x: f32[2]) {\n  %y: f32[2] = relu(%x) {} ;\n  return %y\n}"),
            "t.tir:2:28: unexpected character ';'");
}

// Issue 15, finding 6: a constant declaring i64[2^31] (16 GiB) is refused
// before anything is allocated, in both data forms.
TEST(Text, ConstantSizeIsCheckedBeforeAllocation) {
  EXPECT_EQ(ParseError("graph @g() {\n  %c: i64[2147483648] = const [1]\n  return %c\n}"),
            "t.tir:2:31: constant '%c' declares 2147483648 elements but the file has only 16 bytes left");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: i64[2147483648] = const 0x0102\n  return %c\n}"),
            "t.tir:2:31: constant '%c' needs 17179869184 bytes of data, got 2");
  EXPECT_EQ(ParseError("graph @g() {\n  %c: f32[65536,32768] = const []\n  return %c\n}"),
            "t.tir:2:32: constant '%c' declares 2147483648 elements but the file has only 15 bytes left");
}

// Found by fuzz_tir (libFuzzer): an empty quoted value name reached a
// TSR_CHECK in Graph and aborted.
TEST(Text, EmptyValueNamesAreErrors) {
  EXPECT_EQ(ParseError("graph @g(%x: f32[1], %\"\": u8[4]) {\n  return %x\n}"),
            "t.tir:1:22: a value name cannot be empty");
}

TEST(Text, ParsedGraphsStillNeedTheVerifier) {
  // Structurally fine, but the recorded type is wrong: the parser keeps it, Verify rejects it.
  auto g = ParseGraph("graph @g(%x: f32[2]) {\n  %y: f32[3] = relu(%x)\n  return %y\n}");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Verify(**g).message(),
            "node producing '%y' (relu): result '%y' is recorded as f32[3] but infers as f32[2]");
}

}  // namespace
}  // namespace tessera::ir

#include <random>

namespace tessera::ir {
namespace {

// Mutated text IR gives a parse or verify error, never a crash.
TEST(Text, MutatedTextNeverCrashes) {
  const std::string good = BigGraph();
  std::mt19937 rng(99);
  const char alphabet[] = "%@[](){}<>,:=\"0123456789-.xefs_ \n";
  int rejected = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::string t = good;
    for (int k = 0; k < 1 + iter % 3; ++k) {
      const size_t pos = rng() % t.size();
      switch (rng() % 3) {
        case 0: t[pos] = alphabet[rng() % (sizeof(alphabet) - 1)]; break;
        case 1: t.erase(pos, 1 + rng() % 8); break;
        default: t.insert(pos, 1, alphabet[rng() % (sizeof(alphabet) - 1)]); break;
      }
    }
    auto g = ParseGraph(t, "m.tir");
    if (!g.ok() || !Verify(**g).ok()) ++rejected;
  }
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace tessera::ir
