#include "compiler/backend/conv_codegen.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "compiler/backend/conv_pool.h"
#include "compiler/backend/shuffle_codegen.h"
#include "compiler/backend/weight_tiles.h"
#include "isa/alu.h"
#include "isa/config.h"
#include "runtime/kernel.h"

namespace tessera::backend {
namespace {

class ConvEmitter {
 public:
  ConvEmitter(Stream& s, const HwConfig& cfg, const ConvCodegen& c)
      : s_(s),
        cfg_(cfg),
        c_(c),
        g_(c.geo),
        b_(c.blocks),
        t_(c.tiling),
        sp_(SplitScratchpads(cfg, c.tiling.tob, c.tiling.residual_add)),
        shuffle_(cfg, c, kernels_) {
    inp_base_[0] = 0, inp_base_[1] = sp_.inp_half;
    wgt_base_[0] = 0, wgt_base_[1] = sp_.wgt_half;
    acc_base_[0] = sp_.acc_base[0], acc_base_[1] = sp_.acc_base[1];
    kk_ = g_.kh * g_.kw;
    overlap_ = ConvOverlaps(cfg, t_);
    // With overlap each half is an accumulator bank with its own parameter
    // rows, loaded (ovl, beside the other bank's GEMM) when its oc tile changes.
    params_[0] = 0, params_[1] = overlap_ ? sp_.acc_copy : 0;
  }

  Status Emit() {
    if (t_.residual_add) {  // the add's multipliers, after the parameter rows
      TSR_RETURN_IF_ERROR(s_.Load(MemType::kAcc, 2 * t_.tob, c_.add_params, 0, Dma2D{1, 3}).WithContext(c_.name));
      TSR_RETURN_IF_ERROR(CopyParams(2 * t_.tob, 3));
    }
    // Each oc tile's ic tiles that read a non-zero weight tile.
    std::vector<std::vector<IcTile>> ics;
    int64_t per_image = 0;
    for (int64_t ot = 0; ot < t_.oc_tiles; ++ot) {
      ics.push_back(IcTilesOf(b_, t_, kk_, c_.nonzero, ot * t_.tob));
      per_image += static_cast<int64_t>(ics.back().size()) * t_.h_tiles * t_.w_tiles;
    }
    const int64_t total_tiles = b_.nb * per_image, total_out = t_.tiles / t_.ic_tiles;
    int64_t tile = 0, otile = 0;
    for (int64_t n = 0; n < b_.nb; ++n)
      for (int64_t ot = 0; ot < t_.oc_tiles; ++ot)
        for (int64_t ht = 0; ht < t_.h_tiles; ++ht)
          for (int64_t wt = 0; wt < t_.w_tiles; ++wt, ++otile) {
            Tile x{};
            x.n = n;
            x.ob0 = ot * t_.tob;
            x.tob = std::min(t_.tob, b_.ocb - x.ob0);
            x.oh0 = ht * t_.th;
            x.th = std::min(t_.th, g_.oh - x.oh0);
            x.ow0 = wt * t_.tw;
            x.tw = std::min(t_.tw, g_.ow - x.ow0);
            x.in_h = (x.th - 1) * g_.sh + g_.ekh();
            x.in_w = (x.tw - 1) * g_.sw + g_.ekw();
            x.aslot = static_cast<int>(otile % 2);
            // (With overlap, each bank's rows are loaded by ComputeStage.)
            if (ht == 0 && wt == 0 && !overlap_) TSR_RETURN_IF_ERROR(LoadParams(x, 0));
            const std::vector<IcTile>& its = ics[static_cast<size_t>(ot)];
            for (size_t it = 0; it < its.size(); ++it, ++tile) {
              x.ic = &its[it];
              x.j0 = x.ic->j0;
              x.tib = x.ic->tib;
              x.slot = static_cast<int>(tile % 2);
              x.first = it == 0;
              x.last = it + 1 == its.size();
              TSR_RETURN_IF_ERROR(LoadStage(x, tile));
              TSR_RETURN_IF_ERROR(ComputeStage(x, tile, otile, total_tiles, total_out));
            }
            if (!overlap_) TSR_RETURN_IF_ERROR(StoreStage(x, otile, total_out));
          }
    TSR_RETURN_IF_ERROR(FlushEpilogue(false));
    // The last stores complete before whatever follows on the stream.
    TSR_RETURN_IF_ERROR(s_.Push(Module::kStore, Module::kCompute));
    return s_.Pop(Module::kStore, Module::kCompute);
  }

