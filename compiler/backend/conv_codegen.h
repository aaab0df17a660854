// Code generation for qconv / qmatmul: records the double-buffered tile
// pipeline of a ConvTiling into a runtime Stream against declared slots.
//
// Per tile t (input half t%2, accumulator half o%2 of output tile o):
//   load:    [pop compute->load if t>=2] LOAD inp (per input block, with the
//            conv padding as DMA padding) [LOAD wgt] push load->compute
//   compute: pop load->compute [pop store->compute if first ic tile, o>=2]
//            [ALU mov bias rows if first ic tile] GEMM [push compute->load]
//            [ALU mulshrc (or mulshr; max/min or clip); push compute->store if last ic tile]
//   store:   pop compute->store, STORE each output block [push store->compute]
// Accumulation over input-channel tiles stays in the accumulator (the bias is
// the initial value, so no reset is needed): bit-exact with Requantize.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compiler/backend/conv_plan.h"
#include "runtime/stream.h"

namespace tessera::backend {

// A packed activation in a slot: element (tile) index of (n block, c block,
// h, w) = base + n*stride_n + c*stride_c + h*stride_h + w.
struct ActView {
  Slot slot;
  int64_t base = 0, stride_n = 0, stride_c = 0, stride_h = 0;
};

// The standard [N/B][C/BLK][H][W] view of an activation.
ActView NchwView(Slot slot, int64_t c_blocks, int64_t h, int64_t w);

// A window of `rows` x `cols` elements whose top-left corner is (r0, c0) in an
// h x w plane, possibly partly outside it: the DMA of its inside part with the
// outside as padding (all padding when it misses the plane). `*offset` is the
// element offset of the first inside element relative to the plane's (0, 0).
Dma2D WindowDma(int64_t r0, int64_t c0, int64_t rows, int64_t cols, int64_t h, int64_t w, int64_t row_pitch,
                int64_t pad_value, int64_t* offset);

struct ConvCodegen {
  std::string name;
  ConvGeometry geo;
  ConvBlocking blocks;
  ConvTiling tiling;
  ActView in, out;  // with tiling.max_pool, out is the pooled result
  // With a pixel shuffle (tiling.shuffle) out is the shuffled result.
  Slot weights, params;     // packed as in layout.h
  int64_t weight_base = 0;  // element (weight tile) offset of the weights in their slot
  WeightTileMask nonzero;   // all-zero weight tiles are not loaded or multiplied (weight_tiles.h)
  int shift = 0;
  int64_t act_min = -128, act_max = 127;
  int64_t in_zero_point = 0;   // the DMA pads the input with it
  int64_t out_zero_point = 0;  // added (ALU ADD immediate) after MULSHR, before the clamp
  // A residual qadd fused after the clamp (tiling.residual_add; out is then
  // the add's result): MIN(MAX(SHR(MULSHR(conv, M_c, s_c) + MULSHR(res, M_r, s_r), post), lo), hi),
  // the last three one MULSHRC by 1 when it can express the clamp.
  ActView residual;  // the add's other operand, loaded with LOAD acc8 per tile
  Slot add_params;   // three accumulator rows: M_c, M_r and 1 broadcast
  int add_shift_conv = 0, add_shift_res = 0, add_post_shift = 0;
  int64_t add_min = -128, add_max = 127;
};

// Clamps the rows `k` writes to [lo, hi]: one CLIP when the range is
// symmetric ([-hi - 1, hi]), else MAX lo then MIN hi. Shared by every
// requantizing epilogue (conv, qadd, qmul).
Status EmitClamp(Stream& s, const Kernel& k, int64_t lo, int64_t hi);

// MULSHR by `shift` (the multiplier rows `scale` reads), then the clamp to
// [lo, hi]: one MULSHRC when it expresses the clamp, else MULSHR and
// EmitClamp over `clamp` (the same rows; its source is not read).
Status EmitScaleClamp(Stream& s, const Kernel& scale, const Kernel& clamp, int64_t shift, int64_t lo, int64_t hi);

// An add's rounding right shift by `post_shift`, then the clamp to [lo, hi]:
// one MULSHRC by a row of ones (MULSHR by 1 is the shift) when it expresses
// the clamp, else SHR and EmitClamp. `out(true)` is the kernel reading the
// ones row, `out(false)` the one reading nothing; only the one used is built.
Status EmitPostShiftClamp(Stream& s, int64_t post_shift, int64_t lo, int64_t hi,
                          const std::function<StatusOr<Kernel>(bool by_ones)>& out);

// Whether EmitConv gives a layer of tiling `t` the overlap schedule (each
// accumulator half a bank with its own parameter rows; a tile's epilogue and
// STORE beside the next tile's GEMM): on a config with timing.compute_overlap,
// a layer of several output tiles without a fused pool.
bool ConvOverlaps(const HwConfig& cfg, const ConvTiling& t);

// Appends the layer to `s` and leaves it token-balanced (the last store is
// ordered before anything the stream appends afterwards).
Status EmitConv(Stream& s, const HwConfig& cfg, const ConvCodegen& c);

}  // namespace tessera::backend
