#include "compiler/backend/layout.h"

#include <algorithm>
#include <cstring>

#include "isa/base/check.h"
#include "isa/base/math.h"
#include "isa/config.h"

namespace tessera::backend {
namespace {

void PutLane(uint8_t* p, int64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
}

int64_t GetLane(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  const int sh = 64 - 8 * bytes;
  return static_cast<int64_t>(v << sh) >> sh;
}

// Calls f(byte offset of the lane in the packed tensor, NCHW index) for each
// real element, in packed order ([N/B][C/K][H*W][B][K] lanes of `lane_bytes`).
template <typename F>
void ForEachActLane(const HwConfig& cfg, const ActShape& s, int lane_bytes, F f) {
  const int B = cfg.batch, K = cfg.block_in;
  const int64_t nb = CeilDiv(s.n, B), cb = CeilDiv(s.c, K), hw = s.h * s.w;
  int64_t lane = 0;
  for (int64_t bn = 0; bn < nb; ++bn)
    for (int64_t bc = 0; bc < cb; ++bc)
      for (int64_t pix = 0; pix < hw; ++pix)
        for (int b = 0; b < B; ++b)
          for (int k = 0; k < K; ++k, lane += lane_bytes) {
            const int64_t n = bn * B + b, c = bc * K + k;
            if (n < s.n && c < s.c) f(lane, (n * s.c + c) * hw + pix);
          }
}

}  // namespace

int64_t ActTiles(const HwConfig& cfg, const ActShape& s) {
  return CeilDiv(s.n, cfg.batch) * CeilDiv(s.c, cfg.block_in) * s.h * s.w;
}

int64_t ActBytes(const HwConfig& cfg, const ActShape& s) { return ActTiles(cfg, s) * cfg.inp_tile_bytes; }

std::vector<uint8_t> PackActivation(const HwConfig& cfg, const ActShape& s, const int8_t* x) {
  std::vector<uint8_t> out;
  PackActivationInto(cfg, s, x, &out);
  return out;
}

void PackActivationInto(const HwConfig& cfg, const ActShape& s, const int8_t* x, std::vector<uint8_t>* out) {
  TSR_CHECK(cfg.block_in == cfg.block_out, "activation tiles need BLOCK_IN == BLOCK_OUT");
  const int lb = cfg.inp_bits / 8;
  out->assign(static_cast<size_t>(ActBytes(cfg, s)), 0);
  uint8_t* p = out->data();
  ForEachActLane(cfg, s, lb, [&](int64_t lane, int64_t i) { PutLane(p + lane, x[i], lb); });
}

void UnpackActivation(const HwConfig& cfg, const ActShape& s, const uint8_t* packed, int8_t* x) {
  const int lb = cfg.out_bits / 8;
  ForEachActLane(cfg, s, lb, [&](int64_t lane, int64_t i) { x[i] = static_cast<int8_t>(GetLane(packed + lane, lb)); });
}

WeightPacking WeightPackingOf(const ConvGeometry& g, const ConvBlocking& b) {
  return WeightPacking{g.oc, g.ic / g.groups, g.kh * g.kw, b.ocb, b.ibpo, b.depthwise};
}

uint64_t PackedWeightBytes(const HwConfig& cfg, const WeightPacking& p) {
  return static_cast<uint64_t>(p.ocb * p.ibpo * p.kk) * cfg.wgt_tile_bytes;
}

std::vector<uint8_t> PackConvWeights(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b,
                                     const int8_t* w) {
  const WeightPacking p = WeightPackingOf(g, b);
  std::vector<uint8_t> out(PackedWeightBytes(cfg, p));
  PackConvWeightsInto(cfg, p, w, out.data());
  return out;
}

namespace {

// Fills the real lanes of PackConvWeightsInto's output (zeroed by the caller),
// walking the source in order: for each output channel m and input channel c,
// its kk taps go to kk tiles, one tile apart. Everything the loop reads is a
// local, since stores through `out` may alias any memory.
template <int kLaneBytes>
void ScatterWeights(const HwConfig& cfg, const WeightPacking& wp, const int8_t* w, uint8_t* out, int lb) {
  const int64_t BO = cfg.block_out, BI = cfg.block_in, kk = wp.kk, icg = wp.icg, oc = wp.oc, ibpo = wp.ibpo;
  const bool depthwise = wp.depthwise;
  const int bytes = kLaneBytes > 0 ? kLaneBytes : lb;
  const int64_t tile = BO * BI * bytes;
  for (int64_t m = 0; m < oc; ++m) {
    const int64_t ob = m / BO, o = m % BO;
    const int8_t* src = w + m * icg * kk;
    uint8_t* row = out + ob * ibpo * kk * tile + o * BI * bytes;  // tile (ob, 0, 0), row o
    if (depthwise) {  // block-diagonal: the group's icg inputs sit in columns [o / icg * icg, + icg) of ic block ob
      for (int64_t i = 0; i < icg; ++i, src += kk)
        for (int64_t k = 0; k < kk; ++k) PutLane(row + k * tile + (o / icg * icg + i) * bytes, src[k], bytes);
      continue;
    }
    for (int64_t j = 0; j * BI < icg; ++j, row += kk * tile) {
      const int64_t n = std::min(BI, icg - j * BI);
      for (int64_t i = 0; i < n; ++i, src += kk) {
        uint8_t* d = row + i * bytes;
        for (int64_t k = 0; k < kk; ++k) PutLane(d + k * tile, src[k], bytes);
      }
    }
  }
}

}  // namespace

void PackConvWeightsInto(const HwConfig& cfg, const WeightPacking& wp, const int8_t* w, uint8_t* out) {
  std::memset(out, 0, PackedWeightBytes(cfg, wp));
  const int lb = cfg.wgt_bits / 8;
  if (lb == 1)
    ScatterWeights<1>(cfg, wp, w, out, lb);
  else
    ScatterWeights<0>(cfg, wp, w, out, lb);
}

WeightPacking MatrixPacking(const HwConfig& cfg, int64_t n, int64_t k) {
  return WeightPacking{n, k, 1, CeilDiv(n, cfg.block_out), CeilDiv(k, cfg.block_in), false};
}

void PackMatrixBatchInto(const HwConfig& cfg, int64_t g, int64_t k, int64_t n, const int8_t* b,
                         std::vector<uint8_t>* out) {
  const WeightPacking p = MatrixPacking(cfg, n, k);
  const uint64_t each = PackedWeightBytes(cfg, p);
  out->resize(static_cast<size_t>(g * each));
  std::vector<int8_t> wt(static_cast<size_t>(n * k));
  for (int64_t i = 0; i < g; ++i) {
    const int8_t* bi = b + i * k * n;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c) wt[static_cast<size_t>(c * k + r)] = bi[r * n + c];
    PackConvWeightsInto(cfg, p, wt.data(), out->data() + i * each);
  }
}

