#include "compiler/ir/verifier.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "compiler/ir/graph.h"
#include "compiler/ir/ops.h"
#include "compiler/ir/parser.h"

namespace tessera::ir {
namespace {

std::string VerifyError(const std::string& body, const std::string& params = "%x: f32[1,3,8,8]") {
  auto g = ParseGraph("graph @g(" + params + ") {\n" + body + "}\n", "v.tir");
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return "";
  Status s = Verify(**g);
  EXPECT_FALSE(s.ok()) << body;
  return s.message();
}

TEST(Verifier, AcceptsAWellTypedGraph) {
  auto g = ParseGraph(R"(graph @g(%x: f32[1,3,8,8]) {
  %w: f32[4,3,3,3] = const 0x)" +
                      std::string(4 * 3 * 3 * 3 * 8, '0') + R"(
  %y: f32[1,4,4,4] = conv(%x, %w) {pads=[1, 1, 1, 1], strides=[2, 2]}
  %p: f32[1,4,2,2] = max_pool(%y) {kernel=[2, 2], strides=[2, 2]}
  %f: f32[1,16] = flatten(%p)
  return %f
})");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(Verify(**g).ok()) << Verify(**g).ToString();
}

TEST(Verifier, ReportsTypeAndAttributeErrors) {
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = relu(%x) \n  return %y\n", "%x: f32[1,3,8,9]"),
            "node producing '%y' (relu): result '%y' is recorded as f32[1,3,8,8] but infers as f32[1,3,8,9]");
  EXPECT_EQ(VerifyError("  %w: f32[4,2,3,3] = const 0x" + std::string(4 * 2 * 9 * 8, '0') +
                        "\n  %y: f32[1,4,6,6] = conv(%x, %w) @c1\n  return %y\n"),
            "node 'c1' (conv): weight input 1 '%w' (f32[4,2,3,3]) expects 2 input channels per group, input "
            "[1,3,8,8] has 3 channels in 1 groups");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = softmax(%x) {axis=4}\n  return %y\n"),
            "node producing '%y' (softmax): axis 4 out of range for rank 4");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,4,4] = max_pool(%x) {strides=[2, 2]}\n  return %y\n"),
            "node producing '%y' (max_pool): missing required attribute 'kernel'");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = add(%x)\n  return %y\n"),
            "node producing '%y' (add): takes 2 inputs, got 1");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = max_pool(%x) {kernel=[2, 2], pads=[2, 2, 2, 2]}\n  return %y\n"),
            "node producing '%y' (max_pool): padding must be smaller than the window");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,1,1] = max_pool(%x) {kernel=[9, 9]}\n  return %y\n"),
            "node producing '%y' (max_pool): window of extent 9 does not fit the padded input of size 8 along "
            "spatial axis 0");
  EXPECT_EQ(VerifyError("  %c: f32[2] = const [1, 2]\n  %y: f32[1,3,8,8] = add(%x, %c)\n  return %y\n"),
            "node producing '%y' (add): shapes [1,3,8,8] and [2] do not broadcast");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = reshape(%x) {shape=[1, -1]}\n  return %y\n"),
            "node producing '%y' (reshape): attribute 'shape' [1,-1] must be fully resolved (no -1)");
  EXPECT_EQ(VerifyError("  %y: f32[1,3,8,8] = clip(%x) {max=0, min=1}\n  return %y\n"),
            "node producing '%y' (clip): min exceeds max");
}

