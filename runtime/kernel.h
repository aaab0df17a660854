// Uop kernels: a GEMM or ALU loop nest written as micro-ops. KernelBuilder
// checks everything against the config once (uop fields, loop extents and
// factors, every scratchpad index the loop nest can reach, the uop buffer
// size); a Kernel is immutable and cheap to copy. Its uop words form a
// UopImage, the unit the runtime caches in DRAM and in the uop scratchpad
// (keyed by a signature of the words). KernelCache memoizes built kernels
// under a caller-chosen key so hot paths skip building altogether.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "isa/base/status.h"
#include "isa/config.h"
#include "isa/isa.h"

namespace tessera {

// The encoded uops of a kernel: what a uop LOAD brings into the scratchpad.
struct UopImage {
  std::string name;
  std::vector<uint32_t> words;
  uint64_t signature = 0;  // hash of the words
  bool SameWords(const UopImage& o) const { return signature == o.signature && words == o.words; }
};
uint64_t UopSignature(const std::vector<uint32_t>& words);
std::shared_ptr<const UopImage> MakeUopImage(std::string name, std::vector<uint32_t> words);

enum class KernelKind : uint8_t { kGemm, kAlu };
const char* KernelKindName(KernelKind k);

// One level of the two-level loop nest: trip count and the index step it adds
// to every uop's dst/src/wgt per iteration (the instruction's *_out / *_in).
struct KernelLoop {
  int64_t extent = 1;
  int64_t dst = 0, src = 0, wgt = 0;
};

class Kernel {
 public:
  Kernel() = default;
  bool valid() const { return image_ != nullptr; }
  const std::string& name() const { return image_->name; }
  KernelKind kind() const { return kind_; }
  const KernelLoop& outer() const { return outer_; }
  const KernelLoop& inner() const { return inner_; }
  const std::vector<Uop>& uops() const { return uops_; }
  int64_t size() const { return static_cast<int64_t>(uops_.size()); }
  int64_t iterations() const { return outer_.extent * inner_.extent * size(); }
  const std::shared_ptr<const UopImage>& image() const { return image_; }

 private:
  friend class KernelBuilder;
  KernelKind kind_ = KernelKind::kGemm;
  KernelLoop outer_, inner_;
  std::vector<Uop> uops_;
  std::shared_ptr<const UopImage> image_;
};

class KernelBuilder {
 public:
  KernelBuilder(const HwConfig& cfg, KernelKind kind, std::string name);
  // The loop nest: for i0 < outer.extent, for i1 < inner.extent, for each uop
  // u: dst = u.dst + i0*outer.dst + i1*inner.dst (likewise src, wgt).
  KernelBuilder& Outer(int64_t extent, int64_t dst, int64_t src, int64_t wgt = 0);
  KernelBuilder& Inner(int64_t extent, int64_t dst, int64_t src, int64_t wgt = 0);
  // GEMM: acc[dst] += inp[src] . wgt[wgt]^T. ALU: acc[dst] = op(acc[dst], acc[src] or imm); wgt
  // must be 0.
  KernelBuilder& Uop(int64_t dst, int64_t src, int64_t wgt = 0);
  StatusOr<Kernel> Build() const;

 private:
  const HwConfig& cfg_;
  KernelKind kind_;
  std::string name_;
  KernelLoop outer_, inner_;
  std::vector<tessera::Uop> uops_;
};

class KernelCache {
 public:
  // The kernel cached under `key`, or the result of `build` (cached when ok).
  StatusOr<Kernel> GetOrBuild(const std::string& key, const std::function<StatusOr<Kernel>()>& build);
  size_t size() const { return map_.size(); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }
  void Clear() { map_.clear(); }

 private:
  std::unordered_map<std::string, Kernel> map_;
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace tessera
