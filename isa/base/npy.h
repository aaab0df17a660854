// .npy files (numpy format versions 1.0, 2.0 and 3.0; C order; little-endian
// float32, int8, uint8, int32, int64, bool). The runtime and the compiler exchange
// tensors with Python through these. Malformed files are a Status error; the
// reader never allocates more than the file holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/base/status.h"

namespace tessera {

enum class NpyDType : uint8_t { kF32, kI8, kU8, kI32, kI64, kBool };

// numpy's descr string ("<f4", "|i1", ...) and element size.
const char* NpyDescr(NpyDType t);
int NpyElementSize(NpyDType t);

struct NpyArray {
  NpyDType dtype = NpyDType::kF32;
  std::vector<int64_t> shape;  // empty = scalar
  std::vector<uint8_t> data;   // numel * element size bytes, C order, little-endian

  int64_t numel() const;
};

// Parses the bytes of a .npy file; `name` is used in error messages.
StatusOr<NpyArray> ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name);
StatusOr<NpyArray> ReadNpy(const std::string& path);

// Encodes as version 1.0 (2.0 when the header does not fit in 64 KiB).
StatusOr<std::vector<uint8_t>> EncodeNpy(const NpyArray& array);
Status WriteNpy(const std::string& path, const NpyArray& array);

}  // namespace tessera