 private:
  using Tile = ConvTile;
  // With overlap, an output tile's epilogue (requantize, residual add) and
  // its STORE are emitted after the next tile's first GEMM, which fills the
  // other accumulator half, and carry ovl so they run beside it:
  //   before: MOV_i  GEMM_i  EPI_i  | MOV_i+1  GEMM_i+1  EPI_i+1
  //   after:  MOV_i  GEMM_i  MOV_i+1(ovl)  GEMM_i+1  EPI_i(ovl)  MOV_i+2(ovl) ...
  // (MOV_i+1 runs beside GEMM_i.) A residual tile's LOAD acc8 moves to after
  // its MOV and runs beside GEMM_i too (on the ALU pipe, into the same bank).
  struct Pending {
    Tile x;
    int64_t otile, total_out;
  };

  // With overlap, rows [row, row + n) (the add's multipliers) into the second
  // bank's copy: one MOV pass (2 cycles a row), cheaper than a second LOAD.
  Status CopyParams(int64_t row, int64_t n) {
    if (!overlap_) return OkStatus();
    TSR_ASSIGN_OR_RETURN(Kernel copy, kernels_.GetOrBuild(fmt::format("copy {} {}", row, n), [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " params copy");
      kb.Outer(n, 1, 1).Inner(1, 0, 0).Uop(params_[1] + row, row);
      return kb.Build();
    }));
    return s_.AluVec(copy, AluOp::kMov).WithContext(c_.name);
  }

  // The oc tile's bias rows at [row, row + tob) and multiplier rows at
  // [row + tob, row + 2 tob): read only by compute, so program order suffices.
  Status LoadParams(const Tile& x, int64_t row) {
    Dma2D d;
    d.y_size = 2, d.x_size = x.tob, d.x_stride = b_.ocb;
    return s_.Load(MemType::kAcc, row, c_.params, x.ob0, d).WithContext(c_.name);
  }

  int64_t InBlocks(const Tile& x) const { return b_.depthwise ? x.tob : x.tib; }
  int64_t InputBlock(const Tile& x, int64_t l) const {
    return b_.depthwise ? x.ob0 + l : b_.FirstInputBlock(x.ob0) + x.j0 + l;
  }

  Status LoadStage(const Tile& x, int64_t tile) {
    if (tile >= 2) TSR_RETURN_IF_ERROR(s_.Pop(Module::kCompute, Module::kLoad));
    // The input window; the parts outside the image are the conv padding.
    int64_t offset = 0;
    const Dma2D d = WindowDma(x.oh0 * g_.sh - g_.pt, x.ow0 * g_.sw - g_.pl, x.in_h, x.in_w, g_.ih, g_.iw,
                              c_.in.stride_h, c_.in_zero_point, &offset);
    for (int64_t l = 0; l < InBlocks(x); ++l) {
      if (!x.ic->read[static_cast<size_t>(l)]) continue;  // only zero weight tiles would multiply it
      const int64_t elem = c_.in.base + x.n * c_.in.stride_n + InputBlock(x, l) * c_.in.stride_c + offset;
      TSR_RETURN_IF_ERROR(
          s_.Load(MemType::kInp, inp_base_[x.slot] + l * x.in_h * x.in_w, c_.in.slot, elem, d).WithContext(c_.name));
    }
    const bool resident = t_.weights_resident;
    if (!x.ic->all) {  // the non-zero weight tiles only, at their dense positions
      if (!resident || loaded_.insert({x.ob0, x.j0}).second)
        for (const WeightRun& r : WeightRuns(*x.ic, b_, kk_, x.ob0, resident))
          TSR_RETURN_IF_ERROR(s_.Load(MemType::kWgt, (resident ? 0 : wgt_base_[x.slot]) + r.wgt, c_.weights,
                                      c_.weight_base + r.dram, Dma2D{1, r.n})
                                  .WithContext(c_.name));
    } else if (resident) {
      // Resident weights arrive with the first tile that uses them, so the
      // first GEMM waits for its own oc/ic chunk only.
      if (loaded_.insert({x.ob0, x.j0}).second) {
        const int64_t row = x.tib * kk_, pitch = b_.ibpo * kk_;
        for (int64_t o = 0; o < (row == pitch ? 1 : x.tob); ++o) {
          const int64_t at = ((x.ob0 + o) * b_.ibpo + x.j0) * kk_;
          TSR_RETURN_IF_ERROR(
              s_.Load(MemType::kWgt, at, c_.weights, c_.weight_base + at, Dma2D{1, row == pitch ? x.tob * row : row})
                  .WithContext(c_.name));
        }
      }
    } else {
      Dma2D w;
      w.y_size = x.tob;
      w.x_size = x.tib * kk_;
      w.x_stride = b_.ibpo * kk_;
      TSR_RETURN_IF_ERROR(
          s_.Load(MemType::kWgt, wgt_base_[x.slot], c_.weights, c_.weight_base + (x.ob0 * b_.ibpo + x.j0) * kk_, w)
              .WithContext(c_.name));
    }
    return s_.Push(Module::kLoad, Module::kCompute);
  }

