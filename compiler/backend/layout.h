// Device layouts and the host-side packing transforms, applied only at
// accelerator/CPU boundaries and once for constants.
//
//   activation [N, C, H, W] int8  ->  tiles [N/B][C/BLK][H][W] of [B][BLK]
//       (B = BATCH, BLK = BLOCK_IN = BLOCK_OUT, channels and images zero-padded;
//        a 2-D [N, C] tensor is the same with H = W = 1)
//   conv weights [OC, IC/g, KH, KW]  ->  tiles [OC/BO][IBPO][KH][KW] of [BO][BI]
//       (IBPO input blocks per output block; block-diagonal groups: one tile)
//   per-channel parameters (bias, multiplier) -> accumulator tiles [OC/BO] of
//       [B][BO] int32, each row replicated over the batch lanes
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/backend/conv_plan.h"

namespace tessera {
struct HwConfig;
}

namespace tessera::backend {

struct ActShape {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t Elements() const { return n * c * h * w; }
};

// Tiles and bytes of a packed activation.
int64_t ActTiles(const HwConfig& cfg, const ActShape& s);
int64_t ActBytes(const HwConfig& cfg, const ActShape& s);

// int8 NCHW <-> packed tiles (int8 lanes; configs with 16-bit inputs widen).
std::vector<uint8_t> PackActivation(const HwConfig& cfg, const ActShape& s, const int8_t* nchw);
// The same into `out` (resized; a buffer reused across calls touches no fresh pages).
void PackActivationInto(const HwConfig& cfg, const ActShape& s, const int8_t* nchw, std::vector<uint8_t>* out);
void UnpackActivation(const HwConfig& cfg, const ActShape& s, const uint8_t* packed, int8_t* nchw);

// How a layer's weights [OC][ICG][KK] (ICG = IC/groups, KK = KH*KW; an im2col
// layer has ICG = C*KH*KW, KK = 1) map onto [OCB][IBPO][KK] weight tiles: what
// a .tsr records so that the loader packs the graph's weights itself.
struct WeightPacking {
  int64_t oc = 0, icg = 0, kk = 1, ocb = 0, ibpo = 0;
  bool depthwise = false;  // block-diagonal (conv_plan.h ConvBlocking): icg divides BLOCK, ibpo = 1
};
WeightPacking WeightPackingOf(const ConvGeometry& g, const ConvBlocking& b);
uint64_t PackedWeightBytes(const HwConfig& cfg, const WeightPacking& p);

// A matmul's weights w[N][K] (kk = 1, every output block reads every input block).
WeightPacking MatrixPacking(const HwConfig& cfg, int64_t n, int64_t k);
// G products' second operands b[G][K][N] (int8, activations) as G packed
// weight matrices w_g = b_g^T, one after the other (qbatch_matmul); `out` is
// resized to G * PackedWeightBytes(cfg, MatrixPacking(cfg, n, k)).
void PackMatrixBatchInto(const HwConfig& cfg, int64_t g, int64_t k, int64_t n, const int8_t* b,
                         std::vector<uint8_t>* out);

// Conv (or matmul: KH = KW = 1) weights [OC][IC/groups][KH][KW], int8.
std::vector<uint8_t> PackConvWeights(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b,
                                     const int8_t* w);
// Writes all PackedWeightBytes(cfg, p) bytes of `out`, padding included.
void PackConvWeightsInto(const HwConfig& cfg, const WeightPacking& p, const int8_t* w, uint8_t* out);

// Two accumulator rows per output block: rows [0, OCB) hold bias, rows
// [OCB, 2 OCB) the multipliers (one value per channel, or a single value
// broadcast to all). Padded channels get 0.
std::vector<uint8_t> PackChannelParams(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                                       const std::vector<int64_t>& multiplier);
uint64_t PackedChannelParamBytes(const HwConfig& cfg, int64_t oc);
// Writes all PackedChannelParamBytes(cfg, oc) bytes of `out`, padding included.
void PackChannelParamsInto(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                           const std::vector<int64_t>& multiplier, uint8_t* out);

// `count` accumulator tiles whose every lane holds `value` (per-tensor operands).
std::vector<uint8_t> PackBroadcastRows(const HwConfig& cfg, int64_t count, const std::vector<int64_t>& values);

}  // namespace tessera::backend
