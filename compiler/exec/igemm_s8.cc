#include "compiler/exec/igemm_s8.h"

#include <algorithm>
#include <cstring>

#include "compiler/exec/gemm.h"
#include "compiler/exec/scratch.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#define TSR_VNNI 1
#else
#define TSR_VNNI 0
#endif

namespace tessera::exec {
namespace {

constexpr int kMR = 8;   // output channels per tile
constexpr int kNR = 32;  // columns per tile (two 16-lane vectors)

#if TSR_VNNI
// B panels: for each kNR-column block, for each k-quad, kNR columns x 4 bytes
// of (x + 128) as u8. Columns past p and rows past k hold 128 (x = 0).
void PackB(const int8_t* x, int64_t k, int64_t p, uint8_t* out) {
  const int64_t kq = (k + 3) / 4;
  alignas(64) int8_t pad[kNR] = {};
  for (int64_t j0 = 0; j0 < p; j0 += kNR) {
    const int64_t cols = std::min<int64_t>(kNR, p - j0);
    for (int64_t q = 0; q < kq; ++q) {
      // Four rows of the block (zero rows past k; x + 128 == x ^ 0x80 as a byte).
      const int8_t* r[4];
      alignas(64) int8_t tail[4][kNR];
      for (int t = 0; t < 4; ++t) {
        const int64_t kk = q * 4 + t;
        if (kk >= k) {
          r[t] = pad;
        } else if (cols == kNR) {
          r[t] = x + kk * p + j0;
        } else {
          std::memset(tail[t], 0, kNR);
          std::memcpy(tail[t], x + kk * p + j0, cols);
          r[t] = tail[t];
        }
      }
      uint32_t* dst = reinterpret_cast<uint32_t*>(out + ((j0 / kNR) * kq + q) * kNR * 4);
      for (int j = 0; j < kNR; ++j)
        dst[j] = (static_cast<uint32_t>(static_cast<uint8_t>(r[0][j]) ^ 0x80u)) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(r[1][j]) ^ 0x80u) << 8) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(r[2][j]) ^ 0x80u) << 16) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(r[3][j]) ^ 0x80u) << 24);
    }
  }
}

void Kernel(int64_t kq, const int8_t* a, const uint8_t* b, const int32_t* corr, int64_t mr, int64_t nr, int32_t* c,
            int64_t ldc) {
  __m512i acc[kMR][2];
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (int64_t q = 0; q < kq; ++q) {
    const __m512i b0 = _mm512_load_si512(b + q * kNR * 4);
    const __m512i b1 = _mm512_load_si512(b + q * kNR * 4 + 64);
    const int8_t* aq = a + q * kMR * 4;
    for (int i = 0; i < kMR; ++i) {
      int32_t w4;
      std::memcpy(&w4, aq + i * 4, 4);
      const __m512i wv = _mm512_set1_epi32(w4);
      acc[i][0] = _mm512_dpbusd_epi32(acc[i][0], b0, wv);
      acc[i][1] = _mm512_dpbusd_epi32(acc[i][1], b1, wv);
    }
  }
  alignas(64) int32_t tile[kMR][kNR];
  for (int i = 0; i < kMR; ++i) {
    const __m512i cv = _mm512_set1_epi32(corr[i]);
    _mm512_store_si512(&tile[i][0], _mm512_sub_epi32(acc[i][0], cv));
    _mm512_store_si512(&tile[i][16], _mm512_sub_epi32(acc[i][1], cv));
  }
  for (int64_t i = 0; i < mr; ++i) std::memcpy(c + i * ldc, tile[i], nr * sizeof(int32_t));
}
#endif

}  // namespace

bool HaveVnni() { return TSR_VNNI; }

PackedS8 PackS8(const int8_t* w, int64_t m, int64_t k) {
  PackedS8 p;
  p.m = m;
  p.k = k;
  p.rowsum.assign((m + kMR - 1) / kMR * kMR, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) p.rowsum[i] += w[i * k + j];
#if TSR_VNNI
  const int64_t kq = (k + 3) / 4, mb = (m + kMR - 1) / kMR;
  p.panels.assign(mb * kq * kMR * 4, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) p.panels[((i / kMR) * kq + j / 4) * kMR * 4 + (i % kMR) * 4 + j % 4] = w[i * k + j];
#else
  p.wf.assign(w, w + m * k);
#endif
  return p;
}

void GemmS8(const PackedS8& w, const int8_t* x, int64_t p, int32_t* c, int64_t ldc) {
#if TSR_VNNI
  const int64_t kq = (w.k + 3) / 4, pb = (p + kNR - 1) / kNR;
  uint8_t* b = ScratchAs<uint8_t>(3, pb * kq * kNR * 4);
  PackB(x, w.k, p, b);
  // 128 * rowsum, wrapping like the hardware adds.
  int32_t corr[kMR];
  for (int64_t i0 = 0; i0 < w.m; i0 += kMR) {
    for (int i = 0; i < kMR; ++i) corr[i] = static_cast<int32_t>(static_cast<uint32_t>(w.rowsum[i0 + i]) * 128u);
    const int8_t* a = w.panels.data() + (i0 / kMR) * kq * kMR * 4;
    for (int64_t j = 0; j < pb; ++j)
      Kernel(kq, a, b + j * kq * kNR * 4, corr, std::min<int64_t>(kMR, w.m - i0), std::min<int64_t>(kNR, p - j * kNR),
             c + i0 * ldc + j * kNR, ldc);
  }
#else
  float* xf = ScratchAs<float>(3, w.k * p);
  for (int64_t i = 0; i < w.k * p; ++i) xf[i] = x[i];
  IgemmExact(w.m, p, w.k, w.wf.data(), w.k, xf, p, c, ldc, false);
#endif
}

}  // namespace tessera::exec
