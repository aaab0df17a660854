// A pixel-shuffled conv tile (conv_shuffle.h) on the device: its window of
// the shuffled result, each phase's rows and columns inside that window, and
// the kernels and STOREs that write them there (conv_codegen.cc emits them).
// The tiler's uop budget (conv_plan.cc) and estimate (conv_estimate.cc)
// count the same spans and kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/weight_tiles.h"
#include "runtime/kernel.h"

namespace tessera::backend {

// A shuffled tile's window: the result rows [y0, y0 + h) and columns
// [x0, x0 + w) its phase pixels fall on; each shuffled block's accumulator
// rows hold them row-major (h x w), so one STORE writes a block.
struct ShuffleWindow {
  int64_t y0 = 0, h = 0, x0 = 0, w = 0;
};
// Phase p's tile rows [i0, i1) and columns [j0, j1) inside the window, and
// the accumulator offset (within a block) of its pixel (i0, j0).
struct PhaseSpan {
  int64_t i0 = 0, i1 = 0, j0 = 0, j1 = 0, dst = 0;
  bool empty() const { return i1 <= i0 || j1 <= j0; }
  int64_t pixels() const { return empty() ? 0 : (i1 - i0) * (j1 - j0); }
};
// The tile of conv pixels [oh0, oh0 + th) x [ow0, ow0 + tw) under shuffle `s`.
struct ShuffledTile {
  ShuffleWindow window;
  std::vector<PhaseSpan> spans;  // per phase
  // Every phase fills the tile: one GEMM over all phases (uops of each at its offset).
  bool whole = true;
};
ShuffledTile ShuffleTileOf(const PixelShuffle& s, int64_t oh0, int64_t th, int64_t ow0, int64_t tw);

// The tile's GEMM kernels (of a th x tw tile): phase p's span for each phase
// with pixels in the window (a kernel of its taps, if any), or when every
// phase fills the tile one kernel of every tap (phase -1).
struct PhaseGemm {
  int64_t phase;
  PhaseSpan span;
};
std::vector<PhaseGemm> PhaseGemms(const ShuffledTile& st, int64_t th, int64_t tw);

// The uop entries a shuffled layer's kernels take at most (the tiler's
// budget, conv_plan.cc): for each distinct tile layout (first, inner and last
// tiles of each axis; the crop), `gemm_uops` for its GEMMs (every buffer
// half and weight variant) and its bias and scale kernels (a uop per phase
// row, per accumulator half); the clamp's.
int64_t ShuffleUops(const ConvTiling& t, int64_t oh, int64_t ow, int64_t gemm_uops);

// What a shuffled tile's kernels cost (the tiler's estimate,
// conv_estimate.cc): its GEMMs (`phase_taps`: the taps of each phase) and
// their uops, one pass of its parameter kernels (bias or scale) and their
// uops, one pass over its window's rows (the clamp).
struct ShuffleTileCost {
  int64_t gemm_cycles = 0, gemm_iterations = 0, param_cycles = 0, scale_cycles = 0,
          clamp_cycles = 0;                    // param: MOV, scale: MULSHR
  std::vector<int64_t> gemm_uops, param_uops;  // per kernel
};
ShuffleTileCost ShuffleTileCostOf(const HwConfig& cfg, const PixelShuffle& s, const ShuffledTile& st, int64_t tob,
                                  int64_t th, int64_t tw, const std::vector<int64_t>& phase_taps);

// A tile as ConvEmitter walks them: batch block n, oc blocks [ob0, ob0 + tob),
// pixels [oh0, oh0 + th) x [ow0, ow0 + tw) (input window in_h x in_w), ic
// chunk [j0, j0 + tib) in input half `slot`, accumulator half `aslot`.
struct ConvTile {
  int64_t n, ob0, tob, oh0, th, ow0, tw, in_h, in_w, j0, tib;
  int slot, aslot;
  bool first, last;
  const IcTile* ic;  // the weight tiles its GEMM reads
};

// The scratchpad rows a tile's kernels address.
struct TileRows {
  int64_t inp, wgt, acc;  // the tile's input half, weight half (unless resident), accumulator half
};

// A shuffled layer's kernels (in `kernels`, shared with the rest of the
// layer) and STOREs.
class ShuffleCodegen {
 public:
  ShuffleCodegen(const HwConfig& cfg, const ConvCodegen& c, KernelCache& kernels)
      : cfg_(cfg), c_(c), kernels_(kernels) {}
  // The tile's GEMM kernels: one per phase with a pixel in the tile's window
  // (over its rows and columns there), or one when every phase fills it.
  StatusOr<std::vector<Kernel>> GemmKernels(const ConvTile& x, const TileRows& r);
  // ALU kernels reading parameter row `src_row` + block onto the tile's rows
  // from `base`, one per phase: its blocks (outer), columns (inner) and rows
  // (uops), so each block's parameter row is read once.
  StatusOr<std::vector<Kernel>> ParamKernels(const ConvTile& x, const char* what, int64_t src_row, int64_t base);
  // The accumulator rows of the tile's shuffled blocks: tob / P blocks of its window.
  int64_t Blocks(const ConvTile& x) const { return x.tob / Phases(); }
  int64_t Pixels(const ConvTile& x) const;
  // Each shuffled block's window from accumulator half `acc`: one STORE.
  Status Store(Stream& s, const ConvTile& x, int64_t acc) const;

 private:
  int64_t Phases() const { return c_.tiling.shuffle.phases(); }
  ShuffledTile TileOf(const ConvTile& x) const { return ShuffleTileOf(c_.tiling.shuffle, x.oh0, x.th, x.ow0, x.tw); }
  const HwConfig& cfg_;
  const ConvCodegen& c_;
  KernelCache& kernels_;
};

}  // namespace tessera::backend
