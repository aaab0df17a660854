#include "compiler/backend/alu_codegen.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/backend/conv_plan.h"
#include "isa/base/math.h"
#include "isa/config.h"
#include "runtime/kernel.h"

namespace tessera::backend {
namespace {

// Accumulator layout for ALU layers: parameter rows first, then two halves.
struct AccSplit {
  int64_t params, half, base[2];
};
AccSplit SplitAcc(const HwConfig& cfg, int64_t params) {
  AccSplit a;
  a.params = params;
  a.half = (cfg.acc_entries - params) / 2;
  a.base[0] = params;
  a.base[1] = params + a.half;
  return a;
}

// Output rows per pool tile: input window rows + output rows fit a half.
int64_t PoolRows(const HwConfig& cfg, const PoolCodegen& p, int64_t* tw) {
  const AccSplit acc = SplitAcc(cfg, 1);
  for (*tw = p.ow; *tw >= 1; *tw = *tw > 1 ? CeilDiv(*tw, 2) : 0) {
    const int64_t in_w = (*tw - 1) * p.sw + p.kw;
    for (int64_t th = p.oh; th >= 1; th = th > 1 ? CeilDiv(th, 2) : 0) {
      const int64_t in_h = (th - 1) * p.sh + p.kh;
      if (in_h * in_w + th * *tw <= acc.half) return th;
      if (th == 1) break;
    }
    if (*tw == 1) break;
  }
  return 0;
}

Status Drain(Stream& s) {
  TSR_RETURN_IF_ERROR(s.Push(Module::kStore, Module::kCompute));
  return s.Pop(Module::kStore, Module::kCompute);
}

// The end of an element-wise tile (qadd, qmul, unary ALU programs): hand the result rows at
// `base` to the store module, store them to `out`'s tiles [first, first + n),
// and release the accumulator half when a later tile will reuse it.
Status StoreTile(Stream& s, int64_t base, const Slot& out, int64_t first, int64_t n, bool more,
                 const std::string& name) {
  TSR_RETURN_IF_ERROR(s.Push(Module::kCompute, Module::kStore));
  TSR_RETURN_IF_ERROR(s.Pop(Module::kCompute, Module::kStore));
  TSR_RETURN_IF_ERROR(s.Store(base, out, first, Dma2D{1, n}).WithContext(name));
  return more ? s.Push(Module::kStore, Module::kCompute) : OkStatus();
}

// Window rows per chunk when one output's window does not fit (chunked path):
// the chunk's rows x kw inputs plus the output entry fit a half.
int64_t ChunkRows(const HwConfig& cfg, const PoolCodegen& p) {
  return std::min(p.kh, (SplitAcc(cfg, 1).half - 1) / p.kw);
}

// The standard path keeps whole windows of a tile of outputs and one uop per
// window element; it needs both to fit.
bool StandardPath(const HwConfig& cfg, const PoolCodegen& p) {
  int64_t tw = 0;
  return p.kh * p.kw <= cfg.uop_entries / 4 && PoolRows(cfg, p, &tw) >= 1;
}

}  // namespace

Status CheckPool(const HwConfig& cfg, const PoolCodegen& p) {
  const int64_t pb = std::max<int64_t>(0, (p.oh - 1) * p.sh + p.kh - p.pt - p.ih);
  const int64_t pr = std::max<int64_t>(0, (p.ow - 1) * p.sw + p.kw - p.pl - p.iw);
  if (const int64_t pad_max = DmaPadMax(cfg); std::max({p.pt, p.pl, pb, pr}) > pad_max)
    return UnimplementedError("{}: pool padding above {} does not fit the DMA padding fields", p.name, pad_max);
  if (!StandardPath(cfg, p) && ChunkRows(cfg, p) < 1)
    return ResourceExhaustedError("{}: one {}-wide window row does not fit half of the accumulator ({} entries)",
                                  p.name, p.kw, SplitAcc(cfg, 1).half);
  return OkStatus();
}

namespace {

// One output per tile; the window's rows arrive in chunks that fit, and each
// chunk is folded into the output with a single-uop loop nest over its rows
// and columns. Average pools start from zero (ALU reset) and ADD every
// element; max pools start from the window's first element and MAX every
// element (MAX is idempotent).
// The end of one pool tile of th x tw outputs at accumulator row `out`:
// average pooling rescales them (multiply-shift, clip), store writes them to
// element `oelem`, and hands the buffer half back unless no later tile uses it.
// The rescale kernel is keyed by its rows, not the half: edge tiles with equal
// output counts can sit at different rows.
Status FinishPoolTile(Stream& s, const HwConfig& cfg, const PoolCodegen& p, KernelCache& kernels, int64_t out,
                      int64_t th, int64_t tw, int64_t oelem, bool release) {
  if (!p.max) {
    auto scale = kernels.GetOrBuild(fmt::format("scale {} {}", out, th * tw), [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg, KernelKind::kAlu, p.name + " scale");
      kb.Outer(1, 0, 0).Inner(th * tw, 1, 0).Uop(out, 0);
      return kb.Build();
    });
    TSR_RETURN_IF_ERROR(scale.status());
    TSR_RETURN_IF_ERROR(EmitScaleClamp(s, *scale, *scale, p.shift, -128, 127));
  }
  TSR_RETURN_IF_ERROR(s.Push(Module::kCompute, Module::kStore));
  TSR_RETURN_IF_ERROR(s.Pop(Module::kCompute, Module::kStore));
  Dma2D o;
  o.y_size = th, o.x_size = tw, o.x_stride = th > 1 ? p.out.stride_h : 0;  // one row needs no pitch
  TSR_RETURN_IF_ERROR(s.Store(out, p.out.slot, oelem, o).WithContext(p.name));
  return release ? s.Push(Module::kStore, Module::kCompute) : OkStatus();
}

Status EmitChunkedPool(Stream& s, const HwConfig& cfg, const PoolCodegen& p) {
  const AccSplit acc = SplitAcc(cfg, 1);
  const int64_t kr = ChunkRows(cfg, p);
  const int64_t nb = CeilDiv(p.n, cfg.batch), cb = CeilDiv(p.c, cfg.block_in);
  const int64_t total = nb * cb * p.oh * p.ow;
  KernelCache kernels;
  if (!p.max) TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc, 0, p.params, 0, Dma2D{1, 1}));
  int64_t t = 0;
  for (int64_t n = 0; n < nb; ++n)
    for (int64_t c = 0; c < cb; ++c)
      for (int64_t oh = 0; oh < p.oh; ++oh)
        for (int64_t ow = 0; ow < p.ow; ++ow, ++t) {
          const int half = static_cast<int>(t % 2);
          const int64_t out = acc.base[half], in = acc.base[half] + 1;
          if (t >= 2) TSR_RETURN_IF_ERROR(s.Pop(Module::kStore, Module::kCompute));
          for (int64_t i0 = 0; i0 < p.kh; i0 += kr) {
            const int64_t rows = std::min(kr, p.kh - i0);
            int64_t offset = 0;
            const Dma2D d = WindowDma(oh * p.sh - p.pt + i0, ow * p.sw - p.pl, rows, p.kw, p.ih, p.iw, p.in.stride_h,
                                      p.max ? -128 : 0, &offset);
            const int64_t elem = p.in.base + n * p.in.stride_n + c * p.in.stride_c + offset;
            TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, in, p.in.slot, elem, d).WithContext(p.name));
            auto kernel = [&](const char* what, int64_t outer, int64_t inner) {
              return kernels.GetOrBuild(fmt::format("{} {} {} {}", what, outer, inner, half),
                                        [&]() -> StatusOr<Kernel> {
                                          KernelBuilder kb(cfg, KernelKind::kAlu, p.name + " " + what);
                                          kb.Outer(outer, 0, p.kw).Inner(inner, 0, 1).Uop(out, in);
                                          return kb.Build();
                                        });
            };
            if (i0 == 0) {
              TSR_ASSIGN_OR_RETURN(Kernel first, kernel("first", 1, 1));
              if (p.max) {
                TSR_RETURN_IF_ERROR(s.AluVec(first, AluOp::kMov));
              } else {
                TSR_RETURN_IF_ERROR(s.Alu(first, AluOp::kMov, 0));
              }
            }
            TSR_ASSIGN_OR_RETURN(Kernel fold, kernel("fold", rows, p.kw));
            TSR_RETURN_IF_ERROR(s.AluVec(fold, p.max ? AluOp::kMax : AluOp::kAdd));
          }
          const int64_t oelem = p.out.base + n * p.out.stride_n + c * p.out.stride_c + oh * p.out.stride_h + ow;
          TSR_RETURN_IF_ERROR(FinishPoolTile(s, cfg, p, kernels, out, 1, 1, oelem, t + 2 < total));
        }
  return Drain(s);
}

}  // namespace

