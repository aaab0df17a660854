// Device layouts and the host-side packing transforms, applied only at
// accelerator/CPU boundaries and once for constants.
//
//   activation [N, C, H, W] int8  ->  tiles [N/B][C/BLK][H][W] of [B][BLK]
//       (B = BATCH, BLK = BLOCK_IN = BLOCK_OUT, channels and images zero-padded;
//        a 2-D [N, C] tensor is the same with H = W = 1)
//   conv weights [OC, IC/g, KH, KW]  ->  tiles [OC/BO][IBPO][KH][KW] of [BO][BI]
//       (IBPO input blocks per output block; depthwise: one diagonal tile)
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
void UnpackActivation(const HwConfig& cfg, const ActShape& s, const uint8_t* packed, int8_t* nchw);

// Conv (or matmul: KH = KW = 1) weights [OC][IC/groups][KH][KW], int8.
std::vector<uint8_t> PackConvWeights(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b,
                                     const int8_t* w);

// Two accumulator rows per output block: rows [0, OCB) hold bias, rows
// [OCB, 2 OCB) the multipliers (one value per channel, or a single value
// broadcast to all). Padded channels get 0.
std::vector<uint8_t> PackChannelParams(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                                       const std::vector<int64_t>& multiplier);

// `count` accumulator tiles whose every lane holds `value` (per-tensor operands).
std::vector<uint8_t> PackBroadcastRows(const HwConfig& cfg, int64_t count, const std::vector<int64_t>& values);

}  // namespace tessera::backend