TEST(Verifier, QuantizedOpInvariants) {
  const std::string params = "%x: i8[1,4,4,4]<s=0.5>";
  const std::string w = "  %w: i8[2,4,1,1]<axis=0, s=[0.1, 0.2]> = const 0x0102030405060708\n";
  EXPECT_EQ(VerifyError(w + "  %y: i8[1,2,4,4]<s=0.25> = qconv(%x, %w) {multiplier=[1073741824], shift=0, act_min=5, "
                            "act_max=4}\n  return %y\n",
                        params),
            "node producing '%y' (qconv): activation bounds [5, 4] must lie within [-128, 127]");
  EXPECT_EQ(VerifyError(w + "  %y: i8[1,2,4,4]<s=0.25> = qconv(%x, %w) {multiplier=[1, 2, 3], shift=31}\n  return %y\n",
                        params),
            "node producing '%y' (qconv): attribute 'multiplier' needs 1 or 2 entries, got 3");
  EXPECT_EQ(
      VerifyError(w + "  %y: i8[1,2,4,4]<s=0.25> = qconv(%x, %w) {multiplier=[1], shift=64}\n  return %y\n", params),
      "node producing '%y' (qconv): shift 64 out of range [0, 63]");
  EXPECT_EQ(VerifyError(w + "  %y: i8[1,2,4,4] = qconv(%x, %w) {multiplier=[1], shift=3}\n  return %y\n", params),
            "node producing '%y' (qconv): result '%y' must be declared i8 quantized per-tensor, got i8[1,2,4,4]");
  // qconv takes input and result zero points (int8 only); qadd needs zero point 0.
  auto zp = ParseGraph("graph @g(%x: i8[1,4,4,4]<s=0.5, zp=3>) {\n" + w +
                           "  %y: i8[1,2,4,4]<s=1, zp=-7> = qconv(%x, %w) {multiplier=[1], shift=3}\n  return %y\n}\n",
                       "v.tir");
  ASSERT_TRUE(zp.ok()) << zp.status().ToString();
  EXPECT_TRUE(Verify(**zp).ok());
  EXPECT_EQ(VerifyError(w + "  %y: i8[1,2,4,4]<s=1> = qconv(%x, %w) {multiplier=[1], shift=3}\n  return %y\n",
                        "%x: u8[1,4,4,4]<s=0.5, zp=3>"),
            "node producing '%y' (qconv): input 0 '%x' (u8[1,4,4,4]<s=0.5, zp=3>) must be i8 quantized per-tensor");
  EXPECT_EQ(VerifyError("  %y: i8[1,4,4,4]<s=0.5> = qadd(%x, %x) {multiplier=[1, 1], shift=[1, 1], post_shift=4}\n"
                        "  return %y\n",
                        "%x: i8[1,4,4,4]<s=0.5, zp=3>"),
            "node producing '%y' (qadd): input 0 '%x' (i8[1,4,4,4]<s=0.5, zp=3>) must be i8 quantized per-tensor "
            "with zero point 0");
  EXPECT_EQ(VerifyError("  %y: f32[1,4,4,4] = relu(%x)\n  return %y\n", params),
            "node producing '%y' (relu): input 0 '%x' (i8[1,4,4,4]<s=0.5>) must not be quantized");
  EXPECT_EQ(VerifyError("  %y: i8[1,4,4,4] = quantize(%x)\n  return %y\n", "%x: f32[1,4,4,4]"),
            "node producing '%y' (quantize): result '%y' must be declared as a quantized i8, u8 or i32 type");
  EXPECT_EQ(VerifyError("  %y: i8[1,4,4,4]<s=0.5> = qadd(%x, %x) {multiplier=[1, 1], shift=[1, 1], post_shift=40}\n"
                        "  return %y\n",
                        params),
            "node producing '%y' (qadd): post_shift 40 out of range [0, 31]");
  EXPECT_EQ(VerifyError("  %y: i8[1,4,4,4]<s=1> = max_pool(%x) {kernel=[1, 1]}\n  return %y\n", params),
            "node producing '%y' (max_pool): result '%y' is recorded as i8[1,4,4,4]<s=1> but infers as "
            "i8[1,4,4,4]<s=0.5>");
}

TEST(Verifier, StructuralErrors) {
  Graph g;
  Value* x = g.AddInput("x", TensorType(DType::kF32, {2}));
  Node* a = g.AddNode("relu", {x}, {"a"});
  Node* b = g.AddNode("relu", {a->output()}, {"b"});
  a->output()->set_type(x->type());
  b->output()->set_type(x->type());
  EXPECT_EQ(Verify(g).message(), "graph 'main' has no outputs");
  g.SetOutputs({b->output()});
  EXPECT_TRUE(Verify(g).ok());
  g.MoveBefore(b, a);  // breaks the topological order
  EXPECT_EQ(Verify(g).message(), "node producing '%b' (relu): input 0 '%a' is used before it is defined");
}

}  // namespace
}  // namespace tessera::ir

namespace tessera::ir {
namespace {

// docs/compiler.md documents every op of the table (tests run from the repository root).
TEST(Docs, CompilerMdNamesEveryOp) {
  std::ifstream in("docs/compiler.md");
  ASSERT_TRUE(in.good()) << "run from the repository root";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const OpDef& op : AllOps()) EXPECT_NE(doc.find("`" + op.name + "`"), std::string::npos) << op.name;
}

}  // namespace
}  // namespace tessera::ir
