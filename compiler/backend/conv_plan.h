// Tiling of a convolution (a matmul is a 1x1 convolution over M x 1 pixels)
// onto the accelerator, and the cost model that chooses it. A tile computes
// `tob` output-channel blocks x `th` x `tw` output pixels of one batch block,
// accumulating over input-channel blocks in chunks of `tib`; inputs and
// weights of consecutive tiles alternate between the two halves of their
// scratchpads (double buffering), and so do accumulator tiles. PlanConv
// ranks the legal tilings with the closed-form estimate of conv_estimate.h
// and picks the cheapest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/alu.h"
#include "isa/base/status.h"

namespace tessera {
struct HwConfig;
}

namespace tessera::backend {

struct ConvGeometry {
  int64_t n = 1;  // images
  int64_t ic = 0, oc = 0, groups = 1;
  int64_t ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t dh = 1, dw = 1;  // dilation: tap (i, k) reads input offset (i*dh, k*dw)
  int64_t pt = 0, pl = 0;  // top/left padding; bottom/right follow from oh/ow
  // The dilated kernel's extent: an input window spans (out - 1) * stride + these.
  int64_t ekh() const { return (kh - 1) * dh + 1; }
  int64_t ekw() const { return (kw - 1) * dw + 1; }
  std::string ToString() const;
};

// A pixel shuffle of stride phases stored by the tiles (conv_shuffle.h):
// the conv's channels are [OC/BLK/P][P][BLK] (P = sh * sw phases) and an oc
// tile holds whole phase groups; conv block o's pixel (i, j) is pixel
// (i * sh + o % P / sw, j * sw + o % P % sw) of shuffled block o / P. The
// result is the oh x ow window from row crop_h, column crop_w of that grid.
struct PixelShuffle {
  int64_t sh = 1, sw = 1, crop_h = 0, crop_w = 0, oh = 0, ow = 0;
  int64_t phases() const { return sh * sw; }
};

// What the layer does to each output tile after the GEMM (its ALU passes).
struct ConvEpilogue {
  // Passes after the MULSHR: none when MULSHRC clamps in the same pass
  // (alu::MulShrClipImm: [-2^c, 2^c - 1] or [0, 2^c - 1], no zero point);
  // else CLIP for a symmetric range, MAX then MIN otherwise, one more (ADD)
  // for a result zero point.
  int clamp_passes = 0;
  // A 3x3 stride-2 max pool (padding 1) fused after the GEMM (conv_pool.h).
  bool max_pool = false;
  // A residual qadd fused after the clamp (fuse_conv_add.h): its passes after
  // the ADD (0: no add). 1: one MULSHRC by a row of ones (the post-shift and
  // the clamp); else SHR and the clamp's one or two passes.
  int residual_passes = 0;
  PixelShuffle shuffle;  // stride phases stored at their shuffled positions (phases() == 1: none)
  // The passes depend on the range only: shifts are valid MULSHR shifts
  // (type inference keeps shift in [0, 63] and post_shift in [0, 31]).
  static bool OneClampPass(int64_t act_min, int64_t act_max) {
    return alu::MulShrClipImm(0, act_min, act_max).has_value();
  }
  static int ResidualPasses(int64_t act_min, int64_t act_max) {
    return OneClampPass(act_min, act_max) ? 1 : 1 + (act_min == -act_max - 1 ? 1 : 2);
  }
  static ConvEpilogue ForRange(int64_t act_min, int64_t act_max, int64_t zero_point = 0) {
    if (zero_point == 0 && OneClampPass(act_min, act_max)) return ConvEpilogue{0, false, 0, {}};
    return ConvEpilogue{(act_min == -act_max - 1 ? 1 : 2) + (zero_point != 0 ? 1 : 0), false, 0, {}};
  }
};

// How the layer's channels map onto blocks. A grouped convolution runs as
//   block-diagonal (`depthwise`): ic == oc, groups of icg channels with icg
//     dividing BLOCK (depthwise: icg = 1): oc block b reads ic block b, its
//     weight tile holds the groups' icg x icg blocks on the diagonal;
//   independent group GEMMs (`group_ocb` > 0): icg and ocg multiples of BLOCK:
//     each group's group_ocb oc blocks read its ibpo = icg / BLOCK ic blocks
//     (an oc tile never spans two groups).
struct ConvBlocking {
  int64_t nb = 0;  // batch blocks (n / BATCH, rounded up)
  int64_t icb = 0, ocb = 0;
  int64_t ibpo = 0;        // input-channel blocks read by each output-channel block
  bool depthwise = false;  // block-diagonal: oc block b reads ic block b
  int64_t group_ocb = 0;   // group GEMMs: oc blocks per group (0: not grouped)
  // First input-channel block read by output-channel block `ob`.
  int64_t FirstInputBlock(int64_t ob) const { return depthwise ? ob : group_ocb > 0 ? ob / group_ocb * ibpo : 0; }
};

StatusOr<ConvBlocking> BlockConv(const HwConfig& cfg, const ConvGeometry& g);

// Per weight tile [OCB][IBPO][KH*KW] (layout.h): 1 when it holds a non-zero
// weight (weight_tiles.h); empty: every tile does (e.g. uploaded weights).
using WeightTileMask = std::vector<uint8_t>;

struct ConvTiling {
  int64_t tob = 1, tib = 1, th = 1, tw = 1;
  bool weights_resident = false;  // every weight tile fits the weight scratchpad: loaded once
  // A fused 3x3/2 max pool (ConvEpilogue::max_pool): tiles span whole rows,
  // an even number of them, and keep their pooled outputs after the tile.
  bool max_pool = false;
  // A fused residual add: the other operand's tile sits after the tile, and
  // the add's two multiplier rows after the parameter rows.
  bool residual_add = false;
  // A pixel shuffle (ConvEpilogue::shuffle): tob is a multiple of its phases.
  PixelShuffle shuffle;
  // Derived per-tile sizes.
  int64_t in_h = 0, in_w = 0;  // input rows/cols of a tile (with the kernel halo)
  int64_t in_blocks = 0;       // input-channel blocks in an input tile
  int64_t inp_entries = 0, wgt_entries = 0, acc_entries = 0, uops = 0;
  // Tile counts.
  int64_t oc_tiles = 0, ic_tiles = 0, h_tiles = 0, w_tiles = 0, tiles = 0;
  // The tiler's estimate (conv_estimate.h), for ranking.
  int64_t estimated_cycles = 0;
  int64_t gemm_cycles = 0;  // GEMM iterations (the ideal)
  std::string ToString() const;
};

// Scratchpad split used by the tiler (entries). The accumulator keeps the
// current output-channel tile's 2 x tob parameter rows (bias, multiplier)
// below the two tile halves (and a fused residual add's two multiplier rows).
struct ScratchpadSplit {
  int64_t inp_half, wgt_half, wgt_all, acc_half, acc_params, uop_total;
  // With timing.compute_overlap the accumulator's halves are its two banks
  // (sim/timing.h AccBank), each with its own copy of the parameter rows: the
  // second copy's first row (acc_entries / 2), else -1 (half 1 follows half 0).
  int64_t acc_copy = -1;
  int64_t acc_base[2] = {0, 0};  // the first row of tile half 0 and of half 1
};
ScratchpadSplit SplitScratchpads(const HwConfig& cfg, int64_t tob, bool residual_add = false);

// The largest padding a LOAD encodes (rows or elements on one side): the
// y_pad0/x_pad0 field width in isa/isa.def. Conv tilings and pools check it.
int64_t DmaPadMax(const HwConfig& cfg);

// Checks a tiling against the scratchpads, field widths and DMA limits and
// fills its derived sizes. Errors name the violated limit.
Status CheckConvTiling(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b, ConvTiling* t);

// Searches tilings and returns the one with the fewest estimated cycles (the
// tiles `nonzero` marks zero skipped). A layer that cannot fit at all is
// an error naming the layer's shape and the scratchpad that is too small.
StatusOr<ConvTiling> PlanConv(const HwConfig& cfg, const ConvGeometry& g, const ConvEpilogue& e = {},
                              const WeightTileMask& nonzero = {});

}  // namespace tessera::backend
