// Uop kernels: what KernelBuilder accepts, every error it reports, the
// kernel cache, and the uop scratchpad model (first fit, LRU eviction).
#include "runtime/kernel.h"

#include <gtest/gtest.h>

#include "runtime/uop_residency.h"
#include "tests/support/random_isa.h"

namespace tessera {
namespace {

class KernelTest : public ::testing::Test {
 protected:
  HwConfig cfg = testing::LoadConfigOrDie("configs/default.json");
};

TEST_F(KernelTest, BuildsAGemmLoopNest) {
  KernelBuilder b(cfg, KernelKind::kGemm, "k");
  b.Outer(4, 8, 2).Inner(2, 0, 1, 1);
  for (int n = 0; n < 8; ++n) b.Uop(n, 0, n * 2);
  auto k = b.Build();
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->size(), 8);
  EXPECT_EQ(k->iterations(), 64);
  EXPECT_EQ(k->kind(), KernelKind::kGemm);
  EXPECT_EQ(k->image()->words.size(), 8u);
  EXPECT_EQ(k->image()->signature, UopSignature(k->image()->words));
  // Same uops, different loops: the same uop image content.
  auto k2 = KernelBuilder(cfg, KernelKind::kGemm, "k2").Outer(1, 0, 0).Uop(0, 0, 0).Uop(1, 0, 2).Build();
  auto k3 = KernelBuilder(cfg, KernelKind::kGemm, "k3").Outer(9, 2, 0).Uop(0, 0, 0).Uop(1, 0, 2).Build();
  ASSERT_TRUE(k2.ok() && k3.ok());
  EXPECT_TRUE(k2->image()->SameWords(*k3->image()));
  EXPECT_FALSE(k2->image()->SameWords(*k->image()));
}

TEST_F(KernelTest, UopBufferOverflow) {
  KernelBuilder b(cfg, KernelKind::kGemm, "huge");
  for (int64_t i = 0; i <= cfg.uop_entries; ++i) b.Uop(0, 0, 0);
  auto k = b.Build();
  EXPECT_EQ(k.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(k.status().message(),
            "uop buffer overflow: GEMM kernel 'huge' has 8193 uops but the "
            "uop scratchpad holds 8192 (32768 bytes); "
            "split the kernel");
}

TEST_F(KernelTest, LoopAndUopErrors) {
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kAlu, "e").Build().status().message(), "ALU kernel 'e' has no uops");
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kGemm, "x").Outer(0, 0, 0).Uop(0, 0, 0).Build().status().message(),
            "GEMM kernel 'x': outer loop extent 0 is outside [1, 2047]");
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kGemm, "x").Outer(2, 4096, 0).Uop(0, 0, 0).Build().status().message(),
            "GEMM kernel 'x': outer loop dst factor 4096 does not fit in 11 bits");
  // Inner-loop steps are capped at 8 bits (docs/isa.md, "Encoding headroom").
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kGemm, "x").Inner(2, 256, 0).Uop(0, 0, 0).Build().status().message(),
            "GEMM kernel 'x': inner loop dst factor 256 does not fit in 8 bits");
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kAlu, "a").Outer(2, 1, 1, 1).Uop(0, 0).Build().status().message(),
            "ALU kernel 'a': outer loop has a wgt factor (1) but ALU kernels have none");
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kAlu, "a").Uop(0, 0, 3).Build().status().message(),
            "ALU kernel 'a': uop 0 has wgt = 3; ALU uops have no weight operand");
  EXPECT_EQ(KernelBuilder(cfg, KernelKind::kGemm, "g").Uop(0, 0, 0).Uop(1 << 11, 0, 0).Build().status().message(),
            "GEMM kernel 'g', uop 1: uop field 'dst' = 2048 does not fit in 11 bits");
  auto reach = KernelBuilder(cfg, KernelKind::kGemm, "r").Outer(65, 0, 0, 16).Uop(0, 0, 9).Build();
  EXPECT_EQ(reach.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(reach.status().message(),
            "GEMM kernel 'r': the loop nest reaches wgt entry 1033 (wgt "
            "operand) but the wgt scratchpad has 1024 "
            "entries");
  // The last entry exactly is fine.
  EXPECT_TRUE(KernelBuilder(cfg, KernelKind::kGemm, "r").Outer(64, 0, 0, 16).Uop(0, 0, 15).Build().ok());
}

TEST_F(KernelTest, KernelCacheBuildsOnce) {
  KernelCache cache;
  int builds = 0;
  auto build = [&]() -> StatusOr<Kernel> {
    ++builds;
    return KernelBuilder(cfg, KernelKind::kAlu, "a").Uop(1, 1).Build();
  };
  ASSERT_TRUE(cache.GetOrBuild("a", build).ok());
  ASSERT_TRUE(cache.GetOrBuild("a", build).ok());
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 1);
  // Failed builds are not cached.
  auto bad = [&]() -> StatusOr<Kernel> { return KernelBuilder(cfg, KernelKind::kAlu, "b").Build(); };
  EXPECT_FALSE(cache.GetOrBuild("b", bad).ok());
  EXPECT_EQ(cache.size(), 1u);
}

std::shared_ptr<const UopImage> Image(const std::string& name, int n, uint32_t seed) {
  std::vector<uint32_t> w(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) w[static_cast<size_t>(i)] = seed * 1000 + static_cast<uint32_t>(i);
  return MakeUopImage(name, w);
}

TEST(UopResidency, FirstFitThenLeastRecentlyUsedEviction) {
  UopResidency r(10);
  auto a = Image("a", 4, 1), b = Image("b", 4, 2), c = Image("c", 4, 3), d = Image("d", 2, 4);
  EXPECT_EQ(r.Place(a), 0);
  EXPECT_EQ(r.Place(b), 4);
  EXPECT_EQ(r.Place(d), 8);
  ASSERT_NE(r.Lookup(*a), nullptr);  // a is now more recent than b
  int64_t evictions = 0;
  EXPECT_EQ(r.Place(c, &evictions), 4);  // b was least recently used
  EXPECT_EQ(evictions, 1);
  EXPECT_EQ(r.Lookup(*b), nullptr);
  EXPECT_NE(r.Lookup(*MakeUopImage("a-copy", a->words)), nullptr);  // content, not identity
  // A 10-entry image evicts everything.
  auto big = Image("big", 10, 5);
  EXPECT_EQ(r.Place(big, &evictions), 0);
  EXPECT_EQ(evictions, 4);
  EXPECT_EQ(r.entries().size(), 1u);
}

TEST(UopResidency, AssumeDropsOverlappedEntries) {
  UopResidency r(16);
  auto a = Image("a", 4, 1), b = Image("b", 4, 2), c = Image("c", 6, 3);
  r.Place(a);
  r.Place(b);
  r.Assume(c, 2);  // overlaps both
  ASSERT_EQ(r.entries().size(), 1u);
  EXPECT_TRUE(r.Holds(*c, 2));
  EXPECT_FALSE(r.Holds(*c, 0));
}

}  // namespace
}  // namespace tessera
