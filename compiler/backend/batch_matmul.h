// qbatch_matmul (a product of two activations: attention's Q K^T and P V,
// [..., M, K] x [..., K, N], one product per index g of the G leading
// indices) on the GEMM core. The first operand and the result are packed as
// rows ([G*M, K] and [G*M, N]); the second operand cannot be read as weights
// from an activation layout (a weight tile is BLOCK_OUT rows of one input
// block, the DMA moves whole tiles), so the host uploads it transposed into
// G weight matrices b_g^T (layout.h PackMatrixBatchInto) -- a host repack,
// counted as an upload (and a download first when the device made it).
// Each product is then a dense layer over M rows with its own weight base.
//
//   %s = qbatch_matmul(%q, %kt)  ->  UPLOAD %q (rows)  UPLOAD %kt (weights)
//                                    ACCEL: G x [dense M x K x N]  (%s as rows)
#pragma once

#include <set>

#include "compiler/backend/layout.h"
#include "compiler/backend/partition.h"

namespace tessera::backend {

// `rows`: rank >= 4 device values held as rows (results of earlier products);
// `device`: all values an accelerator layer produced so far.
Placement PlaceBatchMatMul(const ir::Node* n, const HwConfig& cfg, const std::set<const ir::Value*>& device,
                           const std::set<const ir::Value*>& rows);

// The rows shape [prod(leading dims), last dim, 1, 1] of a value.
ActShape RowsShapeOf(const ir::TensorType& t);

}  // namespace tessera::backend
