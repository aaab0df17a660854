#include "examples/matmul/tiled_matmul.h"

#include <cmath>
#include <limits>

#include "isa/alu.h"
#include "isa/base/check.h"
#include "isa/base/math.h"
#include "sim/timing.h"

namespace tessera::example {
namespace {

// The smallest tile that needs as few tiles as `t` does: spreads the remainder.
int64_t Balance(int64_t total, int64_t t) { return CeilDiv(total, CeilDiv(total, t)); }

// Cycles of a DMA of `rows` rows of `row_bytes`, `pitch` bytes apart, from a
// 4 KiB-aligned buffer, alone on the memory port (the timing contract's rules).
double DmaCycles(const HwConfig& cfg, int64_t rows, int64_t row_bytes, int64_t pitch, bool write = false) {
  timing::DmaShape d;
  d.write = write;
  d.rows = rows;
  d.row_bytes = static_cast<uint64_t>(row_bytes);
  d.pitch = static_cast<uint64_t>(pitch);
  d.data_rows = rows;
  d.data_cols = row_bytes / cfg.out_tile_bytes;
  return static_cast<double>(timing::DmaAlone(cfg, d).cycles);
}

}  // namespace

int64_t MatmulPlan::steps() const { return CeilDiv(mb, tm) * CeilDiv(nb, tn) * CeilDiv(kb, tk); }

int DefaultShift(int64_t k) {
  return std::max(0,
                  static_cast<int>(std::lround(7.0 + 0.5 * std::log2(static_cast<double>(std::max<int64_t>(k, 1))))));
}

StatusOr<MatmulPlan> PlanMatmul(const HwConfig& cfg, const MatmulShape& s, int shift, int64_t ftm, int64_t ftn,
                                int64_t ftk) {
  if (cfg.inp_bits != 8 || cfg.wgt_bits != 8)
    return UnimplementedError("the matmul example needs int8 inputs and weights; config '{}' has {}-bit/{}-bit",
                              cfg.name, cfg.inp_bits, cfg.wgt_bits);
  if (s.m <= 0 || s.n <= 0 || s.k <= 0)
    return InvalidArgumentError("matrix sizes must be positive: M={} N={} K={}", s.m, s.n, s.k);
  if (shift < 0 || shift > 31) return InvalidArgumentError("requantization shift {} is outside [0, 31]", shift);
  MatmulPlan p;
  p.shape = s;
  p.shift = shift;
  p.mb = CeilDiv(s.m, cfg.batch);
  p.nb = CeilDiv(s.n, cfg.block_out);
  p.kb = CeilDiv(s.k, cfg.block_in);
  p.a_bytes = p.mb * p.kb * cfg.inp_tile_bytes;
  p.b_bytes = p.nb * p.kb * cfg.wgt_tile_bytes;
  p.c_bytes = p.mb * p.nb * cfg.out_tile_bytes;
  const int64_t inp_half = cfg.inp_entries / 2, wgt_half = cfg.wgt_entries / 2, acc_half = cfg.acc_entries / 2;
  // The K tail is padded by the DMA, whose padding fields hold at most 15 tiles.
  const int64_t max_tk = std::min<int64_t>({p.kb, 16, inp_half, wgt_half});
  double best = std::numeric_limits<double>::infinity();
  for (int64_t tk = 1; tk <= max_tk; ++tk) {
    if (ftk > 0 && tk != std::min(ftk, p.kb)) continue;
    for (int64_t tn0 = 1; tn0 <= std::min({p.nb, wgt_half / tk, acc_half}); ++tn0) {
      const int64_t tn = Balance(p.nb, tn0);
      if (ftn > 0 && tn != std::min(ftn, p.nb)) continue;
      const int64_t tm_max = std::min({p.mb, inp_half / tk, acc_half / tn});
      if (tm_max < 1) continue;
      const int64_t tm = ftm > 0 ? std::min(ftm, p.mb) : Balance(p.mb, tm_max);
      if (tm > tm_max) continue;
      const double steps = static_cast<double>(CeilDiv(p.mb, tm) * CeilDiv(p.nb, tn) * CeilDiv(p.kb, tk));
      const double tiles = static_cast<double>(CeilDiv(p.mb, tm) * CeilDiv(p.nb, tn));
      const double compute = static_cast<double>(timing::GemmCycles(cfg, tm * tn * tk));
      const double load = DmaCycles(cfg, tm, tk * cfg.inp_tile_bytes, p.kb * cfg.inp_tile_bytes) +
                          DmaCycles(cfg, tn, tk * cfg.wgt_tile_bytes, p.kb * cfg.wgt_tile_bytes);
      const double store = DmaCycles(cfg, tm, tn * cfg.out_tile_bytes, p.nb * cfg.out_tile_bytes, true);
      // Per output tile: the reset GEMM and the two immediate ALU passes (shift, clip; no source row).
      const int64_t no_src = 0;
      const int64_t alu =
          timing::AluCycles(cfg, timing::AluLoopCycles(cfg, AluOp::kShr, false, tm, tn, &no_src, 1, 0, 0));
      const double passes = static_cast<double>(timing::GemmCycles(cfg, tm * tn) + 2 * alu);
      const double t = steps * std::max(compute, load) + tiles * passes + load + store;
      if (t < best) {
        best = t;
        p.tm = tm;
        p.tn = tn;
        p.tk = tk;
      }
    }
  }
  if (p.tm == 0)
    return InvalidArgumentError("no tile size fits half of each scratchpad of config '{}'{}", cfg.name,
                                ftm || ftn || ftk ? " with the forced tile sizes" : "");
  return p;
}

namespace {

// Tiles a rows x cols matrix (element (r, c) at src[r * rs + c * cs]) into
// [row_tiles][col_tiles][tr][tc] blocks, zero-padding past the edges.
std::vector<int8_t> PackTiles(const std::vector<int8_t>& src, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                              int64_t row_tiles, int64_t col_tiles, int tr, int tc) {
  std::vector<int8_t> out(static_cast<size_t>(row_tiles * col_tiles * tr * tc), 0);
  for (int64_t bt = 0; bt < row_tiles; ++bt)
    for (int64_t ct = 0; ct < col_tiles; ++ct)
      for (int i = 0; i < tr; ++i)
        for (int j = 0; j < tc; ++j) {
          const int64_t r = bt * tr + i, c = ct * tc + j;
          if (r < rows && c < cols)
            out[static_cast<size_t>(((bt * col_tiles + ct) * tr + i) * tc + j)] =
                src[static_cast<size_t>(r * rs + c * cs)];
        }
  return out;
}

}  // namespace

std::vector<int8_t> PackA(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& a) {
  TSR_CHECK(p.a_bytes == p.mb * p.kb * cfg.batch * cfg.block_in);
  return PackTiles(a, p.shape.m, p.shape.k, p.shape.k, 1, p.mb, p.kb, cfg.batch, cfg.block_in);
}

// B is k x n row-major; its tiles are stored transposed (output channel major).
std::vector<int8_t> PackB(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& bm) {
  TSR_CHECK(p.b_bytes == p.nb * p.kb * cfg.block_out * cfg.block_in);
  return PackTiles(bm, p.shape.n, p.shape.k, 1, p.shape.n, p.nb, p.kb, cfg.block_out, cfg.block_in);
}

std::vector<int8_t> UnpackC(const HwConfig& cfg, const MatmulPlan& p, const std::vector<int8_t>& packed) {
  std::vector<int8_t> c(static_cast<size_t>(p.shape.m * p.shape.n));
  const int B = cfg.batch, O = cfg.block_out;
  for (int64_t i = 0; i < p.shape.m; ++i)
    for (int64_t j = 0; j < p.shape.n; ++j) {
      const int64_t r = i / B, b = i % B, col = j / O, o = j % O;
      c[static_cast<size_t>(i * p.shape.n + j)] = packed[static_cast<size_t>(((r * p.nb + col) * B + b) * O + o)];
    }
  return c;
}

std::vector<int8_t> MatmulReference(const std::vector<int8_t>& a, const std::vector<int8_t>& b, const MatmulShape& s,
                                    int shift) {
  std::vector<int8_t> c(static_cast<size_t>(s.m * s.n));
  std::vector<int32_t> row(static_cast<size_t>(s.n));
  for (int64_t i = 0; i < s.m; ++i) {
    std::fill(row.begin(), row.end(), 0);
    for (int64_t k = 0; k < s.k; ++k) {
      const int32_t av = a[static_cast<size_t>(i * s.k + k)];
      for (int64_t j = 0; j < s.n; ++j) row[static_cast<size_t>(j)] += av * b[static_cast<size_t>(k * s.n + j)];
    }
    for (int64_t j = 0; j < s.n; ++j) {
      int64_t v = alu::Apply(AluOp::kShr, row[static_cast<size_t>(j)], shift, 0, 32);
      v = alu::Apply(AluOp::kClip, v, 127, 0, 32);
      c[static_cast<size_t>(i * s.n + j)] = static_cast<int8_t>(v);
    }
  }
  return c;
}

namespace {

// The uop kernels of one tile step. Scratchpad layouts: input half
// [tm][tk], weight half [tn][tk], accumulator half [tm][tn] (dense, so one
// 2-D STORE writes it).
struct TileKernels {
  Kernel reset, gemm, shr, clip;
};

StatusOr<TileKernels> KernelsFor(const HwConfig& cfg, KernelCache* cache, int64_t tm, int64_t tn, int64_t tk,
                                 int64_t acc_base, int64_t inp_base, int64_t wgt_base) {
  TileKernels k;
  // acc[m][n] += inp[m][kk] . wgt[n][kk]: outer loop m, inner loop kk, one uop per n.
  TSR_ASSIGN_OR_RETURN(
      k.gemm, cache->GetOrBuild(fmt::format("mm.gemm/{}x{}x{}/{}/{}/{}", tm, tn, tk, acc_base, inp_base, wgt_base),
                                [&]() -> StatusOr<Kernel> {
                                  KernelBuilder b(cfg, KernelKind::kGemm, "mm.gemm");
                                  b.Outer(tm, tn, tk, 0).Inner(tk, 0, 1, 1);
                                  for (int64_t n = 0; n < tn; ++n) b.Uop(acc_base + n, inp_base, wgt_base + n * tk);
                                  return b.Build();
                                }));
  // Every accumulator entry of the tile, once: outer loop m, inner loop n.
  TSR_ASSIGN_OR_RETURN(k.reset,
                       cache->GetOrBuild(fmt::format("mm.reset/{}x{}/{}", tm, tn, acc_base), [&]() -> StatusOr<Kernel> {
                         KernelBuilder b(cfg, KernelKind::kGemm, "mm.reset");
                         b.Outer(tm, tn, 0).Inner(tn, 1, 0).Uop(acc_base, 0, 0);
                         return b.Build();
                       }));
  TSR_ASSIGN_OR_RETURN(k.shr,
                       cache->GetOrBuild(fmt::format("mm.alu/{}x{}/{}", tm, tn, acc_base), [&]() -> StatusOr<Kernel> {
                         KernelBuilder b(cfg, KernelKind::kAlu, "mm.alu");
                         b.Outer(tm, tn, tn).Inner(tn, 1, 1).Uop(acc_base, acc_base);
                         return b.Build();
                       }));
  k.clip = k.shr;  // same loop nest, different operation
  return k;
}

}  // namespace

Status RecordMatmul(Stream* s, const MatmulPlan& p, DmaTarget a, DmaTarget b, DmaTarget c, KernelCache* kernels) {
  const HwConfig& cfg = s->config();
  const int64_t inp_half = cfg.inp_entries / 2, wgt_half = cfg.wgt_entries / 2, acc_half = cfg.acc_entries / 2;
  const int64_t nm = CeilDiv(p.mb, p.tm), nn = CeilDiv(p.nb, p.tn), nk = CeilDiv(p.kb, p.tk);
  const int64_t n_steps = nm * nn * nk, n_tiles = nm * nn;
  constexpr Module kLd = Module::kLoad, kCp = Module::kCompute, kSt = Module::kStore;
  int64_t step = 0, tile = 0;
  for (int64_t mt = 0; mt < nm; ++mt) {
    for (int64_t nt = 0; nt < nn; ++nt, ++tile) {
      const int64_t tm = std::min(p.tm, p.mb - mt * p.tm), tn = std::min(p.tn, p.nb - nt * p.tn);
      const int64_t acc_base = (tile % 2) * acc_half;
      for (int64_t kt = 0; kt < nk; ++kt, ++step) {
        const int64_t tk = std::min(p.tk, p.kb - kt * p.tk);
        const int64_t inp_base = (step % 2) * inp_half, wgt_base = (step % 2) * wgt_half;
        TSR_ASSIGN_OR_RETURN(TileKernels k, KernelsFor(cfg, kernels, tm, tn, p.tk, acc_base, inp_base, wgt_base));

        // Load: wait until the GEMM two steps back has released this half (WAR),
        // load the A and B tiles (the K tail padded with zero tiles), signal compute (RAW).
        if (step >= 2) TSR_RETURN_IF_ERROR(s->Pop(kCp, kLd));
        Dma2D da;
        da.y_size = tm;
        da.x_size = tk;
        da.x_stride = p.kb;
        da.x_pad1 = p.tk - tk;
        TSR_RETURN_IF_ERROR(s->Load(MemType::kInp, inp_base, a, (mt * p.tm) * p.kb + kt * p.tk, da));
        Dma2D db = da;
        db.y_size = tn;
        TSR_RETURN_IF_ERROR(s->Load(MemType::kWgt, wgt_base, b, (nt * p.tn) * p.kb + kt * p.tk, db));
        TSR_RETURN_IF_ERROR(s->Push(kLd, kCp));

        // Compute: a new output tile first waits for the store that used this
        // accumulator half two tiles back (WAR), then zeroes it.
        if (kt == 0) {
          if (tile >= 2) TSR_RETURN_IF_ERROR(s->Pop(kSt, kCp));
          TSR_RETURN_IF_ERROR(s->GemmReset(k.reset));
        }
        TSR_RETURN_IF_ERROR(s->Pop(kLd, kCp));
        TSR_RETURN_IF_ERROR(s->Gemm(k.gemm));
        if (step + 2 < n_steps) TSR_RETURN_IF_ERROR(s->Push(kCp, kLd));
        if (kt + 1 < nk) continue;

        // Last K step: requantize (round-shift, clip to int8) and hand the tile to store.
        TSR_RETURN_IF_ERROR(s->Alu(k.shr, AluOp::kShr, p.shift));
        TSR_RETURN_IF_ERROR(s->Alu(k.clip, AluOp::kClip, 127));
        TSR_RETURN_IF_ERROR(s->Push(kCp, kSt));
        TSR_RETURN_IF_ERROR(s->Pop(kCp, kSt));
        Dma2D dc;
        dc.y_size = tm;
        dc.x_size = tn;
        dc.x_stride = p.nb;
        TSR_RETURN_IF_ERROR(s->Store(acc_base, c, (mt * p.tm) * p.nb + nt * p.tn, dc));
        if (tile + 2 < n_tiles) TSR_RETURN_IF_ERROR(s->Push(kSt, kCp));
      }
    }
  }
  return OkStatus();
}

}  // namespace tessera::example
