// Structure-aware mutation of ONNX models for fuzz_onnx: the input is parsed
// as an onnx.ModelProto, a few fields the importer interprets are changed
// (shapes and dims, attributes, node inputs/outputs/op types, initializers,
// node order, opsets) and the model is serialized again, so mutants get past
// protobuf parsing and reach the checker, shape inference and the converters.
// Inputs that do not parse, and one mutation in four, get libFuzzer's byte
// mutation (LLVMFuzzerMutate) instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::fuzz {

// LLVMFuzzerCustomMutator's contract: mutates data[0, size) in place within
// max_size bytes and returns the new size; the same seed gives the same result.
size_t MutateOnnxModel(uint8_t* data, size_t size, size_t max_size, unsigned seed);

}  // namespace tessera::fuzz
