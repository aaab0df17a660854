// ConvEmitter's epilogue (conv_emitter.h) and the requantizing passes every
// epilogue shares (conv_codegen.h).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "compiler/backend/conv_emitter.h"
#include "isa/alu.h"
#include "isa/config.h"

namespace tessera::backend {

StatusOr<Kernel> ConvEmitter::AluKernel(const Tile& x, const char* what, int64_t src_row, int64_t base,
                                        int64_t pixels) {
  const std::string key = fmt::format("alu {} {} {} {} {}", what, x.tob, pixels, base, src_row);
  return kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
    KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " " + what);
    kb.Outer(x.tob, pixels, src_row >= 0 ? 1 : 0).Inner(pixels, 1, 0);
    kb.Uop(base, std::max<int64_t>(src_row, 0));
    return kb.Build();
  });
}

StatusOr<std::vector<Kernel>> ConvEmitter::ParamKernels(const Tile& x, const char* what, int64_t src_row, int64_t base,
                                                        int64_t pixels) {
  if (Phases() > 1) return shuffle_.ParamKernels(x, what, src_row, base);
  TSR_ASSIGN_OR_RETURN(Kernel k, AluKernel(x, what, src_row, base, pixels));
  return std::vector<Kernel>{k};
}

Status ConvEmitter::AluVecAll(const std::vector<Kernel>& ks, AluOp op, int64_t imm) {
  for (const Kernel& k : ks) TSR_RETURN_IF_ERROR(s_.AluVec(k, op, imm));
  return OkStatus();
}

PoolTile ConvEmitter::PoolTileOf(const Tile& x) const {
  PoolTile p;
  p.tob = x.tob, p.th = x.th, p.tw = x.tw;
  p.conv = acc_base_[x.aslot];
  p.out = p.conv + x.tob * x.th * x.tw;
  if (x.oh0 > 0) p.carry = acc_base_[1 - x.aslot], p.carry_th = t_.th;
  return p;
}

Status ConvEmitter::EmitPool(const Tile& x) {
  const PoolTile pt = PoolTileOf(x);
  for (const PoolPass& p : PoolPasses(pt)) {
    std::string key = fmt::format("{} {} {} {} {} {}", p.what, p.outer.extent, p.inner.extent, p.outer.src, p.inner.src,
                                  p.uops.size());
    for (const auto& u : p.uops) key += fmt::format(" {},{}", u.first, u.second);
    TSR_ASSIGN_OR_RETURN(Kernel k, kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " " + p.what);
      kb.Outer(p.outer.extent, p.outer.dst, p.outer.src).Inner(p.inner.extent, p.inner.dst, p.inner.src);
      for (const auto& u : p.uops) kb.Uop(u.first, u.second);
      return kb.Build();
    }));
    TSR_RETURN_IF_ERROR(s_.AluVec(k, p.op).WithContext(c_.name));
  }
  return OkStatus();
}

Status ConvEmitter::Epilogue(const Tile& x) {
  if (x.last) {
    // Requantize the tile, or only its pooled outputs (monotonic: exact).
    int64_t base = acc_base_[x.aslot], pixels = x.th * x.tw;
    if (t_.max_pool) {
      TSR_RETURN_IF_ERROR(EmitPool(x));
      base = PoolTileOf(x).out, pixels /= 4;
    }
    TSR_ASSIGN_OR_RETURN(std::vector<Kernel> scale, ParamKernels(x, "scale", params_[x.aslot] + x.tob, base, pixels));
    const auto fused = alu::MulShrClipImm(c_.shift, c_.act_min, c_.act_max);
    if (c_.out_zero_point == 0 && fused) {  // MULSHR and the clamp in one pass
      TSR_RETURN_IF_ERROR(AluVecAll(scale, AluOp::kMulShrClip, *fused));
    } else {
      TSR_RETURN_IF_ERROR(AluVecAll(scale, AluOp::kMulShr, c_.shift));
      Tile whole = x;  // a shuffled tile's rows: tob / P blocks of its window
      if (Phases() > 1) whole.tob = shuffle_.Blocks(x), pixels = shuffle_.Pixels(x);
      TSR_ASSIGN_OR_RETURN(Kernel clamp, AluKernel(whole, "clamp", -1, base, pixels));
      if (c_.out_zero_point != 0) TSR_RETURN_IF_ERROR(s_.Alu(clamp, AluOp::kAdd, c_.out_zero_point));
      TSR_RETURN_IF_ERROR(EmitClamp(s_, clamp, c_.act_min, c_.act_max));
    }
    if (t_.residual_add) TSR_RETURN_IF_ERROR(EmitResidualAdd(x));
    TSR_RETURN_IF_ERROR(s_.Push(Module::kCompute, Module::kStore));
  }
  return OkStatus();
}

