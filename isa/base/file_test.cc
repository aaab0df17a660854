#include "isa/base/file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace tessera {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/tessera_file_test_" + name; }

TEST(MappedFile, MapsTheWholeFileAndMoves) {
  const std::string path = TempPath("data");
  const std::string text = "weights stored once";
  ASSERT_TRUE(WriteFile(path, text).ok());
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_EQ(f->size(), text.size());
  EXPECT_EQ(std::memcmp(f->data(), text.data(), text.size()), 0);
  MappedFile moved = std::move(*f);
  EXPECT_EQ(f->data(), nullptr);
  EXPECT_EQ(f->size(), 0u);
  ASSERT_EQ(moved.size(), text.size());
  EXPECT_EQ(std::memcmp(moved.data(), text.data(), text.size()), 0);
  moved = MappedFile();
  EXPECT_EQ(moved.data(), nullptr);
}

TEST(MappedFile, EmptyFileHasNoBytes) {
  const std::string path = TempPath("empty");
  ASSERT_TRUE(WriteFile(path, std::string()).ok());
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->size(), 0u);
}

TEST(MappedFile, ErrorsNameTheFile) {
  const std::string missing = TempPath("no_such_file");
  auto f = MappedFile::Open(missing);
  EXPECT_EQ(f.status().code(), StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find(missing), std::string::npos);
  EXPECT_EQ(MappedFile::Open(::testing::TempDir()).status().code(), StatusCode::kInvalidArgument);
  const std::string path = TempPath("big");
  ASSERT_TRUE(WriteFile(path, std::string(100, 'x')).ok());
  auto big = MappedFile::Open(path, 99);
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(big.status().message().find("exceeds the limit of 99 bytes"), std::string::npos);
}

}  // namespace
}  // namespace tessera
