#include "runtime/kernel.h"

#include <algorithm>
#include <tuple>

#include "isa/encoding.h"

namespace tessera {

uint64_t UopSignature(const std::vector<uint32_t>& words) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ words.size();
  for (uint32_t w : words) {
    h ^= w + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

std::shared_ptr<const UopImage> MakeUopImage(std::string name, std::vector<uint32_t> words) {
  auto img = std::make_shared<UopImage>();
  img->name = std::move(name);
  img->signature = UopSignature(words);
  img->words = std::move(words);
  return img;
}

const char* KernelKindName(KernelKind k) { return k == KernelKind::kGemm ? "GEMM" : "ALU"; }

KernelBuilder::KernelBuilder(const HwConfig& cfg, KernelKind kind, std::string name)
    : cfg_(cfg), kind_(kind), name_(std::move(name)) {}

KernelBuilder& KernelBuilder::Outer(int64_t extent, int64_t dst, int64_t src, int64_t wgt) {
  outer_ = KernelLoop{extent, dst, src, wgt};
  return *this;
}
KernelBuilder& KernelBuilder::Inner(int64_t extent, int64_t dst, int64_t src, int64_t wgt) {
  inner_ = KernelLoop{extent, dst, src, wgt};
  return *this;
}
KernelBuilder& KernelBuilder::Uop(int64_t dst, int64_t src, int64_t wgt) {
  tessera::Uop u;
  u.dst = dst;
  u.src = src;
  u.wgt = wgt;
  uops_.push_back(u);
  return *this;
}

StatusOr<Kernel> KernelBuilder::Build() const {
  const char* kind = KernelKindName(kind_);
  const Format fmt = kind_ == KernelKind::kGemm ? Format::kGemm : Format::kAlu;
  if (uops_.empty()) return InvalidArgumentError("{} kernel '{}' has no uops", kind, name_);
  if (static_cast<int64_t>(uops_.size()) > cfg_.uop_entries)
    return ResourceExhaustedError(
        "uop buffer overflow: {} kernel '{}' has {} uops but the uop "
        "scratchpad holds {} ({} bytes); split the kernel",
        kind, name_, uops_.size(), cfg_.uop_entries, cfg_.uop_bytes);
  const int iter_bits = cfg_.layout.slot(fmt, FieldId::iter_out).width;
  auto check_loop = [&](const KernelLoop& loop, const char* lname, bool outer) -> Status {
    if (loop.extent < 1 || !FitsUnsigned(loop.extent, iter_bits))
      return InvalidArgumentError("{} kernel '{}': {} loop extent {} is outside [1, {}]", kind, name_, lname,
                                  loop.extent, (int64_t{1} << iter_bits) - 1);
    const std::tuple<const char*, int64_t, FieldId> factors[] = {
        {"dst", loop.dst, outer ? FieldId::dst_out : FieldId::dst_in},
        {"src", loop.src, outer ? FieldId::src_out : FieldId::src_in},
        {"wgt", loop.wgt, outer ? FieldId::wgt_out : FieldId::wgt_in}};
    for (const auto& [what, v, id] : factors) {
      const FieldSlot& slot = cfg_.layout.slot(fmt, id);
      if (!slot.present()) {
        if (v != 0)
          return InvalidArgumentError("{} kernel '{}': {} loop has a {} factor ({}) but {} kernels have none", kind,
                                      name_, lname, what, v, kind);
        continue;
      }
      if (!FitsUnsigned(v, slot.width))
        return InvalidArgumentError("{} kernel '{}': {} loop {} factor {} does not fit in {} bits", kind, name_, lname,
                                    what, v, slot.width);
    }
    return OkStatus();
  };
  TSR_RETURN_IF_ERROR(check_loop(outer_, "outer", true));
  TSR_RETURN_IF_ERROR(check_loop(inner_, "inner", false));
  Kernel k;
  k.kind_ = kind_;
  k.outer_ = outer_;
  k.inner_ = inner_;
  k.uops_ = uops_;
  std::vector<uint32_t> words;
  words.reserve(uops_.size());
  int64_t max_dst = 0, max_src = 0, max_wgt = 0;
  for (size_t i = 0; i < uops_.size(); ++i) {
    const tessera::Uop& u = uops_[i];
    if (kind_ == KernelKind::kAlu && u.wgt != 0)
      return InvalidArgumentError("ALU kernel '{}': uop {} has wgt = {}; ALU uops have no weight operand", name_, i,
                                  u.wgt);
    auto w = EncodeUop(cfg_, u);
    if (!w.ok()) return w.status().WithContext(fmt::format("{} kernel '{}', uop {}", kind, name_, i));
    words.push_back(*w);
    max_dst = std::max(max_dst, u.dst);
    max_src = std::max(max_src, u.src);
    max_wgt = std::max(max_wgt, u.wgt);
  }
  // Every factor is unsigned, so the largest index is reached in the last iteration.
  auto reach = [&](int64_t base, int64_t fo, int64_t fi) {
    return base + (outer_.extent - 1) * fo + (inner_.extent - 1) * fi;
  };
  struct Reach {
    const char* operand;
    int64_t index;
    MemType mem;
  };
  const MemType src_mem = kind_ == KernelKind::kGemm ? MemType::kInp : MemType::kAcc;
  const Reach reaches[] = {{"dst", reach(max_dst, outer_.dst, inner_.dst), MemType::kAcc},
                           {"src", reach(max_src, outer_.src, inner_.src), src_mem},
                           {"wgt", reach(max_wgt, outer_.wgt, inner_.wgt), MemType::kWgt}};
  for (const Reach& r : reaches) {
    const int64_t entries = cfg_.Entries(r.mem);
    if (r.index >= entries)
      return OutOfRangeError(
          "{} kernel '{}': the loop nest reaches {} entry {} ({} operand) but "
          "the {} scratchpad has "
          "{} entries",
          kind, name_, FindMemType(static_cast<int64_t>(r.mem))->name, r.index, r.operand,
          FindMemType(static_cast<int64_t>(r.mem))->name, entries);
  }
  k.image_ = MakeUopImage(name_, std::move(words));
  return k;
}

StatusOr<Kernel> KernelCache::GetOrBuild(const std::string& key, const std::function<StatusOr<Kernel>()>& build) {
  auto it = map_.find(key);
  if (it != map_.end()) {
    ++hits_;
    return it->second;
  }
  ++misses_;
  StatusOr<Kernel> k = build();
  if (k.ok()) map_.emplace(key, *k);
  return k;
}

}  // namespace tessera
