#include "isa/base/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tessera {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// Exactly what numpy 1.24 np.save writes for np.arange(6, dtype=float32).reshape(2, 3).
std::string NumpyF32() {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  h.append(0x76 - h.size() - 1, ' ');
  h += '\n';
  std::string s = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + h;
  for (int i = 0; i < 6; ++i) {
    float f = static_cast<float>(i);
    s.append(reinterpret_cast<const char*>(&f), 4);
  }
  return s;
}

TEST(Npy, ParsesNumpyOutputAndEncodesIdentically) {
  auto a = ParseNpy(Bytes(NumpyF32()), "a.npy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->dtype, NpyDType::kF32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  float v[6];
  std::memcpy(v, a->data.data(), 24);
  EXPECT_EQ(v[5], 5.0f);
  auto enc = EncodeNpy(*a);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(*enc, Bytes(NumpyF32()));
}

TEST(Npy, RoundTripsAllTypesAndScalars) {
  for (NpyDType t : {NpyDType::kF32, NpyDType::kI8, NpyDType::kU8, NpyDType::kI32, NpyDType::kI64}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {3}, {2, 0, 4}, {1, 2, 3, 4}}) {
      NpyArray a;
      a.dtype = t;
      a.shape = shape;
      a.data.resize(a.numel() * NpyElementSize(t));
      for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = static_cast<uint8_t>(i * 37 + 1);
      auto enc = EncodeNpy(a);
      ASSERT_TRUE(enc.ok());
      EXPECT_EQ(enc->size() % 64, a.data.size() % 64);  // data starts 64-aligned
      auto b = ParseNpy(*enc, "rt.npy");
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      EXPECT_EQ(b->dtype, t);
      EXPECT_EQ(b->shape, shape);
      EXPECT_EQ(b->data, a.data);
    }
  }
}

TEST(Npy, Version2Header) {
  std::string h = "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }";
  h.append(0x74 - h.size() - 1, ' ');
  h += '\n';
  std::string s = std::string("\x93NUMPY\x02\x00\x74\x00\x00\x00", 12) + h + "\x01\x02";
  auto a = ParseNpy(Bytes(s), "v2.npy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->dtype, NpyDType::kU8);
  EXPECT_EQ(a->data, (std::vector<uint8_t>{1, 2}));
}

std::string ErrorOf(const std::string& bytes) {
  auto r = ParseNpy(Bytes(bytes), "bad.npy");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

std::string WithHeader(const std::string& dict, const std::string& data) {
  std::string s = std::string("\x93NUMPY\x01\x00", 8);
  s += static_cast<char>(dict.size() & 0xff);
  s += static_cast<char>(dict.size() >> 8);
  return s + dict + data;
}

TEST(Npy, MalformedFilesAreErrors) {
  EXPECT_NE(ErrorOf("").find("bad magic"), std::string::npos);
  EXPECT_NE(ErrorOf("\x93NUMPX\x01\x00\x00\x00").find("bad magic"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)).find("runs past the end"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string("\x93NUMPY\x09\x00\x00\x00", 10)).find("version 9.0"), std::string::npos);
  EXPECT_NE(
      ErrorOf(WithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", "12345678")).find("dtype '<f8'"),
      std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", "1234")).find("Fortran"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "1234")).find("needs 8"),
            std::string::npos);
  // A huge shape with little data is refused before anything is allocated.
  EXPECT_NE(
      ErrorOf(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", "1234"))
          .find("more data than the file holds"),
      std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4', 'shape': (1,), }", "1234")).find("lacks"), std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "1234"))
                .find("unknown header key 'x'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "1234"))
                .find("expected a dimension"),
            std::string::npos);
  EXPECT_NE(ErrorOf(WithHeader("{'descr': '<f4' 'fortran_order': False}", "")).find("expected ','"), std::string::npos);
}

TEST(Npy, EncodeRejectsInconsistentArrays) {
  NpyArray a;
  a.shape = {2};
  a.data.resize(4);
  EXPECT_FALSE(EncodeNpy(a).ok());
}

TEST(Npy, MissingFile) {
  auto r = ReadNpy("/nonexistent/x.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.npy"), std::string::npos);
}

}  // namespace
}  // namespace tessera
