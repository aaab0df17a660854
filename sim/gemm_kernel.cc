#include "sim/gemm_kernel.h"

#include <cstring>

// The build is portable (no -march=native by default), so the x86 vector
// paths are compiled for their instruction sets with target attributes and
// chosen once at run time from what the CPU supports.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TSR_GEMM_X86 1
#else
#define TSR_GEMM_X86 0
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

// A vector path: the output lanes [0, returned) of one batch row.
using RowFn = int (*)(const int16_t* x, const int16_t* wp, int32_t* a, int k_even, int block_out);

int NoVector(const int16_t*, const int16_t*, int32_t*, int, int) { return 0; }

#if TSR_GEMM_X86
inline int32_t Pair(const int16_t* x) {
  int32_t pair;
  std::memcpy(&pair, x, 4);
  return pair;
}

__attribute__((target("avx2"))) int Avx2Lanes(const int16_t* x, const int16_t* wp, int32_t* a, int k_even,
                                              int block_out, int o) {
  for (; o + 8 <= block_out; o += 8) {
    __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + o));
    for (int kp = 0; kp < k_even / 2; ++kp) {
      const __m256i xv = _mm256_set1_epi32(Pair(x + 2 * kp));
      const __m256i wv =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + (static_cast<size_t>(kp) * block_out + o) * 2));
      s = _mm256_add_epi32(s, _mm256_madd_epi16(xv, wv));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(a + o), s);
  }
  return o;
}

__attribute__((target("avx2"))) int Avx2Row(const int16_t* x, const int16_t* wp, int32_t* a, int k_even,
                                            int block_out) {
  return Avx2Lanes(x, wp, a, k_even, block_out, 0);
}

// One body for both AVX-512 paths; each instantiation is compiled inside its
// caller's target (the macro keeps the intrinsics in a function that has it).
#define TSR_AVX512_LANES(STEP)                                                                   \
  int o = 0;                                                                                     \
  for (; o + 16 <= block_out; o += 16) {                                                         \
    __m512i s = _mm512_loadu_si512(a + o);                                                       \
    for (int kp = 0; kp < k_even / 2; ++kp) {                                                    \
      const __m512i xv = _mm512_set1_epi32(Pair(x + 2 * kp));                                    \
      const __m512i wv = _mm512_loadu_si512(wp + (static_cast<size_t>(kp) * block_out + o) * 2); \
      s = STEP;                                                                                  \
    }                                                                                            \
    _mm512_storeu_si512(a + o, s);                                                               \
  }                                                                                              \
  return Avx2Lanes(x, wp, a, k_even, block_out, o);

__attribute__((target("avx512f,avx512bw,avx2"))) int Avx512Row(const int16_t* x, const int16_t* wp, int32_t* a,
                                                               int k_even, int block_out) {
  TSR_AVX512_LANES(_mm512_add_epi32(s, _mm512_madd_epi16(xv, wv)))
}

__attribute__((target("avx512f,avx512bw,avx512vnni,avx2"))) int Avx512VnniRow(const int16_t* x, const int16_t* wp,
                                                                              int32_t* a, int k_even, int block_out){
    TSR_AVX512_LANES(_mm512_dpwssd_epi32(s, xv, wv))}
#undef TSR_AVX512_LANES
#endif

RowFn RowOf(GemmPath p) {
  switch (p) {
#if TSR_GEMM_X86
    case GemmPath::kAvx2: return Avx2Row;
    case GemmPath::kAvx512: return Avx512Row;
    case GemmPath::kAvx512Vnni: return Avx512VnniRow;
#endif
    default: return NoVector;
  }
}

void Step(RowFn row, const int16_t* inp, const int16_t* wp, int32_t* acc, int batch, int k_even, int block_out) {
  for (int b = 0; b < batch; ++b) {
    const int16_t* x = inp + static_cast<size_t>(b) * k_even;
    int32_t* a = acc + static_cast<size_t>(b) * block_out;
    const int o = row(x, wp, a, k_even, block_out);
    if (o < block_out) GemmScalar(x, wp + 2 * o, a + o, k_even, block_out - o, block_out);
  }
}

}  // namespace

std::vector<GemmPath> GemmPathsOfThisCpu() {
  std::vector<GemmPath> paths = {GemmPath::kScalar};
#if TSR_GEMM_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) paths.push_back(GemmPath::kAvx2);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512bw")) paths.push_back(GemmPath::kAvx512);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
    paths.push_back(GemmPath::kAvx512Vnni);
#endif
  return paths;
}

void GemmStepOn(GemmPath path, const int16_t* inp, const int16_t* wp, int32_t* acc, int batch, int k_even,
                int block_out) {
  Step(RowOf(path), inp, wp, acc, batch, k_even, block_out);
}

void GemmStep(const int16_t* inp, const int16_t* wp, int32_t* acc, int batch, int k_even, int block_out) {
  static const RowFn row = RowOf(GemmPathsOfThisCpu().back());
  Step(row, inp, wp, acc, batch, k_even, block_out);
}

}  // namespace tessera
