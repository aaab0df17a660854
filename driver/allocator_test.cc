// The first-fit allocator: alignment, coalescing, and every error it reports.
#include "driver/allocator.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(RangeAllocator, FirstFitAlignedAndCoalesced) {
  RangeAllocator a("data", 0x10000, 0x10000, 0x1000);
  auto x = a.Alloc(1, "x");
  auto y = a.Alloc(0x1001, "y");
  auto z = a.Alloc(0x1000, "z");
  ASSERT_TRUE(x.ok() && y.ok() && z.ok());
  EXPECT_EQ(*x, 0x10000u);
  EXPECT_EQ(*y, 0x11000u);  // x rounded up to one 4 KiB unit
  EXPECT_EQ(*z, 0x13000u);  // y took two units
  EXPECT_EQ(a.Find(*y)->bytes, 0x2000u);
  EXPECT_EQ(a.Find(*y)->tag, "y");
  EXPECT_EQ(a.free_bytes(), 0x10000u - 0x4000u);
  ASSERT_TRUE(a.Free(*x).ok());
  ASSERT_TRUE(a.Free(*y).ok());
  // x and y coalesce into one 3-unit hole that a 3-unit request fits exactly.
  auto w = a.Alloc(0x3000, "w");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, 0x10000u);
  ASSERT_TRUE(a.Free(*w).ok());
  ASSERT_TRUE(a.Free(*z).ok());
  EXPECT_EQ(a.free_bytes(), 0x10000u);
  EXPECT_EQ(a.largest_free_block(), 0x10000u);
  EXPECT_EQ(a.live_count(), 0u);
}

TEST(RangeAllocator, OutOfMemoryNamesTheRequestAndTheState) {
  RangeAllocator a("data", 0, 0x4000, 0x1000);
  auto x = a.Alloc(0x1000, "x");
  auto y = a.Alloc(0x1000, "y");
  auto z = a.Alloc(0x1000, "z");
  ASSERT_TRUE(x.ok() && y.ok() && z.ok());
  ASSERT_TRUE(a.Free(*y).ok());
  auto big = a.Alloc(0x2000, "activations");
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(big.status().message(),
            "out of device memory: cannot allocate 8192 bytes for "
            "'activations' in the data region (8192 of 16384 "
            "bytes free in 2 block(s), largest 4096 bytes)");
  auto huge = a.Alloc(0x10000, "weights");
  EXPECT_EQ(huge.status().message(),
            "out of device memory: 'weights' needs 65536 bytes but the "
            "data region holds only 16384 bytes");
}

TEST(RangeAllocator, ZeroBytesIsAnError) {
  RangeAllocator a("code", 0, 0x1000, 64);
  EXPECT_EQ(a.Alloc(0, "k").status().message(), "allocation of 0 bytes for 'k' in the code region");
}

TEST(RangeAllocator, DoubleFreeAndUnknownFree) {
  RangeAllocator a("data", 0x1000, 0x4000, 0x1000);
  auto x = a.Alloc(100, "weights");
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(a.Free(*x).ok());
  Status twice = a.Free(*x);
  EXPECT_EQ(twice.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(twice.message(), "double free: device address 0x1000 ('weights') in the data region was already freed");
  Status unknown = a.Free(0x2040);
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(), "free of unknown device address 0x2040: no allocation of the data region starts there");
  // Reallocating the address makes it live again; freeing it once more is fine.
  auto y = a.Alloc(100, "again");
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(*y, *x);
  EXPECT_TRUE(a.Free(*y).ok());
}

}  // namespace
}  // namespace tessera
