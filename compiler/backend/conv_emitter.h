// ConvEmitter: EmitConv's recorder of one layer's tile pipeline
// (conv_codegen.h). Its load/compute/store stages and GEMM kernels are in
// conv_codegen.cc, its epilogue (requantize, fused pool, residual add) in
// conv_epilogue.cc, a pixel shuffle's kernels in shuffle_codegen.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "compiler/backend/conv_codegen.h"
#include "compiler/backend/conv_pool.h"
#include "compiler/backend/shuffle_codegen.h"
#include "runtime/kernel.h"

namespace tessera::backend {

class ConvEmitter {
 public:
  ConvEmitter(Stream& s, const HwConfig& cfg, const ConvCodegen& c);

  // Records the layer (conv_codegen.h EmitConv).
  Status Emit();

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
  Status CopyParams(int64_t row, int64_t n);

  // The oc tile's bias rows at [row, row + tob) and multiplier rows at
  // [row + tob, row + 2 tob): read only by compute, so program order suffices.
  Status LoadParams(const Tile& x, int64_t row);

  int64_t InBlocks(const Tile& x) const { return b_.depthwise ? x.tob : x.tib; }
  int64_t InputBlock(const Tile& x, int64_t l) const;

  // The tile's input window (its padding as DMA padding) and weights.
  Status LoadStage(const Tile& x, int64_t tile);

  // The tile's GEMM kernels: one, or with a pixel shuffle one per phase (shuffle_codegen.h).
  StatusOr<std::vector<Kernel>> GemmKernels(const Tile& x);

  // The unshuffled tile's GEMM: every tap of its weight tiles over its pixels.
  StatusOr<Kernel> GemmKernel(const Tile& x);

  // Pixel-shuffle phases per shuffled block (1: none).
  int64_t Phases() const { return t_.shuffle.phases(); }

  // ALU kernel over `pixels` accumulator rows per output block from `base`;
  // with `src_row` >= 0 each output block reads parameter row src_row + block
  // (one operand read per block).
  StatusOr<Kernel> AluKernel(const Tile& x, const char* what, int64_t src_row, int64_t base, int64_t pixels);

  // AluKernel reading parameter rows, or with a pixel shuffle one kernel per
  // phase (shuffle_codegen.h).
  StatusOr<std::vector<Kernel>> ParamKernels(const Tile& x, const char* what, int64_t src_row, int64_t base,
                                             int64_t pixels);

  // Each kernel of `ks` as one ALU instruction reading its parameter rows.
  Status AluVecAll(const std::vector<Kernel>& ks, AluOp op, int64_t imm = 0);

  // A fused max pool's tile: the conv rows, then the pooled outputs.
  PoolTile PoolTileOf(const Tile& x) const;

  // The fused max pool's passes over the tile (conv_pool.h).
  Status EmitPool(const Tile& x);

  // The bias rows (first ic tile), the GEMMs, then the epilogue or (overlap) its deferral.
  Status ComputeStage(const Tile& x, int64_t tile, int64_t otile, int64_t total_tiles, int64_t total_out);

  // The deferred epilogue and STORE of the previous output tile; `beside`:
  // right after the next tile's first GEMM (else nothing runs beside it).
  Status FlushEpilogue(bool beside);

  // After the last ic tile: [pool,] requantize and clamp[, residual add]; push to store.
  Status Epilogue(const Tile& x);

  // The residual add on the clamped tile (alu_codegen.h's qadd sequence): the
  // other operand's tile comes in with LOAD acc8 after the tile. The
  // post-shift and clamp are one MULSHRC by the row of ones when it can
  // express the clamp (a rounding right shift is MULSHR by 1).
  Status EmitResidualAdd(const Tile& x);

  // The residual operand's tile into the rows after the conv tile's.
  Status EmitResidualLoad(const Tile& x);

  // The tile's (or its pooled or shuffled blocks') STOREs.
  Status StoreStage(const Tile& x, int64_t otile, int64_t total_out);

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

}  // namespace tessera::backend