Status ConvEmitter::EmitResidualAdd(const Tile& x) {
  const int64_t pixels = x.th * x.tw, base = acc_base_[x.aslot], res = base + x.tob * pixels,
                row = params_[x.aslot] + 2 * t_.tob;
  if (!overlap_) TSR_RETURN_IF_ERROR(EmitResidualLoad(x));
  auto kernel = [&](const char* what, int64_t dst, int64_t src, int64_t src_block, int64_t src_in) {
    const std::string key = fmt::format("add {} {} {} {} {}", what, x.tob, pixels, dst, src);
    return kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " " + what);
      kb.Outer(x.tob, pixels, src_block).Inner(pixels, 1, src_in).Uop(dst, src);
      return kb.Build();
    });
  };
  TSR_ASSIGN_OR_RETURN(Kernel scale_conv, kernel("add scale conv", base, row, 0, 0));
  TSR_ASSIGN_OR_RETURN(Kernel scale_res, kernel("add scale residual", res, row + 1, 0, 0));
  TSR_ASSIGN_OR_RETURN(Kernel sum, kernel("add sum", base, res, pixels, 1));
  TSR_RETURN_IF_ERROR(s_.AluVec(scale_conv, AluOp::kMulShr, c_.add_shift_conv));
  TSR_RETURN_IF_ERROR(s_.AluVec(scale_res, AluOp::kMulShr, c_.add_shift_res));
  TSR_RETURN_IF_ERROR(s_.AluVec(sum, AluOp::kAdd));
  return EmitPostShiftClamp(s_, c_.add_post_shift, c_.add_min, c_.add_max,
                            [&](bool by_ones) { return kernel("add out", base, by_ones ? row + 2 : 0, 0, 0); });
}

Status ConvEmitter::EmitResidualLoad(const Tile& x) {
  const int64_t pixels = x.th * x.tw, res = acc_base_[x.aslot] + x.tob * pixels;
  const ActView& r = c_.residual;
  Dma2D d;
  d.y_size = x.th, d.x_size = x.tw, d.x_stride = r.stride_h;
  if (x.tw == r.stride_h) d.y_size = 1, d.x_size = pixels;  // whole rows: one run
  for (int64_t o = 0; o < x.tob; ++o) {
    const int64_t elem = r.base + x.n * r.stride_n + (x.ob0 + o) * r.stride_c + x.oh0 * r.stride_h + x.ow0;
    TSR_RETURN_IF_ERROR(s_.Load(MemType::kAcc8, res + o * pixels, r.slot, elem, d).WithContext(c_.name));
  }
  return OkStatus();
}
Status EmitClamp(Stream& s, const Kernel& k, int64_t lo, int64_t hi) {
  if (lo == -hi - 1) return s.Alu(k, AluOp::kClip, hi);  // symmetric: one instruction
  TSR_RETURN_IF_ERROR(s.Alu(k, AluOp::kMax, lo));
  return s.Alu(k, AluOp::kMin, hi);
}

Status EmitScaleClamp(Stream& s, const Kernel& scale, const Kernel& clamp, int64_t shift, int64_t lo, int64_t hi) {
  if (const auto imm = alu::MulShrClipImm(shift, lo, hi)) return s.AluVec(scale, AluOp::kMulShrClip, *imm);
  TSR_RETURN_IF_ERROR(s.AluVec(scale, AluOp::kMulShr, shift));
  return EmitClamp(s, clamp, lo, hi);
}

Status EmitPostShiftClamp(Stream& s, int64_t post_shift, int64_t lo, int64_t hi,
                          const std::function<StatusOr<Kernel>(bool by_ones)>& out) {
  if (const auto imm = alu::MulShrClipImm(post_shift, lo, hi)) {
    TSR_ASSIGN_OR_RETURN(Kernel k, out(true));
    return s.AluVec(k, AluOp::kMulShrClip, *imm);
  }
  TSR_ASSIGN_OR_RETURN(Kernel k, out(false));
  TSR_RETURN_IF_ERROR(s.Alu(k, AluOp::kShr, post_shift));
  return EmitClamp(s, k, lo, hi);
}

}  // namespace tessera::backend
