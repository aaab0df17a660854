// The driver the fuzz harnesses link in ordinary builds (the libFuzzer build,
// `make fuzz`, uses libFuzzer's own main instead). It runs the harness on
// every seed file, then on a fixed number of deterministic mutations of them,
// so `make test` exercises each parser briefly and reproducibly:
//
//   fuzz_config [-runs=N] [-seed=S] [-max_len=L] [-ext=.json] [-dump=K] PATH...
//
// PATHs are files or directories (searched recursively; with -ext, only files
// with that suffix). Mutation k uses seed S + k, so `-dump=K` writes mutation
// K to fuzz-input-K and runs only it: a crash in `make test` is replayed with
// the same command plus -dump=K (the run prints K before each mutation when
// TESSERA_FUZZ_VERBOSE is set). A harness that defines libFuzzer's
// LLVMFuzzerCustomMutator (structure-aware mutation) gets its mutations from
// it, and LLVMFuzzerMutate (which it may call) is the byte mutation below.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed)
    __attribute__((weak));

namespace {

using Bytes = std::vector<uint8_t>;

Bytes ReadAll(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool HasSuffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One to four random edits of the kinds libFuzzer starts with.
void Mutate(Bytes& b, std::mt19937_64& rng, size_t max_len) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t n = b.size();
    const size_t at = n ? rng() % n : 0;
    switch (rng() % 8) {
      case 0:
        if (n) b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (n) b[at] = static_cast<uint8_t>(rng());
        break;
      case 2: {
        static const uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', '(', '[', '"', '\n'};
        if (n) b[at] = kInteresting[rng() % sizeof(kInteresting)];
        break;
      }
      case 3:
        if (n) b.erase(b.begin() + at, b.begin() + std::min(n, at + 1 + rng() % 16));
        break;
      case 4:
        if (n) {  // duplicate a chunk somewhere else
          const size_t len = std::min(n - at, 1 + rng() % 32);
          Bytes chunk(b.begin() + at, b.begin() + at + len);
          b.insert(b.begin() + rng() % (n + 1), chunk.begin(), chunk.end());
        }
        break;
      case 5: b.insert(b.begin() + (n ? rng() % (n + 1) : 0), static_cast<uint8_t>(rng())); break;
      case 6:
        if (n) b.resize(rng() % n);
        break;
      case 7:
        if (n >= 2) {  // overwrite with an ASCII number, big or small
          static const char* kNumbers[] = {"0", "-1", "255", "65536", "2147483648", "1e999", "9223372036854775808"};
          const char* s = kNumbers[rng() % (sizeof(kNumbers) / sizeof(*kNumbers))];
          b.insert(b.begin() + at, s, s + std::strlen(s));
        }
        break;
    }
  }
  if (b.size() > max_len) b.resize(max_len);
}

std::mt19937_64* g_rng = nullptr;  // the current mutation's, for LLVMFuzzerMutate

}  // namespace

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  Bytes b(data, data + size);
  Mutate(b, *g_rng, max_size);
  std::copy(b.begin(), b.end(), data);
  return b.size();
}

int main(int argc, char** argv) {
  long runs = 0, dump = -1;
  uint64_t seed = 1;
  size_t max_len = 1 << 20;
  std::string ext;
  std::vector<std::filesystem::path> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("-runs=", 0) == 0) {
      runs = std::atol(a.c_str() + 6);
    } else if (a.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(a.c_str() + 6, nullptr, 10);
    } else if (a.rfind("-max_len=", 0) == 0) {
      max_len = std::strtoull(a.c_str() + 9, nullptr, 10);
    } else if (a.rfind("-ext=", 0) == 0) {
      ext = a.substr(5);
    } else if (a.rfind("-dump=", 0) == 0) {
      dump = std::atol(a.c_str() + 6);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "%s: unknown flag %s\n", argv[0], a.c_str());
      return 2;
    } else {
      paths.emplace_back(a);
    }
  }
  std::vector<Bytes> seeds;
  for (const auto& p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p))
        if (e.is_regular_file() && (ext.empty() || HasSuffix(e.path().string(), ext))) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // the order fixes the mutations
      for (const auto& f : files) seeds.push_back(ReadAll(f));
    } else if (std::filesystem::is_regular_file(p)) {
      seeds.push_back(ReadAll(p));
    } else {
      std::fprintf(stderr, "%s: no such seed file or directory: %s\n", argv[0], p.string().c_str());
      return 2;
    }
  }
  if (seeds.empty()) seeds.emplace_back();
  if (dump < 0)
    for (const Bytes& s : seeds) LLVMFuzzerTestOneInput(s.data(), s.size());
  const bool verbose = std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr;
  for (long k = dump < 0 ? 0 : dump; k < (dump < 0 ? runs : dump + 1); ++k) {
    std::mt19937_64 rng(seed + static_cast<uint64_t>(k));
    Bytes b = seeds[rng() % seeds.size()];
    if (LLVMFuzzerCustomMutator) {
      g_rng = &rng;
      const size_t n = b.size();
      b.resize(std::max(n, max_len));
      b.resize(LLVMFuzzerCustomMutator(b.data(), n, max_len, static_cast<unsigned>(rng())));
    } else {
      Mutate(b, rng, max_len);
    }
    if (dump >= 0) {
      const std::string name = "fuzz-input-" + std::to_string(k);
      std::ofstream(name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
      std::fprintf(stderr, "wrote mutation %ld (%zu bytes) to %s\n", k, b.size(), name.c_str());
    }
    if (verbose) std::fprintf(stderr, "mutation %ld\n", k);
    LLVMFuzzerTestOneInput(b.data(), b.size());
  }
  std::printf("%s: %zu seed(s) and %ld mutation(s) ran without a crash\n", argv[0], seeds.size(), dump < 0 ? runs : 1);
  return 0;
}
