#include "sim/gemm_kernel.h"

#include <cstring>

#if defined(__AVX512BW__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tessera {
namespace {

inline int32_t WrapAdd(int32_t a, int64_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

void GemmScalar(const int16_t* x, const int16_t* wp, int32_t* acc, int k_even, int o_count, int o_stride) {
  for (int kp = 0; kp < k_even / 2; ++kp) {
    const int32_t x0 = x[2 * kp], x1 = x[2 * kp + 1];
    const int16_t* w = wp + static_cast<size_t>(kp) * o_stride * 2;
    for (int o = 0; o < o_count; ++o) acc[o] = WrapAdd(acc[o], int64_t{x0} * w[2 * o] + int64_t{x1} * w[2 * o + 1]);
  }
}

}  // namespace

void GemmStep(const int16_t* inp, const int16_t* wp, int32_t* acc, int batch, int k_even, int block_out) {
  for (int b = 0; b < batch; ++b) {
    const int16_t* x = inp + static_cast<size_t>(b) * k_even;
    int32_t* a = acc + static_cast<size_t>(b) * block_out;
    int o = 0;
#if defined(__AVX512BW__)
    for (; o + 16 <= block_out; o += 16) {
      __m512i s = _mm512_loadu_si512(a + o);
      for (int kp = 0; kp < k_even / 2; ++kp) {
        int32_t pair;
        std::memcpy(&pair, x + 2 * kp, 4);
        __m512i xv = _mm512_set1_epi32(pair);
        __m512i wv = _mm512_loadu_si512(wp + (static_cast<size_t>(kp) * block_out + o) * 2);
#if defined(__AVX512VNNI__)
        s = _mm512_dpwssd_epi32(s, xv, wv);
#else
        s = _mm512_add_epi32(s, _mm512_madd_epi16(xv, wv));
#endif
      }
      _mm512_storeu_si512(a + o, s);
    }
#endif
#if defined(__AVX2__)
    for (; o + 8 <= block_out; o += 8) {
      __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + o));
      for (int kp = 0; kp < k_even / 2; ++kp) {
        int32_t pair;
        std::memcpy(&pair, x + 2 * kp, 4);
        __m256i xv = _mm256_set1_epi32(pair);
        __m256i wv =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + (static_cast<size_t>(kp) * block_out + o) * 2));
        s = _mm256_add_epi32(s, _mm256_madd_epi16(xv, wv));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + o), s);
    }
#endif
    if (o < block_out) GemmScalar(x, wp + 2 * o, a + o, k_even, block_out - o, block_out);
  }
}

}  // namespace tessera
