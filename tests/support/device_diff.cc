#include "tests/support/device_diff.h"

#include <gtest/gtest.h>

#include <fstream>

#include "driver/registry.h"
#include "isa/asm.h"
#include "isa/regs.h"

namespace tessera::testing {

DevicePair::DevicePair(const HwConfig& cfg, const std::string& ref, const std::string& dut) : cfg_(cfg) {
  for (auto [name, dev] : {std::pair{&ref, &ref_}, {&dut, &dut_}}) {
    auto d = OpenDevice(*name, cfg);
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
  for (auto [d, o] : {std::pair{ref_.get(), ref}, {dut_.get(), dut}}) {
    o->status = d->Run(p.text_addr, n, timeout_ms);
    o->counters = d->ReadCounters();
    o->device_status = d->ReadStatus();
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

void ExpectSameOutcome(const DeviceOutcome& ref, const DeviceOutcome& dut, const std::string& ref_name,
                       const std::string& dut_name, const std::string& replay) {
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
