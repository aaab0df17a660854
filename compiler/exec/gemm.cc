// GEMM with packed panels and an MR x NR register-tile micro-kernel written
// with GCC vector extensions (one vector = 16 floats on AVX-512, 8
// otherwise). Blocking: NC columns of B, KC depth, MC rows of A.
#include "compiler/exec/gemm.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "isa/base/check.h"

namespace tessera::exec {
namespace {

#if defined(__AVX512F__)
constexpr int kVec = 16;
#else
constexpr int kVec = 8;
#endif
typedef float VecF __attribute__((vector_size(kVec * 4)));
typedef int32_t VecI __attribute__((vector_size(kVec * 4)));

constexpr int kMR = 8;
constexpr int kNR = 2 * kVec;
constexpr int64_t kKC = 256;   // <= kExactChunk
constexpr int64_t kMC = 96;    // multiple of kMR
constexpr int64_t kNC = 1024;  // multiple of kNR
static_assert(kKC <= kExactChunk, "integer chunks must stay exact");

struct Free {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float, Free>;

Buffer Alloc(size_t floats) {
  void* p = std::aligned_alloc(64, (floats * 4 + 63) / 64 * 64);
  TSR_CHECK(p != nullptr, "out of memory");
  return Buffer(static_cast<float*>(p));
}

// Packs rows [0, mc) x depth [0, kc) of A into panels of kMR rows: panel p
// holds a[p*MR + i][k] at [k * MR + i]. Missing rows are zero.
void PackA(int64_t mc, int64_t kc, const float* a, int64_t lda, float* out) {
  for (int64_t p = 0; p < mc; p += kMR) {
    const int64_t rows = std::min<int64_t>(kMR, mc - p);
    for (int64_t k = 0; k < kc; ++k) {
      for (int64_t i = 0; i < rows; ++i) out[k * kMR + i] = a[(p + i) * lda + k];
      for (int64_t i = rows; i < kMR; ++i) out[k * kMR + i] = 0.f;
    }
    out += kc * kMR;
  }
}

// Packs depth [0, kc) x columns [0, nc) of B into panels of kNR columns.
void PackB(int64_t kc, int64_t nc, const float* b, int64_t ldb, float* out) {
  for (int64_t q = 0; q < nc; q += kNR) {
    const int64_t cols = std::min<int64_t>(kNR, nc - q);
    for (int64_t k = 0; k < kc; ++k) {
      const float* src = b + k * ldb + q;
      float* dst = out + k * kNR;
      if (cols == kNR) {
        std::memcpy(dst, src, sizeof(float) * kNR);
      } else {
        for (int64_t j = 0; j < cols; ++j) dst[j] = src[j];
        for (int64_t j = cols; j < kNR; ++j) dst[j] = 0.f;
      }
    }
    out += kc * kNR;
  }
}

// acc[MR][2 vectors] = sum_k a[k][i] * b[k][j] over packed panels.
inline void MicroKernel(int64_t kc, const float* __restrict a, const float* __restrict b, VecF acc[kMR][2]) {
  for (int i = 0; i < kMR; ++i) acc[i][0] = acc[i][1] = VecF{};
  for (int64_t k = 0; k < kc; ++k) {
    const VecF b0 = *reinterpret_cast<const VecF*>(b + k * kNR);
    const VecF b1 = *reinterpret_cast<const VecF*>(b + k * kNR + kVec);
    const float* ak = a + k * kMR;
    for (int i = 0; i < kMR; ++i) {
      acc[i][0] += ak[i] * b0;
      acc[i][1] += ak[i] * b1;
    }
  }
}

template <typename T>
void StoreTile(const VecF acc[kMR][2], int64_t mr, int64_t nr, T* c, int64_t ldc, bool add) {
  if (mr == kMR && nr == kNR) {
    for (int i = 0; i < kMR; ++i) {
      for (int h = 0; h < 2; ++h) {
        T* dst = c + i * ldc + h * kVec;
        if constexpr (std::is_same_v<T, float>) {
          VecF v = acc[i][h];
          if (add) {
            VecF old;
            std::memcpy(&old, dst, sizeof(old));
            v += old;
          }
          std::memcpy(dst, &v, sizeof(v));
        } else {
          VecI v = __builtin_convertvector(acc[i][h], VecI);
          if (add) {
            VecI old;
            std::memcpy(&old, dst, sizeof(old));
            v += old;
          }
          std::memcpy(dst, &v, sizeof(v));
        }
      }
    }
    return;
  }
  alignas(64) float tmp[kMR][kNR];
  std::memcpy(tmp, acc, sizeof(tmp));
  for (int64_t i = 0; i < mr; ++i)
    for (int64_t j = 0; j < nr; ++j) {
      T v = static_cast<T>(tmp[i][j]);
      c[i * ldc + j] = add ? static_cast<T>(c[i * ldc + j] + v) : v;
    }
}

// Offset of the packed (pc, ic) block of A: blocks are ordered by depth block
// then row block; a depth block of kc holds m_pad * kc floats.
inline int64_t PackedOffset(int64_t m_pad, int64_t pc, int64_t ic, int64_t kc) { return m_pad * pc + ic * kc; }

// C = A * B (+ C). `packed`, when given, holds A already packed (PackAForSgemm).
// B as a plain row-major matrix.
class MatrixPacker : public BPacker {
 public:
  MatrixPacker(const float* b, int64_t ldb) : b_(b), ldb_(ldb) {}
  void Pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, float* out) const override {
    PackB(kc, nc, b_ + k0 * ldb_ + j0, ldb_, out);
  }

