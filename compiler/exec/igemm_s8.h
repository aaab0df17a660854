// int8 x int8 -> int32 GEMM for qconv: C[m][p] = sum_k W[m][k] * X[k][p].
// With AVX-512 VNNI (vpdpbusd, u8 x s8) the activations are offset by +128
// into u8 and the result corrected by -128 * sum_k W[m][k]; all arithmetic
// is exact modulo 2^32 and the true result fits int32 (K * 128 * 128 < 2^31,
// checked by the verifier), so the result is the exact integer sum. Without
// VNNI the portable exact float-chunk GEMM (gemm.h) computes the same values.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::exec {

// Weights [M][K] packed once per layer.
struct PackedS8 {
  int64_t m = 0, k = 0;
  std::vector<int8_t> panels;   // VNNI: [M/MR][K/4][MR][4]; portable: none
  std::vector<float> wf;        // portable: weights as floats [M][K]
  std::vector<int32_t> rowsum;  // sum_k W[m][k]
};

bool HaveVnni();
PackedS8 PackS8(const int8_t* w, int64_t m, int64_t k);

// X given as int8 [K][P] row-major (ldx = P). C is [M][P] (ldc).
void GemmS8(const PackedS8& w, const int8_t* x, int64_t p, int32_t* c, int64_t ldc);

}  // namespace tessera::exec
