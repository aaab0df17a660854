// .npy parsing and encoding. The header is a Python dict literal; we accept
// exactly the keys 'descr', 'fortran_order' and 'shape' in any order.
#include "isa/base/npy.h"

#include <cstring>

#include "isa/base/file.h"

namespace tessera {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr int64_t kMaxDims = 32;

struct Header {
  std::string descr;
  bool have_descr = false, have_order = false, have_shape = false;
  bool fortran = false;
  std::vector<int64_t> shape;
};

// Minimal scanner over the header dict text.
class DictScanner {
 public:
  DictScanner(const std::string& s, const std::string& name) : s_(s), name_(name) {}

  Status Parse(Header* h) {
    SkipSpace();
    if (!Eat('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      TSR_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Eat(':')) return Error("expected ':' after key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        TSR_RETURN_IF_ERROR(ParseString(&h->descr));
        h->have_descr = true;
      } else if (key == "fortran_order") {
        if (Word("True"))
          h->fortran = true;
        else if (Word("False"))
          h->fortran = false;
        else
          return Error("'fortran_order' must be True or False");
        h->have_order = true;
      } else if (key == "shape") {
        TSR_RETURN_IF_ERROR(ParseShape(&h->shape));
        h->have_shape = true;
      } else {
        return Error("unknown header key '" + key + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters after the header dict");
    return OkStatus();
  }

 private:
  Status Error(const std::string& what) const {
    return DataLossError("{}: malformed .npy header at offset {}: {}", name_, pos_, what);
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  bool Eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Word(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(pos_, n, w) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  Status ParseString(std::string* out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return Error("expected a string");
    char q = s_[pos_++];
    size_t end = s_.find(q, pos_);
    if (end == std::string::npos) return Error("unterminated string");
    *out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return OkStatus();
  }
  Status ParseShape(std::vector<int64_t>* shape) {
    if (!Eat('(')) return Error("'shape' must be a tuple");
    while (true) {
      SkipSpace();
      if (Eat(')')) return OkStatus();
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') return Error("expected a dimension");
      int64_t v = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        if (v > (int64_t{1} << 48)) return Error("dimension too large");
        v = v * 10 + (s_[pos_++] - '0');
      }
      if (static_cast<int64_t>(shape->size()) >= kMaxDims) return Error("too many dimensions");
      shape->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return OkStatus();
      return Error("expected ',' or ')' in shape");
    }
  }

  const std::string& s_;
  const std::string& name_;
  size_t pos_ = 0;
};

bool DescrToDType(const std::string& d, NpyDType* t) {
  if (d == "<f4")
    *t = NpyDType::kF32;
  else if (d == "|i1" || d == "<i1" || d == "i1")
    *t = NpyDType::kI8;
  else if (d == "|u1" || d == "<u1" || d == "u1")
    *t = NpyDType::kU8;
  else if (d == "<i4")
    *t = NpyDType::kI32;
  else if (d == "<i8")
    *t = NpyDType::kI64;
  else if (d == "|b1")
    *t = NpyDType::kBool;
  else
    return false;
  return true;
}

}  // namespace

const char* NpyDescr(NpyDType t) {
  switch (t) {
    case NpyDType::kF32: return "<f4";
    case NpyDType::kI8: return "|i1";
    case NpyDType::kU8: return "|u1";
    case NpyDType::kI32: return "<i4";
    case NpyDType::kI64: return "<i8";
    case NpyDType::kBool: return "|b1";
  }
  return "?";
}

int NpyElementSize(NpyDType t) {
  switch (t) {
    case NpyDType::kF32: return 4;
    case NpyDType::kI8: return 1;
    case NpyDType::kU8: return 1;
    case NpyDType::kI32: return 4;
    case NpyDType::kI64: return 8;
    case NpyDType::kBool: return 1;
  }
  return 0;
}

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

StatusOr<NpyArray> ParseNpy(const std::vector<uint8_t>& bytes, const std::string& name) {
  if (bytes.size() < kMagicLen + 4 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0)
    return DataLossError("{}: not a .npy file (bad magic)", name);
  const int major = bytes[6];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = bytes[8] | (size_t{bytes[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return DataLossError("{}: truncated .npy header", name);
    header_len = bytes[8] | (size_t{bytes[9]} << 8) | (size_t{bytes[10]} << 16) | (size_t{bytes[11]} << 24);
    header_start = 12;
  } else {
    return UnimplementedError("{}: .npy format version {}.{} is not supported (1.0, 2.0, 3.0 are)", name, major,
                              bytes[7]);
  }
  if (header_start + header_len > bytes.size())
    return DataLossError("{}: .npy header length {} runs past the end of the file", name, header_len);
  std::string text(bytes.begin() + header_start, bytes.begin() + header_start + header_len);
  Header h;
  TSR_RETURN_IF_ERROR(DictScanner(text, name).Parse(&h));
  if (!h.have_descr || !h.have_order || !h.have_shape)
    return DataLossError("{}: .npy header lacks one of 'descr', 'fortran_order', 'shape'", name);
  NpyArray a;
  if (!DescrToDType(h.descr, &a.dtype))
    return UnimplementedError("{}: .npy dtype '{}' is not supported (float32, int8, uint8, int32, int64, bool are)",
                              name, h.descr);
  if (h.fortran) return UnimplementedError("{}: Fortran-order .npy arrays are not supported", name);
  a.shape = h.shape;
  const size_t data_start = header_start + header_len;
  const uint64_t available = bytes.size() - data_start;
  const int esize = NpyElementSize(a.dtype);
  // Check the element count against the bytes actually present before multiplying out.
  bool empty = false;
  for (int64_t d : a.shape) empty |= d == 0;
  uint64_t numel = 1;
  for (int64_t d : a.shape) {
    if (empty) {
      numel = 0;
      break;
    }
    if (numel > available / static_cast<uint64_t>(d)) {
      return DataLossError("{}: .npy shape needs more data than the file holds ({} bytes)", name, available);
    }
    numel *= static_cast<uint64_t>(d);
  }
  if (numel * esize != available)
    return DataLossError("{}: .npy data is {} bytes, the header's shape needs {}", name, available, numel * esize);
  a.data.assign(bytes.begin() + data_start, bytes.end());
  return a;
}

StatusOr<NpyArray> ReadNpy(const std::string& path) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadBinaryFile(path));
  return ParseNpy(bytes, path);
}

StatusOr<std::vector<uint8_t>> EncodeNpy(const NpyArray& a) {
  uint64_t numel = 1;
  for (int64_t d : a.shape) {
    if (d < 0) return InvalidArgumentError("npy: negative dimension {}", d);
    numel *= static_cast<uint64_t>(d);
  }
  if (numel * NpyElementSize(a.dtype) != a.data.size())
    return InvalidArgumentError("npy: {} data bytes do not match the shape ({} elements)", a.data.size(), numel);
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': (", NpyDescr(a.dtype));
  for (size_t i = 0; i < a.shape.size(); ++i) dict += fmt::format("{}, ", a.shape[i]);
  if (a.shape.size() > 1) dict.resize(dict.size() - 2);  // (3,) keeps its comma, (3, 4) does not
  if (a.shape.size() == 1) dict.resize(dict.size() - 1);
  dict += "), }";
  // Pad with spaces so the data starts at a multiple of 64, ending in '\n'.
  size_t prefix = 10;
  int major = 1;
  if (dict.size() + 1 + prefix + 64 > 65535) {
    prefix = 12;
    major = 2;
  }
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  size_t hl = dict.size();
  out.push_back(hl & 0xff);
  out.push_back((hl >> 8) & 0xff);
  if (major == 2) {
    out.push_back((hl >> 16) & 0xff);
    out.push_back((hl >> 24) & 0xff);
  }
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

Status WriteNpy(const std::string& path, const NpyArray& array) {
  TSR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, EncodeNpy(array));
  return WriteFile(path, bytes);
}

}  // namespace tessera
