#include "compiler/backend/memory_plan.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "compiler/backend/constants.h"
#include "compiler/backend/tsr.pb.h"

namespace tessera::backend {
namespace {

struct Interval {
  std::string name;
  uint64_t bytes = 0;
  int first = -1, last = -1;
};

}  // namespace

MemoryPlanReport PlanDeviceMemory(tsr::Model* m) {
  MemoryPlanReport r;
  // Live range of every activation buffer (steps that read or write it).
  std::map<std::string, Interval> live;
  for (const tsr::DeviceBuffer& b : m->buffers()) {
    if (IsConstantBuffer(b)) {
      r.constant_bytes += b.bytes();
      continue;
    }
    live[b.name()] = Interval{b.name(), b.bytes(), -1, -1};
    r.activation_bytes_before += b.bytes();
  }
  r.buffers_before = static_cast<int>(live.size());
  std::map<std::string, std::string> buffer_of_value;
  for (const tsr::DeviceValue& v : m->device_values()) buffer_of_value[v.value()] = v.buffer();
  auto touch = [&](const std::string& buffer, int step) {
    auto it = live.find(buffer);
    if (it == live.end()) return;
    if (it->second.first < 0) it->second.first = step;
    it->second.last = std::max(it->second.last, step);
  };
  for (int i = 0; i < m->steps_size(); ++i) {
    const tsr::Step& s = m->steps(i);
    for (const std::string& b : s.slot_buffers()) touch(b, i);
    if (!s.device_value().empty()) touch(buffer_of_value[s.device_value()], i);
  }
  std::vector<Interval> order;
  for (auto& [name, iv] : live)
    if (iv.first >= 0) order.push_back(iv);
  std::sort(order.begin(), order.end(), [](const Interval& a, const Interval& b) {
    return a.first != b.first ? a.first < b.first : a.name < b.name;
  });
  // Arena buffers: size and the last step of their current occupant.
  struct Arena {
    std::string name;
    uint64_t bytes;
    int busy_until;
  };
  std::vector<Arena> arenas;
  std::map<std::string, std::string> rename;
  for (const Interval& iv : order) {
    int best = -1;
    for (int a = 0; a < static_cast<int>(arenas.size()); ++a) {
      if (arenas[a].busy_until >= iv.first) continue;
      // Best fit: the smallest free arena that holds it, else the largest to grow.
      if (best < 0) best = a;
      const bool fits = arenas[a].bytes >= iv.bytes, best_fits = arenas[best].bytes >= iv.bytes;
      if ((fits && (!best_fits || arenas[a].bytes < arenas[best].bytes)) ||
          (!fits && !best_fits && arenas[a].bytes > arenas[best].bytes))
        best = a;
    }
    if (best < 0) {
      arenas.push_back(Arena{"arena:" + std::to_string(arenas.size()), 0, -1});
      best = static_cast<int>(arenas.size()) - 1;
    }
    arenas[best].bytes = std::max(arenas[best].bytes, iv.bytes);
    arenas[best].busy_until = iv.last;
    rename[iv.name] = arenas[best].name;
  }
  // Rewrite: drop the activation buffers, add the arenas, rename every use.
  google::protobuf::RepeatedPtrField<tsr::DeviceBuffer> kept;
  for (const tsr::DeviceBuffer& b : m->buffers())
    if (IsConstantBuffer(b)) *kept.Add() = b;
  for (const Arena& a : arenas) {
    tsr::DeviceBuffer* b = kept.Add();
    b->set_name(a.name);
    b->set_bytes(a.bytes);
    r.activation_bytes_after += a.bytes;
  }
  m->mutable_buffers()->Swap(&kept);
  for (tsr::DeviceValue& v : *m->mutable_device_values())
    if (rename.count(v.buffer())) v.set_buffer(rename[v.buffer()]);
  for (tsr::Step& s : *m->mutable_steps())
    for (std::string& b : *s.mutable_slot_buffers())
      if (rename.count(b)) b = rename[b];
  r.buffers_after = static_cast<int>(arenas.size());
  return r;
}

}  // namespace tessera::backend
