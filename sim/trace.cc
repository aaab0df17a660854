#include "sim/trace.h"

#include <fmt/format.h>

#include "isa/base/file.h"
#include "isa/isa.h"

namespace tessera {
namespace {

const char* kTracks[] = {"fetch", "load", "compute", "store", "layers"};

std::string Escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}

}  // namespace

std::string InstructionSpanName(const Instruction& in) {
  switch (in.op()) {
    case Opcode::kLoad: return std::string("LOAD ") + std::string(FindMemType(in.mem)->name);
    case Opcode::kStore: return "STORE";
    case Opcode::kGemm: return in.reset ? "GEMM reset" : "GEMM";
    case Opcode::kAlu: return std::string("ALU ") + std::string(FindAluOp(in.alu_op)->name);
    case Opcode::kFinish: return "FINISH";
  }
  return "?";
}

void ChromeTrace::Span(int track, const std::string& name, int64_t start, int64_t end, int64_t index) {
  if (track >= 0 && track < 5) used_[track] = true;
  events_.push_back(fmt::format(
      R"({{"name":"{}","ph":"X","pid":1,"tid":{},"ts":{:.3f},"dur":{:.3f},"args":{{"insn":{},"start_cycle":{},"end_cycle":{}}}}})",
      Escape(name), track, start / clock_mhz_, (end - start) / clock_mhz_, index, start, end));
}

void ChromeTrace::Counter(const std::string& name, int64_t cycle, int64_t value) {
  events_.push_back(fmt::format(R"({{"name":"{}","ph":"C","pid":1,"ts":{:.3f},"args":{{"value":{}}}}})", Escape(name),
                                cycle / clock_mhz_, value));
}

std::string ChromeTrace::ToJson() const {
  std::string s = "{\"traceEvents\":[\n";
  s += R"({"name":"process_name","ph":"M","pid":1,"args":{"name":"tessera accelerator"}})";
  for (int t = 0; t < 5; ++t)
    if (used_[t])
      s += fmt::format(
          ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{},\"args\":{{"
          "\"name\":\"{}\"}}}}",
          t, kTracks[t]);
  for (const std::string& e : events_) s += ",\n" + e;
  s += "\n],\"displayTimeUnit\":\"ns\"}\n";
  return s;
}

Status ChromeTrace::Write(const std::string& path) const { return WriteFile(path, ToJson()); }

}  // namespace tessera
