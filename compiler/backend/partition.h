// Partitioning of an int8 graph into accelerator and CPU work. Each node gets
// a Placement: on the accelerator (with its geometry and predicted cost), a
// layout alias (no work: the packed bytes already have the output's meaning),
// or the CPU with the reason it is not offloaded. `tessera inspect MODEL.tsr`
// prints this table.
#pragma once

#include <string>
#include <vector>

#include "compiler/backend/alu_codegen.h"
#include "compiler/backend/conv_plan.h"
#include "compiler/backend/conv_shuffle.h"
#include "compiler/ir/graph.h"

namespace tessera::backend {

// kFused: computed inside another accelerator layer (fuse_conv_pool.h, fuse_conv_add.h, fuse_conv_shuffle.h).
enum class PlaceKind { kAccel, kAlias, kCpu, kFused };
// kUnary: an element-wise ALU program (exec::AluProgramOf: hard sigmoid/swish, requantize).
enum class AccelOp { kNone, kConv, kDense, kBatchMatMul, kPool, kAdd, kMul, kUnary };

struct Placement {
  const ir::Node* node = nullptr;
  PlaceKind kind = PlaceKind::kCpu;
  AccelOp op = AccelOp::kNone;
  std::string reason;
  // kConv / kDense
  ConvGeometry geo;
  ConvTiling tiling;
  ConvEpilogue epilogue;                 // what the tiling was planned for (fusions included)
  bool im2col = false;                   // first-layer conv lowered to a matmul over host-built patches
  WeightTileMask nonzero;                // the weight tiles holding a non-zero weight (weight_tiles.h)
  const ir::Node* fused_pool = nullptr;  // a max pool computed in the epilogue (its result is the layer's)
  // A residual qadd computed in the epilogue (fuse_conv_add.h): the layer's
  // step is emitted at the add's position; `add_operand` is the conv's input index of the add.
  const ir::Node* fused_add = nullptr;
  int add_operand = 0;
  // A pixel shuffle (and crop) stored by the conv's tiles (fuse_conv_shuffle.h):
  // its last node's result is the layer's; no nodes: none.
  ConvShuffle shuffle;
  int carrier = -1;      // kFused add: the index of the placement whose step computes it
  int64_t products = 1;  // kBatchMatMul: independent products of geometry `geo` (batch_matmul.h)
  // kPool
  PoolCodegen pool;
  int64_t useful_macs = 0;
  bool cannot_fit = false;  // supported op whose tiles do not fit the config
};

struct PartitionOptions {
  // Convolutions with fewer input channels than this, fed from the host, use
  // host im2col (0 disables it).
  int64_t im2col_max_channels = 8;
  // A layer the accelerator supports but whose tiles cannot fit the config's
  // scratchpads or instruction fields is an error naming it, unless this is
  // set: then it runs on the CPU (its reason says why).
  bool cpu_fallback = false;
  // Fuse max pools and residual adds into their convolutions' epilogues
  // (fuse_conv_pool.h, fuse_conv_add.h).
  bool fuse_pools = true;
  bool fuse_adds = true;
};

// One placement per node, in graph order. Host-produced values are the graph
// inputs and CPU results; im2col needs a host-produced input.
StatusOr<std::vector<Placement>> Partition(const ir::Graph& g, const HwConfig& cfg, const PartitionOptions& opts = {});

// Packed activation shape (N, C, H, W) of a value: rank 4 as is, rank 2 as
// [N, C, 1, 1], rank 3 [B, T, K] (a matmul's rows) as [B*T, K, 1, 1]; false
// for other ranks.
bool ActShapeOf(const ir::TensorType& t, int64_t* n, int64_t* c, int64_t* h, int64_t* w);

// Placement constructors shared by the placement rules (partition.cc, batch_matmul.cc).
Placement CpuPlacement(const ir::Node* n, std::string reason);
// A supported op that does not fit: on the CPU, and an error unless falling back (kResourceExhausted).
Placement DoesNotFit(const ir::Node* n, const Status& s);
Placement AccelPlacement(const ir::Node* n, AccelOp op, std::string reason);

// The per-tensor zero point of a quantized int8 value (0 when it has none).
int64_t ZeroPointOf(const ir::Value* v);

// The requantizing epilogue of a qconv/qmatmul node: its clamp and output zero point.
ConvEpilogue EpilogueOf(const ir::Node& n);

// Epilogue fusion (fuse_conv_pool.h, fuse_conv_add.h): re-plans an accelerator
// convolution's tiling for `e`; on success the placement takes the new tiling
// and its reason says `what` was fused. False (placement untouched) when no
// tiling fits.
bool RetileForFusion(const HwConfig& cfg, const ConvEpilogue& e, const std::string& what, Placement* conv);

}  // namespace tessera::backend
