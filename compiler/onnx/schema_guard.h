// Rank checks ONNX 1.12's own shape inference lacks. Its Gemm definitions
// before opset 7 index the dims of A and B without checking their rank, so an
// opset-6 model whose Gemm reads a rank-0 or rank-1 value (a graph input, an
// initializer or an intermediate such as a reduction without keepdims)
// crashed the process inside InferShapes (SIGSEGV, found by fuzz_onnx).
// GuardOnnxSchemas() wraps those definitions' inference with the check Gemm 7
// and later make, so inference fails with an error naming the node instead.
// ONNX's version converter is no way around it: its Gemm 6->7 adapter indexes
// the same dims, from shapes that only this inference provides.
#pragma once

namespace tessera::frontend {

// Idempotent and thread-safe; call before ONNX shape inference.
void GuardOnnxSchemas();

}  // namespace tessera::frontend
