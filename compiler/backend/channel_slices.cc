#include "compiler/backend/channel_slices.h"

#include <algorithm>
#include <set>
#include <utility>

#include "isa/config.h"

namespace tessera::backend {
namespace {

struct Parent {
  const ir::Value* of = nullptr;  // the concat result holding the value
  int64_t offset = 0;
};

class Planner {
 public:
  Planner(const HwConfig& cfg, std::vector<Placement>* parts) : cfg_(cfg), parts_(*parts) {
    for (size_t i = 0; i < parts_.size(); ++i) index_[parts_[i].node] = i;
  }

  std::map<std::string, ChannelSlice> Run() {
    for (Placement& p : parts_)
      if (p.node->op() == "concat" && Eligible(*p.node) && Place(*p.node)) {
        p.kind = PlaceKind::kAlias;
        p.op = AccelOp::kNone;
        p.reason = "channel concat in place: its operands are stored into channel slices of one device buffer";
      }
    std::map<std::string, ChannelSlice> out;
    for (const auto& [v, parent] : parent_) {
      auto [root, offset] = Resolve(v);
      out[v->name()] = ChannelSlice{root->name(), offset, Channels(root)};
    }
    return out;
  }

 private:
  const Placement* PlacementOf(const ir::Node* n) const {
    auto it = index_.find(n);
    return it == index_.end() ? nullptr : &parts_[it->second];
  }

  // The root value holding v and v's first channel in it.
  std::pair<const ir::Value*, int64_t> Resolve(const ir::Value* v) const {
    int64_t offset = 0;
    for (auto it = parent_.find(v); it != parent_.end(); it = parent_.find(v)) {
      offset += it->second.offset;
      v = it->second.of;
    }
    return {v, offset};
  }

  // Written by a layer that stores through a strided view (a conv, a pool, a
  // max pool in its conv's epilogue: DenseNet's pool0), or an in-place concat.
  bool WrittenThroughView(const ir::Value* v) const {
    const Placement* p = v->producer() ? PlacementOf(v->producer()) : nullptr;
    if (p == nullptr) return false;
    if (p->kind == PlaceKind::kAlias) return p->node->op() == "concat";
    if (p->kind == PlaceKind::kFused) {  // a pool, or a pixel shuffle's last node (fuse_conv_shuffle.h)
      const ir::Node* conv = p->node->input(0)->producer();
      for (int i = 0; i < 3 && conv && conv->op() != "qconv"; ++i) conv = conv->input(0)->producer();
      const Placement* c = conv ? PlacementOf(conv) : nullptr;
      return c && c->kind == PlaceKind::kAccel && c->op == AccelOp::kConv &&
             (c->fused_pool == p->node || (!c->shuffle.nodes.empty() && c->shuffle.nodes.back() == p->node));
    }
    return p->kind == PlaceKind::kAccel && (p->op == AccelOp::kConv || p->op == AccelOp::kPool) && !p->fused_pool;
  }

  // Every reader of v can read a strided slice: convolutions, pools, concats, the host.
  bool ReadersTakeSlices(const ir::Value* v) const {
    for (const ir::Node* user : v->users()) {
      const Placement* p = PlacementOf(user);
      if (p == nullptr || p->kind == PlaceKind::kFused || p->fused_pool) return false;  // kept out of the epilogue
      if (p->kind == PlaceKind::kAlias && user->op() != "concat") return false;         // flatten reads whole tiles
      if (p->kind == PlaceKind::kAccel && p->op != AccelOp::kConv && p->op != AccelOp::kPool) return false;
      if (p->kind == PlaceKind::kAccel && p->im2col) return false;
    }
    return true;
  }

  bool Eligible(const ir::Node& n) const {
    if (!InPlaceConcatCandidate(n) || !OperandsFillBlocks(n, cfg_.block_in)) return false;
    // im2col reads host values. When only the host reads the result, the
    // alias downloads it (one transfer) plus every operand another host step
    // reads: worth it only if that is fewer transfers than one per operand.
    bool device_reader = false;
    for (const ir::Node* user : n.output()->users()) {
      const Placement* p = PlacementOf(user);
      if (p == nullptr || p->im2col) return false;
      device_reader |= p->kind != PlaceKind::kCpu;
    }
    if (!device_reader) {
      int downloads = 1;
      for (const ir::Value* x : n.inputs())
        for (const ir::Node* user : x->users())
          if (const Placement* p = PlacementOf(user); user != &n && p && p->kind == PlaceKind::kCpu) {
            ++downloads;
            break;
          }
      if (downloads >= n.num_inputs()) return false;
    }
    return std::all_of(n.inputs().begin(), n.inputs().end(), [&](const ir::Value* x) { return WrittenThroughView(x); });
  }

  // Places the operands of concat n (their roots move along); false if they cannot all be.
  bool Place(const ir::Node& n) {
    const int64_t total = Channels(n.output());
    struct Item {
      const ir::Value* v;  // an operand without a slice, or the root holding operands
      int64_t begin, channels;
    };
    std::vector<Item> items;
    std::map<const ir::Value*, int64_t> root_at;  // root -> its first channel in n
    int64_t at = 0;
    for (const ir::Value* x : n.inputs()) {
      auto [root, offset] = Resolve(x);
      if (root == x) {
        items.push_back({x, at, Channels(x)});
      } else if (auto it = root_at.find(root); it == root_at.end()) {
        root_at[root] = at - offset;
        items.push_back({root, at - offset, Channels(root)});
      } else if (it->second != at - offset) {
        return false;  // the operands sit in their root in another order
      }
      at += Channels(x);
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.begin < b.begin; });
    int64_t end = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      const Item& it = items[i];
      const bool last = it.begin + it.channels == total;
      if (it.begin < end || it.begin + it.channels > total || it.begin % cfg_.block_in != 0 ||
          (!last && it.channels % cfg_.block_in != 0) || !ReadersTakeSlices(it.v))
        return false;
      end = it.begin + it.channels;
    }
    for (const Item& it : items) parent_[it.v] = Parent{n.output(), it.begin};
    return true;
  }

  const HwConfig& cfg_;
  std::vector<Placement>& parts_;
  std::map<const ir::Node*, size_t> index_;
  std::map<const ir::Value*, Parent> parent_;
};

}  // namespace

bool ConcatsInPlace(const HwConfig& cfg) { return cfg.block_in == cfg.block_out; }

bool InPlaceConcatCandidate(const ir::Node& n) {
  const ir::TensorType& y = n.output()->type();
  if (n.op() != "concat" || y.rank() != 4 || y.dtype != ir::DType::kI8) return false;
  const int64_t axis = n.attrs().Int("axis", 0);
  if (axis != 1 && axis != -3) return false;
  std::set<const ir::Value*> seen;
  for (const ir::Value* x : n.inputs())
    if (x->is_constant() || !seen.insert(x).second || x->type().dtype != ir::DType::kI8 || x->type().quant != y.quant)
      return false;
  return true;
}

bool OperandsFillBlocks(const ir::Node& n, int64_t block) {
  for (int i = 0; i + 1 < n.num_inputs(); ++i)
    if (Channels(n.input(i)) % block != 0) return false;
  return true;
}

std::map<std::string, ChannelSlice> PlanChannelSlices(const HwConfig& cfg, std::vector<Placement>* parts) {
  if (!ConcatsInPlace(cfg)) return {};
  return Planner(cfg, parts).Run();
}

}  // namespace tessera::backend