Status EmitPool(Stream& s, const HwConfig& cfg, const PoolCodegen& p) {
  TSR_RETURN_IF_ERROR(CheckPool(cfg, p));
  if (!StandardPath(cfg, p)) return EmitChunkedPool(s, cfg, p);
  const AccSplit acc = SplitAcc(cfg, 1);
  int64_t tw_max = 0;
  const int64_t th_max = PoolRows(cfg, p, &tw_max);
  const int64_t nb = CeilDiv(p.n, cfg.batch), cb = CeilDiv(p.c, cfg.block_in);
  const int64_t h_tiles = CeilDiv(p.oh, th_max), w_tiles = CeilDiv(p.ow, tw_max);
  const int64_t total = nb * cb * h_tiles * w_tiles;
  KernelCache kernels;
  if (!p.max) TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc, 0, p.params, 0, Dma2D{1, 1}));
  int64_t t = 0;
  for (int64_t n = 0; n < nb; ++n)
    for (int64_t c = 0; c < cb; ++c)
      for (int64_t ht = 0; ht < h_tiles; ++ht)
        for (int64_t wt = 0; wt < w_tiles; ++wt, ++t) {
          const int half = static_cast<int>(t % 2);
          const int64_t oh0 = ht * th_max, th = std::min(th_max, p.oh - oh0);
          const int64_t ow0 = wt * tw_max, tw = std::min(tw_max, p.ow - ow0);
          const int64_t in_h = (th - 1) * p.sh + p.kh, in_w = (tw - 1) * p.sw + p.kw;
          const int64_t in_base = acc.base[half], out_base = acc.base[half] + in_h * in_w;
          // The input window; the parts outside the image are padding.
          int64_t offset = 0;
          const Dma2D d = WindowDma(oh0 * p.sh - p.pt, ow0 * p.sw - p.pl, in_h, in_w, p.ih, p.iw, p.in.stride_h,
                                    p.max ? -128 : 0, &offset);
          if (t >= 2) TSR_RETURN_IF_ERROR(s.Pop(Module::kStore, Module::kCompute));
          const int64_t elem = p.in.base + n * p.in.stride_n + c * p.in.stride_c + offset;
          TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, in_base, p.in.slot, elem, d).WithContext(p.name));
          // First window element (MOV), then the rest (MAX or ADD).
          for (int pass = 0; pass < 2; ++pass) {
            if (pass == 1 && p.kh * p.kw == 1) break;
            const std::string key = fmt::format("pool {} {} {} {} {}", pass, th, tw, half, in_w);
            auto k = kernels.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
              KernelBuilder kb(cfg, KernelKind::kAlu, p.name + (pass ? " window" : " first"));
              kb.Outer(th, tw, p.sh * in_w).Inner(tw, 1, p.sw);
              for (int64_t i = 0; i < p.kh; ++i)
                for (int64_t j = 0; j < p.kw; ++j)
                  if ((i == 0 && j == 0) == (pass == 0)) kb.Uop(out_base, in_base + i * in_w + j);
              return kb.Build();
            });
            TSR_RETURN_IF_ERROR(k.status());
            TSR_RETURN_IF_ERROR(s.AluVec(*k, pass == 0 ? AluOp::kMov : p.max ? AluOp::kMax : AluOp::kAdd));
          }
          const int64_t oelem = p.out.base + n * p.out.stride_n + c * p.out.stride_c + oh0 * p.out.stride_h + ow0;
          TSR_RETURN_IF_ERROR(FinishPoolTile(s, cfg, p, kernels, out_base, th, tw, oelem, t + 2 < total));
        }
  return Drain(s);
}