  // The tile's GEMM kernels: one, or with a pixel shuffle one per phase (shuffle_codegen.h).
  StatusOr<std::vector<Kernel>> GemmKernels(const Tile& x) {
    if (Phases() > 1)
      return shuffle_.GemmKernels(x, TileRows{inp_base_[x.slot], wgt_base_[x.slot], acc_base_[x.aslot]});
    TSR_ASSIGN_OR_RETURN(Kernel k, GemmKernel(x));
    return std::vector<Kernel>{k};
  }

  StatusOr<Kernel> GemmKernel(const Tile& x) {
    // Weight offsets fix the kernel with resident weights; so do the skipped tiles.
    const bool at = t_.weights_resident || !x.ic->all;
    const std::string key = fmt::format("gemm {} {} {} {} {} {} {} {} {}", x.tob, x.tib, x.th, x.tw, x.slot, x.aslot,
                                        at ? x.ob0 : -1, at ? x.j0 : -1, x.in_w);
    return kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kGemm, c_.name + " gemm");
      kb.Outer(x.th, x.tw, g_.sh * x.in_w, 0).Inner(x.tw, 1, g_.sw, 0);
      for (int64_t u : x.ic->taps) {  // (o * tib + j) * kk + tap, the non-zero weight tiles
        const int64_t o = u / (x.tib * kk_), j = u / kk_ % x.tib, i = u % kk_ / g_.kw, k = u % g_.kw;
        const int64_t in_l = b_.depthwise ? o : j;
        const int64_t wgt =
            t_.weights_resident ? ((x.ob0 + o) * b_.ibpo + x.j0 + j) * kk_ + i * g_.kw + k : wgt_base_[x.slot] + u;
        kb.Uop(acc_base_[x.aslot] + o * x.th * x.tw,
               inp_base_[x.slot] + in_l * x.in_h * x.in_w + i * g_.dh * x.in_w + k * g_.dw, wgt);
      }
      return kb.Build();
    });
  }

  // Pixel-shuffle phases per shuffled block (1: none).
  int64_t Phases() const { return t_.shuffle.phases(); }

  // ALU kernel over `pixels` accumulator rows per output block from `base`;
  // with `src_row` >= 0 each output block reads parameter row src_row + block
  // (one operand read per block).
  StatusOr<Kernel> AluKernel(const Tile& x, const char* what, int64_t src_row, int64_t base, int64_t pixels) {
    const std::string key = fmt::format("alu {} {} {} {} {}", what, x.tob, pixels, base, src_row);
    return kernels_.GetOrBuild(key, [&]() -> StatusOr<Kernel> {
      KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " " + what);
      kb.Outer(x.tob, pixels, src_row >= 0 ? 1 : 0).Inner(pixels, 1, 0);
      kb.Uop(base, std::max<int64_t>(src_row, 0));
      return kb.Build();
    });
  }

  // AluKernel reading parameter rows, or with a pixel shuffle one kernel per
  // phase (shuffle_codegen.h).
  StatusOr<std::vector<Kernel>> ParamKernels(const Tile& x, const char* what, int64_t src_row, int64_t base,
                                             int64_t pixels) {
    if (Phases() > 1) return shuffle_.ParamKernels(x, what, src_row, base);
    TSR_ASSIGN_OR_RETURN(Kernel k, AluKernel(x, what, src_row, base, pixels));
    return std::vector<Kernel>{k};
  }

  Status AluVecAll(const std::vector<Kernel>& ks, AluOp op, int64_t imm = 0) {
    for (const Kernel& k : ks) TSR_RETURN_IF_ERROR(s_.AluVec(k, op, imm));
    return OkStatus();
  }

  // A fused max pool's tile: the conv rows, then the pooled outputs.
  PoolTile PoolTileOf(const Tile& x) const {
    PoolTile p;
    p.tob = x.tob, p.th = x.th, p.tw = x.tw;
    p.conv = acc_base_[x.aslot];
    p.out = p.conv + x.tob * x.th * x.tw;
    if (x.oh0 > 0) p.carry = acc_base_[1 - x.aslot], p.carry_th = t_.th;
    return p;
  }

  Status EmitPool(const Tile& x) {
    const PoolTile pt = PoolTileOf(x);
    for (const PoolPass& p : PoolPasses(pt)) {
      std::string key = fmt::format("{} {} {} {} {} {}", p.what, p.outer.extent, p.inner.extent, p.outer.src,
                                    p.inner.src, p.uops.size());
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

  Status ComputeStage(const Tile& x, int64_t tile, int64_t otile, int64_t total_tiles, int64_t total_out) {
    if (!overlap_) TSR_RETURN_IF_ERROR(s_.Pop(Module::kLoad, Module::kCompute));
    if (x.first) {
      if (otile >= 2) TSR_RETURN_IF_ERROR(s_.Pop(Module::kStore, Module::kCompute));
      TSR_ASSIGN_OR_RETURN(std::vector<Kernel> bias,
                           ParamKernels(x, "bias", params_[x.aslot], acc_base_[x.aslot], x.th * x.tw));
      s_.set_overlap(pending_.has_value());  // beside the previous tile's last GEMM
      Status st;
      if (overlap_ && params_ob0_[x.aslot] != x.ob0) {  // this bank's copy of the oc tile's rows
        params_ob0_[x.aslot] = x.ob0;
        st = LoadParams(x, params_[x.aslot]);
      }
      if (st.ok()) st = AluVecAll(bias, AluOp::kMov);
      if (st.ok() && overlap_ && t_.residual_add) st = EmitResidualLoad(x);
      s_.set_overlap(false);
      TSR_RETURN_IF_ERROR(st);
    }
    if (overlap_) TSR_RETURN_IF_ERROR(s_.Pop(Module::kLoad, Module::kCompute));
    TSR_ASSIGN_OR_RETURN(std::vector<Kernel> gemms, GemmKernels(x));
    for (const Kernel& gemm : gemms) TSR_RETURN_IF_ERROR(s_.Gemm(gemm).WithContext(c_.name));
    if (tile + 2 < total_tiles) TSR_RETURN_IF_ERROR(s_.Push(Module::kCompute, Module::kLoad));
    TSR_RETURN_IF_ERROR(FlushEpilogue(true));
    if (x.last && overlap_) {
      pending_ = Pending{x, otile, total_out};
      return OkStatus();
    }
    return Epilogue(x);
  }

  // The deferred epilogue and STORE of the previous output tile; `beside`:
  // right after the next tile's first GEMM (else nothing runs beside it).
  Status FlushEpilogue(bool beside) {
    if (!pending_) return OkStatus();
    const Pending p = *pending_;
    pending_.reset();
    s_.set_overlap(beside);
    Status st = Epilogue(p.x);
    s_.set_overlap(false);
    TSR_RETURN_IF_ERROR(st);
    return StoreStage(p.x, p.otile, p.total_out);
  }

  Status Epilogue(const Tile& x) {
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

  // The residual add on the clamped tile (alu_codegen.h's qadd sequence): the
  // other operand's tile comes in with LOAD acc8 after the tile. The
  // post-shift and clamp are one MULSHRC by the row of ones when it can
  // express the clamp (a rounding right shift is MULSHR by 1).
  Status EmitResidualAdd(const Tile& x) {
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

  // The residual operand's tile into the rows after the conv tile's.
  Status EmitResidualLoad(const Tile& x) {
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

  Status StoreStage(const Tile& x, int64_t otile, int64_t total_out) {
    TSR_RETURN_IF_ERROR(s_.Pop(Module::kCompute, Module::kStore));
    if (Phases() > 1) {
      TSR_RETURN_IF_ERROR(shuffle_.Store(s_, x, acc_base_[x.aslot]));
      if (otile + 2 < total_out) TSR_RETURN_IF_ERROR(s_.Push(Module::kStore, Module::kCompute));
      return OkStatus();
    }
    // The tile, or its pooled outputs (out is then the pool's result).
    const int64_t f = t_.max_pool ? 2 : 1;
    const int64_t base = t_.max_pool ? PoolTileOf(x).out : acc_base_[x.aslot];
    Dma2D d;
    d.y_size = x.th / f;
    d.x_size = x.tw / f;
    d.x_stride = c_.out.stride_h;
    for (int64_t o = 0; o < x.tob; ++o) {
      const int64_t elem =
          c_.out.base + x.n * c_.out.stride_n + (x.ob0 + o) * c_.out.stride_c + x.oh0 / f * c_.out.stride_h + x.ow0 / f;
      TSR_RETURN_IF_ERROR(s_.Store(base + o * d.y_size * d.x_size, c_.out.slot, elem, d).WithContext(c_.name));
    }
    if (otile + 2 < total_out) TSR_RETURN_IF_ERROR(s_.Push(Module::kStore, Module::kCompute));
    return OkStatus();
  }

  Stream& s_;
  const HwConfig& cfg_;
  const ConvCodegen& c_;
  const ConvGeometry& g_;
  const ConvBlocking& b_;
  const ConvTiling& t_;
  ScratchpadSplit sp_;
  int64_t inp_base_[2], wgt_base_[2], acc_base_[2], kk_;
  int64_t params_[2];  // the parameter rows each accumulator half's ALUs read
  KernelCache kernels_;
  ShuffleCodegen shuffle_;                        // with a pixel shuffle: its kernels (in kernels_) and STOREs
  std::set<std::pair<int64_t, int64_t>> loaded_;  // resident weight chunks (first oc block, first ic block)
  bool overlap_ = false;
  int64_t params_ob0_[2] = {-1, -1};  // with overlap: the oc tile (first block) each bank's parameter rows hold
  std::optional<Pending> pending_;
};

}  // namespace

ActView NchwView(Slot slot, int64_t c_blocks, int64_t h, int64_t w) {
  ActView v;
  v.slot = slot;
  v.stride_h = w;
  v.stride_c = h * w;
  v.stride_n = c_blocks * h * w;
  return v;
}

Dma2D WindowDma(int64_t r0, int64_t c0, int64_t rows, int64_t cols, int64_t h, int64_t w, int64_t row_pitch,
                int64_t pad_value, int64_t* offset) {
  const int64_t vr0 = std::max<int64_t>(0, r0), vr1 = std::min(h, r0 + rows);
  const int64_t vc0 = std::max<int64_t>(0, c0), vc1 = std::min(w, c0 + cols);
  Dma2D d;
  d.x_stride = row_pitch;
  d.pad_value = pad_value;
  *offset = 0;
  if (vr1 <= vr0 || vc1 <= vc0) {  // the window misses the plane: all padding
    d.y_size = d.x_size = 0;
    d.y_pad0 = rows, d.y_pad1 = 0, d.x_pad0 = cols, d.x_pad1 = 0;
    return d;
  }
  d.y_size = vr1 - vr0, d.x_size = vc1 - vc0;
  d.y_pad0 = vr0 - r0, d.y_pad1 = rows - d.y_size - d.y_pad0;
  d.x_pad0 = vc0 - c0, d.x_pad1 = cols - d.x_size - d.x_pad0;
  *offset = vr0 * row_pitch + vc0;
  return d;
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

bool ConvOverlaps(const HwConfig& cfg, const ConvTiling& t) {
  // A fused pool reads the other half's rows (its carry), so its tiles do
  // not overlap; nor does a layer of one output tile (nothing to hide
  // behind, and the parameter copy would cost).
  return cfg.compute_overlap != 0 && !t.max_pool && t.tiles / t.ic_tiles > 1;
}

Status EmitConv(Stream& s, const HwConfig& cfg, const ConvCodegen& c) { return ConvEmitter(s, cfg, c).Emit(); }

}  // namespace tessera::backend
