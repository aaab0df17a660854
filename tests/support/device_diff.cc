#include "tests/support/device_diff.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <tuple>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/isa.h"
#include "isa/regs.h"

namespace tessera::testing {

DevicePair::DevicePair(const HwConfig& cfg, const std::string& ref, const std::string& dut) : cfg_(cfg) {
  for (auto [name, dev, log] : {std::tuple{&ref, &ref_, &ref_log_}, {&dut, &dut_, &dut_log_}}) {
    DeviceOptions o;
    o.trace = log;
    auto d = OpenDevice(*name, cfg, o);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (d.ok()) *dev = std::move(*d);
  }
}

void DevicePair::Run(const Program& p, DeviceOutcome* ref, DeviceOutcome* dut, int64_t timeout_ms) {
  for (Device* d : {ref_.get(), dut_.get()}) {
    Status s = PlaceProgram(cfg_, p, [&](uint64_t a, const void* src, uint64_t n) { return d->Write(a, src, n); });
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const int64_t n = static_cast<int64_t>(p.insns.size());
  for (auto [d, o, log, elapsed] :
       {std::tuple{ref_.get(), ref, &ref_log_, &ref_elapsed_}, {dut_.get(), dut, &dut_log_, &dut_elapsed_}}) {
    log->spans.clear();
    if (d == dut_.get() && timeout_ms == 0) {
      // The dut's watchdog from the reference's cycles: a dut that runs on
      // (a hang) fails in bounded time instead of at the test's timeout.
      const uint64_t watchdog = kWatchdogTimes * static_cast<uint64_t>(ref->counters.cycles) + kWatchdogSlack;
      o->status = d->StartWithWatchdog(p.text_addr, n, watchdog);
      if (o->status.ok()) o->status = d->Wait();
      if (o->status.fault() && o->status.fault()->code == static_cast<uint32_t>(regs::ErrorCode::kWatchdog))
        o->status = o->status.WithContext(fmt::format("the test's watchdog: {} cycles ({} x the {} cycles of {} + {})",
                                                      watchdog, kWatchdogTimes, ref->counters.cycles, ref_->target(),
                                                      kWatchdogSlack));
    } else {
      o->status = d->Run(p.text_addr, n, timeout_ms);
    }
    o->counters = d->ReadCounters();
    o->device_status = d->ReadStatus();
    o->spans = std::move(log->spans);
    for (InsnSpan& s : o->spans) {
      s.start -= *elapsed;
      s.end -= *elapsed;
    }
    std::stable_sort(o->spans.begin(), o->spans.end(),
                     [](const InsnSpan& a, const InsnSpan& b) { return a.index < b.index; });
    *elapsed += o->counters.cycles;
  }
  auto ranges = ref_->PopulatedRanges();
  for (auto r : dut_->PopulatedRanges()) ranges.push_back(r);
  for (auto [d, o] : {std::pair{ref_.get(), ref}, {dut_.get(), dut}}) {
    o->dram.clear();
    o->ranges = ranges;
    for (auto [a, len] : ranges) {
      const size_t at = o->dram.size();
      o->dram.resize(at + len);
      ASSERT_TRUE(d->Read(a, o->dram.data() + at, len).ok());
    }
  }
}

std::string WriteReplay(const std::string& dir, const std::string& stem, const HwConfig& cfg, const Program& p,
                        const std::string& config_path, const std::string& targets) {
  const std::string path = dir + "/" + stem + ".s";
  std::ofstream(path) << Disassemble(cfg, p);
  return "replay: tessera exec " + path + " -c " + config_path + " --target " + targets + " --stats-json -";
}

std::string FirstDifferingInstruction(const std::vector<InsnSpan>& a, const std::vector<InsnSpan>& b,
                                      const std::string& a_name, const std::string& b_name) {
  auto text = [](const InsnSpan* s) {
    if (!s) return std::string("no span (not started or not ended)");
    const char* module = s->track >= 1 && s->track <= kNumModules ? ModuleName(static_cast<Module>(s->track - 1)) : "?";
    return fmt::format("{} [{}, {}] in the {} module", s->name, s->start, s->end, module);
  };
  const InsnSpan *fa = nullptr, *fb = nullptr;
  int64_t first = std::numeric_limits<int64_t>::max(), index = -1;
  for (size_t i = 0, j = 0; i < a.size() || j < b.size();) {
    const InsnSpan* x = i < a.size() ? &a[i] : nullptr;
    const InsnSpan* y = j < b.size() ? &b[j] : nullptr;
    if (x && y && x->index != y->index) (x->index < y->index ? y : x) = nullptr;  // one side lacks the other's
    const bool same = x && y && x->start == y->start && x->end == y->end && x->track == y->track;
    const int64_t at = std::min(x ? x->start : first, y ? y->start : first);
    if (!same && (index < 0 || at < first)) {
      first = at;
      index = x ? x->index : y->index;
      fa = x;
      fb = y;
    }
    i += x != nullptr;
    j += y != nullptr;
  }
  if (index < 0) return {};
  return fmt::format("first instruction whose start or end cycle differs: #{}\n  {}: {}\n  {}: {}", index, a_name,
                     text(fa), b_name, text(fb));
}

void ExpectSameOutcome(const DeviceOutcome& ref, const DeviceOutcome& dut, const std::string& ref_name,
                       const std::string& dut_name, const std::string& replay) {
  const std::string first = FirstDifferingInstruction(ref.spans, dut.spans, ref_name, dut_name);
  EXPECT_TRUE(first.empty()) << first << "\n" << replay;
  ASSERT_EQ(ref.status.ok(), dut.status.ok()) << ref_name << ": " << ref.status.ToString() << "\n"
                                              << dut_name << ": " << dut.status.ToString() << "\n"
                                              << replay;
  EXPECT_EQ(ref.device_status.error_code, dut.device_status.error_code) << replay;
  EXPECT_EQ(ref.device_status.error_insn, dut.device_status.error_insn) << replay;
  std::string diff;
  std::vector<int64_t> a, b;
  ref.counters.ForEachRegister([&](uint32_t, const int64_t& v) { a.push_back(v); });
  dut.counters.ForEachRegister([&](uint32_t, const int64_t& v) { b.push_back(v); });
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i])
      diff += "\n  " + regs::CounterRegisterName(static_cast<uint32_t>(i)) + ": " + ref_name + " " +
              std::to_string(a[i]) + ", " + dut_name + " " + std::to_string(b[i]);
  EXPECT_TRUE(diff.empty()) << "counters differ:" << diff << "\n" << replay;
  EXPECT_TRUE(ref.counters == dut.counters) << replay;
  if (ref.dram != dut.dram) {
    size_t i = 0;
    while (i < ref.dram.size() && i < dut.dram.size() && ref.dram[i] == dut.dram[i]) ++i;
    uint64_t addr = 0;
    for (size_t at = 0, r = 0; r < ref.ranges.size(); at += ref.ranges[r].second, ++r)
      if (i < at + ref.ranges[r].second) {
        addr = ref.ranges[r].first + (i - at);
        break;
      }
    ADD_FAILURE() << dut_name << " and " << ref_name << " DRAM differ, first at address 0x" << std::hex << addr
                  << std::dec << " (" << ref_name << " " << int{i < ref.dram.size() ? ref.dram[i] : 0} << ", "
                  << dut_name << " " << int{i < dut.dram.size() ? dut.dram[i] : 0} << "); " << replay;
  }
}

}  // namespace tessera::testing