Status EmitAdd(Stream& s, const HwConfig& cfg, const AddCodegen& a) {
  const AccSplit acc = SplitAcc(cfg, 3);
  const int64_t per = std::min<int64_t>(acc.half / 2, 16384 - 1);
  if (per < 1) return ResourceExhaustedError("{}: no accumulator space for an element-wise tile", a.name);
  const int64_t total = CeilDiv(a.tiles, per);
  KernelCache kernels;
  TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc, 0, a.params, 0, Dma2D{1, 3}));
  for (int64_t t = 0; t < total; ++t) {
    const int half = static_cast<int>(t % 2);
    const int64_t t0 = t * per, n = std::min(per, a.tiles - t0);
    const int64_t base_a = acc.base[half], base_b = acc.base[half] + n;
    if (t >= 2) TSR_RETURN_IF_ERROR(s.Pop(Module::kStore, Module::kCompute));
    TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_a, a.a, t0, Dma2D{1, n}).WithContext(a.name));
    TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_b, a.b, t0, Dma2D{1, n}).WithContext(a.name));
    auto kern = [&](const char* what, int64_t dst, int64_t src, int64_t src_step) {
      return kernels.GetOrBuild(fmt::format("{} {} {} {}", what, n, half, src_step), [&]() -> StatusOr<Kernel> {
        KernelBuilder kb(cfg, KernelKind::kAlu, a.name + " " + what);
        kb.Outer(1, 0, 0).Inner(n, 1, src_step).Uop(dst, src);
        return kb.Build();
      });
    };
    TSR_ASSIGN_OR_RETURN(Kernel scale_a, kern("scale a", base_a, 0, 0));
    TSR_ASSIGN_OR_RETURN(Kernel scale_b, kern("scale b", base_b, 1, 0));
    TSR_ASSIGN_OR_RETURN(Kernel sum, kern("sum", base_a, base_b, 1));
    TSR_RETURN_IF_ERROR(s.AluVec(scale_a, AluOp::kMulShr, a.shift_a));
    TSR_RETURN_IF_ERROR(s.AluVec(scale_b, AluOp::kMulShr, a.shift_b));
    TSR_RETURN_IF_ERROR(s.AluVec(sum, AluOp::kAdd));
    TSR_RETURN_IF_ERROR(EmitPostShiftClamp(s, a.post_shift, a.act_min, a.act_max, [&](bool by_ones) {
      return by_ones ? kern("post", base_a, 2, 0) : kern("out", base_a, 0, 0);
    }));
    TSR_RETURN_IF_ERROR(StoreTile(s, base_a, a.out, t0, n, t + 2 < total, a.name));
  }
  return Drain(s);
}

