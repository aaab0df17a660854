#include "compiler/ir/graph.h"

#include <gtest/gtest.h>

#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace tessera::ir {
namespace {

TEST(Graph, BuildMutateAndVerify) {
  Graph g("g");
  Value* x = g.AddInput("x", TensorType(DType::kF32, {1, 4}));
  Tensor w(DType::kF32, {4, 4});
  for (int i = 0; i < 16; ++i) w.data<float>()[i] = i % 5 == 0 ? 1.f : 0.f;
  Value* wv = g.AddConstant("w", std::move(w));
  Node* mm = g.AddNode("matmul", {x, wv}, {"y"});
  Node* relu = g.AddNode("relu", {mm->output()}, {"z"});
  mm->output()->set_type(TensorType(DType::kF32, {1, 4}));
  relu->output()->set_type(TensorType(DType::kF32, {1, 4}));
  g.SetOutputs({relu->output()});
  ASSERT_TRUE(Verify(g).ok()) << Verify(g).ToString();
  EXPECT_EQ(x->users().size(), 1u);
  EXPECT_EQ(g.NumUses(relu->output()), 1);

  // Insert a sigmoid between matmul and relu, then remove it again.
  Node* sig = g.AddNode("sigmoid", {mm->output()}, {g.UniqueName("y")}, {}, "", relu);
  EXPECT_EQ(sig->output()->name(), "y_1");
  sig->output()->set_type(mm->output()->type());
  relu->SetInput(0, sig->output());
  EXPECT_TRUE(Verify(g).ok());
  EXPECT_EQ(g.IndexOf(sig), 1);
  g.ReplaceAllUsesWith(sig->output(), mm->output());
  g.RemoveNode(sig);
  EXPECT_TRUE(Verify(g).ok());
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(mm->output()->users().size(), 1u);
  EXPECT_EQ(g.FindValue("y_1"), nullptr);

  auto clone = g.Clone();
  EXPECT_EQ(PrintGraph(*clone), PrintGraph(g));
  EXPECT_EQ(clone->FindValue("w")->data_ptr(), wv->data_ptr());  // constant data is shared
}

TEST(Graph, ReplaceAllUsesIncludesOutputs) {
  Graph g;
  Value* x = g.AddInput("x", TensorType(DType::kF32, {2}));
  Node* id = g.AddNode("identity", {x}, {"y"});
  id->output()->set_type(x->type());
  g.SetOutputs({id->output()});
  g.ReplaceAllUsesWith(id->output(), x);
  EXPECT_EQ(g.outputs()[0], x);
  g.RemoveNode(id);
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_TRUE(Verify(g).ok());
}

TEST(Graph, UseListsCountRepeatedOperands) {
  Graph g;
  Value* x = g.AddInput("x", TensorType(DType::kF32, {2}));
  Node* add = g.AddNode("add", {x, x}, {"y"});
  EXPECT_EQ(x->users().size(), 2u);
  add->SetInput(1, g.AddConstant("c", Tensor(DType::kF32, {2})));
  EXPECT_EQ(x->users().size(), 1u);
}

TEST(Graph, RemovingAUsedNodeIsAnInvariantFailure) {
  Graph g;
  Value* x = g.AddInput("x", TensorType(DType::kF32, {2}));
  Node* n = g.AddNode("relu", {x}, {"y"});
  g.SetOutputs({n->output()});
  EXPECT_DEATH(g.RemoveNode(n), "still used");
}

TEST(Types, ToStringAndValidation) {
  TensorType t(DType::kI8, {1, 64}, QuantParams::PerTensor(0.5f));
  EXPECT_EQ(TypeToString(t), "i8[1,64]<s=0.5>");
  TensorType u(DType::kU8, {3}, QuantParams::PerTensor(0.25f, 128));
  EXPECT_EQ(TypeToString(u), "u8[3]<s=0.25, zp=128>");
  TensorType w(DType::kI8, {2, 3}, QuantParams::PerAxis(0, {0.1f, 0.2f}));
  EXPECT_EQ(TypeToString(w), "i8[2,3]<axis=0, s=[0.1, 0.2]>");
  EXPECT_TRUE(ValidateQuant(w, "w").ok());
  w.quant->scale.push_back(1.f);
  w.quant->zero_point.push_back(0);
  EXPECT_NE(ValidateQuant(w, "w").message().find("3 scales for axis 0 of size 2"), std::string::npos);
  TensorType bad(DType::kI8, {1}, QuantParams::PerTensor(-1.f));
  EXPECT_NE(ValidateQuant(bad, "b").message().find("not positive"), std::string::npos);
  TensorType zp(DType::kI8, {1}, QuantParams::PerTensor(1.f, 300));
  EXPECT_NE(ValidateQuant(zp, "z").message().find("zero point 300 out of range"), std::string::npos);
  TensorType f(DType::kF32, {1}, QuantParams::PerTensor(1.f));
  EXPECT_FALSE(ValidateQuant(f, "f").ok());
  EXPECT_FALSE(ValidateShape({1 << 20, 1 << 20}, "big").ok());
  EXPECT_FALSE(ValidateShape({-1}, "neg").ok());
  EXPECT_TRUE(ValidateShape({0, 1 << 30, 1 << 30}, "empty").ok());
}

TEST(Types, FloatTextIsShortestAndExact) {
  for (float f : {0.1f, 1.f / 3.f, 1e-30f, 3.4028235e38f, -0.f, 123456789.f, 1.17549435e-38f}) {
    std::string s = FloatToString(f);
    EXPECT_EQ(std::strtof(s.c_str(), nullptr), f) << s;
  }
  EXPECT_EQ(FloatToString(0.5f), "0.5");
}

}  // namespace
}  // namespace tessera::ir
