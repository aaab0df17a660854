// Blocked, packed GEMM kernels for the CPU executor.
//  * Sgemm: float C = A * B (+ C).
//  * IgemmExact: int32 C = A * B (+ C) where A and B hold integers stored
//    as floats with |a * b| <= 2^16 (int8 x int8 products, or zero-point
//    shifted u8/i8 values up to 255 in magnitude). Every K chunk of at most
//    kExactChunk = 256 products is summed in fp32, where every partial sum
//    is an integer of magnitude <= 2^24 and therefore exact, then added to C
//    in int32. The result equals the mathematical integer sum for any K, so
//    this is a valid implementation of int8 GEMM with int32 accumulation,
//    running on the float FMA units.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::exec {

inline constexpr int64_t kExactChunk = 256;
inline constexpr int64_t kExactProduct = 65536;  // bound on |a * b|

// Row-major with leading dimensions; accumulate=false overwrites C.
void Sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
           int64_t ldc, bool accumulate);
void IgemmExact(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, int32_t* c,
                int64_t ldc, bool accumulate);

// A (the left operand, e.g. constant conv weights) packed once into the
// micro-kernel's panel layout, for repeated Sgemm calls with different B.
struct PackedA {
  int64_t m = 0, k = 0, m_pad = 0;
  std::vector<float> data;
};
PackedA PackAForSgemm(const float* a, int64_t lda, int64_t m, int64_t k);
void SgemmPacked(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate);

// B given implicitly (e.g. im2col of a convolution input, never materialized):
// Pack writes rows [k0, k0 + kc) x columns [j0, j0 + nc) into panels of
// kGemmPanel columns -- panel q holds column j0 + q*kGemmPanel + t of row
// k0 + r at [q * kc * kGemmPanel + r * kGemmPanel + t], zeros past nc.
class BPacker {
 public:
  virtual ~BPacker() = default;
  virtual void Pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* panels) const = 0;
};
int64_t GemmPanelWidth();
void SgemmPacked(const PackedA& a, int64_t n, const BPacker& b, float* c, int64_t ldc);

}  // namespace tessera::exec
