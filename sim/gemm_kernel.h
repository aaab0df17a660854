// The inner GEMM step on one scratchpad entry of each kind:
//   acc[b][o] += sum_k inp[b][k] * wgt[o][k]     (wrapping int32)
// Input rows are int16 [batch][k_even]; weights are stored pair-interleaved
// [k_even/2][block_out][2] so that one 32-bit broadcast of an input pair
// multiplies a whole row of output lanes (pmaddwd / vpdpwssd). Results are
// exact modulo 2^32 on every path.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera {

void GemmStep(const int16_t* inp, const int16_t* wgt_pairs, int32_t* acc, int batch, int k_even, int block_out);

// The code paths (chosen at run time: the build is portable). GemmStep uses
// the last of GemmPathsOfThisCpu(); tests compare every one with kScalar.
enum class GemmPath { kScalar, kAvx2, kAvx512, kAvx512Vnni };
std::vector<GemmPath> GemmPathsOfThisCpu();
void GemmStepOn(GemmPath path, const int16_t* inp, const int16_t* wgt_pairs, int32_t* acc, int batch, int k_even,
                int block_out);

}  // namespace tessera