Status EmitMul(Stream& s, const HwConfig& cfg, const MulCodegen& m) {
  const AccSplit acc = SplitAcc(cfg, 1);
  const int64_t per = std::min<int64_t>(m.broadcast ? acc.half - 1 : acc.half / 2, 16384 - 1);
  if (per < 1) return ResourceExhaustedError("{}: no accumulator space for an element-wise tile", m.name);
  const int64_t chunks = CeilDiv(m.plane_tiles, per), total = m.planes * chunks;
  KernelCache kernels;
  TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc, 0, m.params, 0, Dma2D{1, 1}));
  for (int64_t t = 0; t < total; ++t) {
    const int half = static_cast<int>(t % 2);
    const int64_t plane = t / chunks, c0 = (t % chunks) * per, n = std::min(per, m.plane_tiles - c0);
    const int64_t first = plane * m.plane_tiles + c0;
    const int64_t base_a = acc.base[half], base_b = acc.base[half] + n;
    if (t >= 2) TSR_RETURN_IF_ERROR(s.Pop(Module::kStore, Module::kCompute));
    TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_a, m.a, first, Dma2D{1, n}).WithContext(m.name));
    if (m.broadcast) {
      TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_b, m.b, plane, Dma2D{1, 1}).WithContext(m.name));
    } else {
      TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_b, m.b, first, Dma2D{1, n}).WithContext(m.name));
    }
    auto kern = [&](const char* what, int64_t src, int64_t src_step) {
      return kernels.GetOrBuild(fmt::format("{} {} {} {}", what, n, half, src_step), [&]() -> StatusOr<Kernel> {
        KernelBuilder kb(cfg, KernelKind::kAlu, m.name + " " + what);
        kb.Outer(1, 0, 0).Inner(n, 1, src_step).Uop(base_a, src);
        return kb.Build();
      });
    };
    TSR_ASSIGN_OR_RETURN(Kernel product, kern("product", base_b, m.broadcast ? 0 : 1));
    TSR_ASSIGN_OR_RETURN(Kernel scale, kern("scale", 0, 0));
    TSR_RETURN_IF_ERROR(s.AluVec(product, AluOp::kMul));
    TSR_RETURN_IF_ERROR(EmitScaleClamp(s, scale, scale, m.shift, m.act_min, m.act_max));
    TSR_RETURN_IF_ERROR(StoreTile(s, base_a, m.out, first, n, t + 2 < total, m.name));
  }
  return Drain(s);
}