 private:
  const float* b_;
  int64_t ldb_;
};

template <typename T>
void Gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const PackedA* packed, const BPacker& b, T* c,
          int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T{0});
    return;
  }
  const int64_t kc_max = std::min(k, kKC), nc_max = std::min((n + kNR - 1) / kNR * kNR, kNC);
  const int64_t mc_max = std::min((m + kMR - 1) / kMR * kMR, kMC);
  Buffer bbuf = Alloc(kc_max * nc_max), abuf = packed ? Buffer() : Alloc(kc_max * mc_max);
  float* bp = bbuf.get();
  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min(kNC, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      b.Pack(pc, kc, jc, nc, bp);
      const bool add = accumulate || pc > 0;
      for (int64_t ic = 0; ic < m; ic += kMC) {
        const int64_t mc = std::min(kMC, m - ic);
        const float* ap;
        if (packed) {
          ap = packed->data.data() + PackedOffset(packed->m_pad, pc, ic, kc);
        } else {
          PackA(mc, kc, a + ic * lda + pc, lda, abuf.get());
          ap = abuf.get();
        }
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          for (int64_t ir = 0; ir < mc; ir += kMR) {
            VecF acc[kMR][2];
            MicroKernel(kc, ap + ir * kc, bp + jr * kc, acc);
            StoreTile<T>(acc, std::min<int64_t>(kMR, mc - ir), std::min<int64_t>(kNR, nc - jr),
                         c + (ic + ir) * ldc + jc + jr, ldc, add);
          }
        }
      }
    }
  }
}

}  // namespace

void Sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
           int64_t ldc, bool accumulate) {
  Gemm<float>(m, n, k, a, lda, nullptr, MatrixPacker(b, ldb), c, ldc, accumulate);
}

PackedA PackAForSgemm(const float* a, int64_t lda, int64_t m, int64_t k) {
  PackedA p;
  p.m = m;
  p.k = k;
  p.m_pad = (m + kMR - 1) / kMR * kMR;
  p.data.assign(p.m_pad * k, 0.f);
  for (int64_t pc = 0; pc < k; pc += kKC) {
    const int64_t kc = std::min(kKC, k - pc);
    for (int64_t ic = 0; ic < m; ic += kMC)
      PackA(std::min(kMC, m - ic), kc, a + ic * lda + pc, lda, p.data.data() + PackedOffset(p.m_pad, pc, ic, kc));
  }
  return p;
}

void SgemmPacked(const PackedA& a, int64_t n, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  Gemm<float>(a.m, n, a.k, nullptr, 0, &a, MatrixPacker(b, ldb), c, ldc, accumulate);
}

int64_t GemmPanelWidth() { return kNR; }

void SgemmPacked(const PackedA& a, int64_t n, const BPacker& b, float* c, int64_t ldc) {
  Gemm<float>(a.m, n, a.k, nullptr, 0, &a, b, c, ldc, false);
}

void IgemmExact(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, int32_t* c,
                int64_t ldc, bool accumulate) {
  Gemm<int32_t>(m, n, k, a, lda, nullptr, MatrixPacker(b, ldb), c, ldc, accumulate);
}

}  // namespace tessera::exec
