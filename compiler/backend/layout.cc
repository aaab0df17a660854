#include "compiler/backend/layout.h"

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
  TSR_CHECK(cfg.block_in == cfg.block_out, "activation tiles need BLOCK_IN == BLOCK_OUT");
  const int lb = cfg.inp_bits / 8;
  std::vector<uint8_t> out(static_cast<size_t>(ActBytes(cfg, s)), 0);
  ForEachActLane(cfg, s, lb, [&](int64_t lane, int64_t i) { PutLane(&out[lane], x[i], lb); });
  return out;
}

void UnpackActivation(const HwConfig& cfg, const ActShape& s, const uint8_t* packed, int8_t* x) {
  const int lb = cfg.out_bits / 8;
  ForEachActLane(cfg, s, lb, [&](int64_t lane, int64_t i) { x[i] = static_cast<int8_t>(GetLane(packed + lane, lb)); });
}

std::vector<uint8_t> PackConvWeights(const HwConfig& cfg, const ConvGeometry& g, const ConvBlocking& b,
                                     const int8_t* w) {
  const int BO = cfg.block_out, BI = cfg.block_in, lb = cfg.wgt_bits / 8;
  const int64_t kk = g.kh * g.kw, icg = g.ic / g.groups;
  std::vector<uint8_t> out(static_cast<size_t>(b.ocb * b.ibpo * kk * cfg.wgt_tile_bytes), 0);
  uint8_t* p = out.data();
  for (int64_t ob = 0; ob < b.ocb; ++ob)
    for (int64_t j = 0; j < b.ibpo; ++j)
      for (int64_t k = 0; k < kk; ++k)
        for (int o = 0; o < BO; ++o)
          for (int i = 0; i < BI; ++i, p += lb) {
            const int64_t m = ob * BO + o;
            if (m >= g.oc) continue;
            int64_t c = -1;  // index into the weight's input-channel axis
            if (b.depthwise) {
              if (o == i) c = 0;
            } else {
              c = j * BI + i;
              if (c >= icg) c = -1;
            }
            if (c >= 0) PutLane(p, w[(m * icg + c) * kk + k], lb);
          }
  return out;
}

std::vector<uint8_t> PackChannelParams(const HwConfig& cfg, int64_t oc, const std::vector<int64_t>& bias,
                                       const std::vector<int64_t>& multiplier) {
  const int B = cfg.batch, BO = cfg.block_out, lb = cfg.acc_bits / 8;
  const int64_t ocb = CeilDiv(oc, BO);
  std::vector<uint8_t> out(static_cast<size_t>(2 * ocb * cfg.acc_tile_bytes), 0);
  auto value = [&](const std::vector<int64_t>& v, int64_t m) -> int64_t {
    if (v.empty()) return 0;
    return v.size() == 1 ? v[0] : v[m];
  };
  for (int row = 0; row < 2; ++row)
    for (int64_t ob = 0; ob < ocb; ++ob)
      for (int b = 0; b < B; ++b)
        for (int o = 0; o < BO; ++o) {
          const int64_t m = ob * BO + o;
          if (m >= oc) continue;
          uint8_t* p = &out[static_cast<size_t>(((row * ocb + ob) * B + b) * BO + o) * lb];
          PutLane(p, value(row == 0 ? bias : multiplier, m), lb);
        }
  return out;
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