std::vector<int64_t> ProgramParams(const quant::AluProgram& p) {
  std::vector<int64_t> v;
  for (const quant::AluStep& st : p)
    if (st.src == quant::AluSrc::kParam) v.push_back(st.value);
  return v;
}

Status EmitUnary(Stream& s, const HwConfig& cfg, const UnaryCodegen& u) {
  const std::vector<int64_t> params = ProgramParams(u.program);
  const AccSplit acc = SplitAcc(cfg, static_cast<int64_t>(params.size()));
  const bool keep_x = quant::ReadsInput(u.program);
  const int64_t per = std::min<int64_t>(keep_x ? acc.half / 2 : acc.half, 16384 - 1);
  if (per < 1) return ResourceExhaustedError("{}: no accumulator space for an element-wise tile", u.name);
  const int64_t total = CeilDiv(u.tiles, per);
  KernelCache kernels;
  if (!params.empty())
    TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc, 0, u.params, 0, Dma2D{1, static_cast<int64_t>(params.size())}));
  for (int64_t t = 0; t < total; ++t) {
    const int half = static_cast<int>(t % 2);
    const int64_t t0 = t * per, n = std::min(per, u.tiles - t0);
    const int64_t base_x = acc.base[half], base_t = keep_x ? base_x + n : base_x;
    if (t >= 2) TSR_RETURN_IF_ERROR(s.Pop(Module::kStore, Module::kCompute));
    TSR_RETURN_IF_ERROR(s.Load(MemType::kAcc8, base_x, u.in, t0, Dma2D{1, n}).WithContext(u.name));
    auto kern = [&](int64_t src, int64_t src_step) {
      return kernels.GetOrBuild(fmt::format("{} {} {} {}", n, half, src, src_step), [&]() -> StatusOr<Kernel> {
        KernelBuilder kb(cfg, KernelKind::kAlu, u.name);
        kb.Outer(1, 0, 0).Inner(n, 1, src_step).Uop(base_t, src);
        return kb.Build();
      });
    };
    int64_t row = 0;
    for (const quant::AluStep& st : u.program) {
      if (st.src == quant::AluSrc::kImm) {
        TSR_ASSIGN_OR_RETURN(Kernel k, kern(0, 0));
        TSR_RETURN_IF_ERROR(s.Alu(k, st.op, st.value));
      } else if (st.src == quant::AluSrc::kParam) {
        TSR_ASSIGN_OR_RETURN(Kernel k, kern(row++, 0));
        TSR_RETURN_IF_ERROR(s.AluVec(k, st.op, st.shift));
      } else {
        TSR_ASSIGN_OR_RETURN(Kernel k, kern(base_x, 1));
        TSR_RETURN_IF_ERROR(s.AluVec(k, st.op));
      }
    }
    TSR_RETURN_IF_ERROR(StoreTile(s, base_t, u.out, t0, n, t + 2 < total, u.name));
  }
  return Drain(s);
}

}  // namespace tessera::backend