std::vector<uint8_t> PackChannelParams(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                                       const std::vector<int64_t>& multiplier) {
  std::vector<uint8_t> out(PackedChannelParamBytes(cfg, oc));
  PackChannelParamsInto(cfg, oc, bias, multiplier, out.data());
  return out;
}

uint64_t PackedChannelParamBytes(const HwConfig& cfg, int64_t oc) {
  return static_cast<uint64_t>(2 * CeilDiv(oc, cfg.block_out)) * cfg.acc_tile_bytes;
}

void PackChannelParamsInto(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                           const std::vector<int64_t>& multiplier, uint8_t* out) {
  const int B = cfg.batch, BO = cfg.block_out, lb = cfg.acc_bits / 8;
  const int64_t ocb = CeilDiv(oc, BO);
  auto value = [&](const std::vector<int64_t>& v, int64_t m) -> int64_t {
    if (v.empty() || m >= oc) return 0;
    return v.size() == 1 ? v[0] : v[m];
  };
  for (int row = 0; row < 2; ++row)
    for (int64_t ob = 0; ob < ocb; ++ob)
      for (int b = 0; b < B; ++b)
        for (int o = 0; o < BO; ++o) {
          const int64_t m = ob * BO + o;
          uint8_t* p = out + static_cast<size_t>(((row * ocb + ob) * B + b) * BO + o) * lb;
          PutLane(p, value(row == 0 ? bias : multiplier, m), lb);
        }
}

std::vector<uint8_t> PackBroadcastRows(const HwConfig& cfg, int64_t count, const std::vector<int64_t>& values) {
  TSR_CHECK(static_cast<int64_t>(values.size()) == count, "{} rows, {} values", count, values.size());
  const int lanes = cfg.batch * cfg.block_out, lb = cfg.acc_bits / 8;
  std::vector<uint8_t> out(static_cast<size_t>(count * cfg.acc_tile_bytes), 0);
  for (int64_t r = 0; r < count; ++r)
    for (int i = 0; i < lanes; ++i) PutLane(&out[static_cast<size_t>(r * lanes + i) * lb], values[r], lb);
  return out;
}

}  // namespace tessera::backend
