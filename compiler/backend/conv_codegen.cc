#include "compiler/backend/conv_codegen.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "compiler/backend/conv_emitter.h"
#include "compiler/backend/weight_tiles.h"
#include "isa/config.h"
#include "runtime/kernel.h"

namespace tessera::backend {

ConvEmitter::ConvEmitter(Stream& s, const HwConfig& cfg, const ConvCodegen& c)
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

Status ConvEmitter::Emit() {
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

Status ConvEmitter::CopyParams(int64_t row, int64_t n) {
  if (!overlap_) return OkStatus();
  TSR_ASSIGN_OR_RETURN(Kernel copy, kernels_.GetOrBuild(fmt::format("copy {} {}", row, n), [&]() -> StatusOr<Kernel> {
    KernelBuilder kb(cfg_, KernelKind::kAlu, c_.name + " params copy");
    kb.Outer(n, 1, 1).Inner(1, 0, 0).Uop(params_[1] + row, row);
    return kb.Build();
  }));
  return s_.AluVec(copy, AluOp::kMov).WithContext(c_.name);
}

Status ConvEmitter::LoadParams(const Tile& x, int64_t row) {
  Dma2D d;
  d.y_size = 2, d.x_size = x.tob, d.x_stride = b_.ocb;
  return s_.Load(MemType::kAcc, row, c_.params, x.ob0, d).WithContext(c_.name);
}

int64_t ConvEmitter::InputBlock(const Tile& x, int64_t l) const {
  return b_.depthwise ? x.ob0 + l : b_.FirstInputBlock(x.ob0) + x.j0 + l;
}

Status ConvEmitter::LoadStage(const Tile& x, int64_t tile) {
  if (tile >= 2) TSR_RETURN_IF_ERROR(s_.Pop(Module::kCompute, Module::kLoad));
  // The input window; the parts outside the image are the conv padding.
  int64_t offset = 0;
  const Dma2D d = WindowDma(x.oh0 * g_.sh - g_.pt, x.ow0 * g_.sw - g_.pl, x.in_h, x.in_w, g_.ih, g_.iw, c_.in.stride_h,
                            c_.in_zero_point, &offset);
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

StatusOr<std::vector<Kernel>> ConvEmitter::GemmKernels(const Tile& x) {
  if (Phases() > 1) return shuffle_.GemmKernels(x, TileRows{inp_base_[x.slot], wgt_base_[x.slot], acc_base_[x.aslot]});
  TSR_ASSIGN_OR_RETURN(Kernel k, GemmKernel(x));
  return std::vector<Kernel>{k};
}

StatusOr<Kernel> ConvEmitter::GemmKernel(const Tile& x) {
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

Status ConvEmitter::ComputeStage(const Tile& x, int64_t tile, int64_t otile, int64_t total_tiles, int64_t total_out) {
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

Status ConvEmitter::FlushEpilogue(bool beside) {
  if (!pending_) return OkStatus();
  const Pending p = *pending_;
  pending_.reset();
  s_.set_overlap(beside);
  Status st = Epilogue(p.x);
  s_.set_overlap(false);
  TSR_RETURN_IF_ERROR(st);
  return StoreStage(p.x, p.otile, p.total_out);
}

Status ConvEmitter::StoreStage(const Tile& x, int64_t otile, int64_t total_out) {
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

bool ConvOverlaps(const HwConfig& cfg, const ConvTiling& t) {
  // A fused pool reads the other half's rows (its carry), so its tiles do
  // not overlap; nor does a layer of one output tile (nothing to hide
  // behind, and the parameter copy would cost).
  return cfg.compute_overlap != 0 && !t.max_pool && t.tiles / t.ic_tiles > 1;
}

Status EmitConv(Stream& s, const HwConfig& cfg, const ConvCodegen& c) { return ConvEmitter(s, cfg, c).Emit(); }

}  // namespace tessera::backend
