// matmul_example: int8 C = A . B for any M, N, K on the accelerator, through
// the runtime's C++ API, checked against a plain CPU loop. It is the worked
// example of docs/runtime.md: open a device, allocate and fill buffers,
// record a double-buffered stream (examples/matmul/tiled_matmul.cc), load it
// as an executable, run it, read the result back; with --replay, run the same
// executable again on new buffers (patched addresses, no re-assembly).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <random>

#include "driver/registry.h"
#include "examples/matmul/tiled_matmul.h"
#include "runtime/runtime.h"

namespace tessera::example {
namespace {

struct Args {
  int64_t m = 64, n = 64, k = 64;
  std::string config = "configs/default.json";
  std::string target = "ref";
  int shift = -1;
  uint64_t seed = 1;
  int64_t tm = 0, tn = 0, tk = 0;
  int64_t capacity = 65536;
  int64_t timeout_ms = 60000;
  bool replay = false;
  bool verbose = false;
};

std::vector<int8_t> RandomInt8(size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

void PrintCounters(const HwConfig& cfg, const DeviceCounters& c) {
  std::printf("  device: %lld cycles, %lld MACs, GEMM utilization %.1f%%\n", static_cast<long long>(c.cycles),
              static_cast<long long>(c.macs), 100.0 * c.GemmUtilization(cfg));
  std::printf("  %-8s", "unit");
  for (std::string_view k : regs::kStallNames) std::printf(" %12.*s", static_cast<int>(k.size()), k.data());
  std::printf("\n");
  for (int u = 0; u < regs::kNumUnits; ++u) {
    std::printf("  %-8s", regs::kUnitNames[u].data());
    for (int k = 0; k < regs::kNumStalls; ++k)
      std::printf(" %12lld", static_cast<long long>(c.unit(static_cast<regs::Unit>(u)).at(k)));
    std::printf("\n");
  }
}

// Packs and uploads fresh inputs, returns the expected output.
StatusOr<std::vector<int8_t>> Upload(Runtime& rt, const MatmulPlan& plan, const Buffer& a, const Buffer& b,
                                     std::mt19937_64& rng) {
  const HwConfig& cfg = rt.config();
  std::vector<int8_t> am = RandomInt8(static_cast<size_t>(plan.shape.m * plan.shape.k), rng);
  std::vector<int8_t> bm = RandomInt8(static_cast<size_t>(plan.shape.k * plan.shape.n), rng);
  std::vector<int8_t> pa = PackA(cfg, plan, am), pb = PackB(cfg, plan, bm);
  TSR_RETURN_IF_ERROR(rt.CopyIn(a, pa.data(), pa.size()));
  TSR_RETURN_IF_ERROR(rt.CopyIn(b, pb.data(), pb.size()));
  return MatmulReference(am, bm, plan.shape, plan.shift);
}

// Reads C back and compares; prints the first mismatches.
StatusOr<bool> Check(Runtime& rt, const MatmulPlan& plan, const Buffer& c, const std::vector<int8_t>& expect) {
  std::vector<int8_t> packed(static_cast<size_t>(plan.c_bytes));
  TSR_RETURN_IF_ERROR(rt.CopyOut(c, packed.data(), packed.size()));
  std::vector<int8_t> got = UnpackC(rt.config(), plan, packed);
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != expect[i] && ++bad <= 5)
      std::printf("  mismatch C[%lld][%lld]: accelerator %d, CPU %d\n", static_cast<long long>(i / plan.shape.n),
                  static_cast<long long>(i % plan.shape.n), got[i], expect[i]);
  if (bad) std::printf("  %lld of %zu elements differ\n", static_cast<long long>(bad), got.size());
  return bad == 0;
}

StatusOr<bool> Main(const Args& args) {
  // 1. A device and a runtime on it.
  TSR_ASSIGN_OR_RETURN(HwConfig cfg, LoadHwConfig(args.config));
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Device> dev, OpenDevice(args.target, cfg));
  RuntimeOptions ro;
  ro.insn_buffer_capacity = args.capacity;
  ro.timeout_ms = args.timeout_ms;
  TSR_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> rt, Runtime::Create(std::move(dev), ro));

  // 2. The tiling, and buffers for the packed matrices.
  const MatmulShape shape{args.m, args.n, args.k};
  TSR_ASSIGN_OR_RETURN(
      MatmulPlan plan,
      PlanMatmul(rt->config(), shape, args.shift >= 0 ? args.shift : DefaultShift(args.k), args.tm, args.tn, args.tk));
  TSR_ASSIGN_OR_RETURN(Buffer a, rt->Alloc(static_cast<uint64_t>(plan.a_bytes), "A"));
  TSR_ASSIGN_OR_RETURN(Buffer b, rt->Alloc(static_cast<uint64_t>(plan.b_bytes), "B"));
  TSR_ASSIGN_OR_RETURN(Buffer c, rt->Alloc(static_cast<uint64_t>(plan.c_bytes), "C"));
  std::mt19937_64 rng(args.seed);
  TSR_ASSIGN_OR_RETURN(std::vector<int8_t> expect, Upload(*rt, plan, a, b, rng));
  std::printf("matmul %lldx%lldx%lld (M x N x K) on config '%s', target %s\n", static_cast<long long>(args.m),
              static_cast<long long>(args.n), static_cast<long long>(args.k), cfg.name.c_str(), args.target.c_str());
  std::printf(
      "  tiles: %lld x %lld x %lld blocks of a %lld x %lld x %lld block matrix, %lld "
      "steps, shift %d\n",
      static_cast<long long>(plan.tm), static_cast<long long>(plan.tn), static_cast<long long>(plan.tk),
      static_cast<long long>(plan.mb), static_cast<long long>(plan.nb), static_cast<long long>(plan.kb),
      static_cast<long long>(plan.steps()), plan.shift);

  // 3. Record the stream (JIT), then load it onto the device.
  Stream s = rt->NewStream("matmul");
  TSR_RETURN_IF_ERROR(RecordMatmul(&s, plan, a, b, c, &rt->kernel_cache()));
  TSR_ASSIGN_OR_RETURN(Recording rec, s.Finish());
  const RecordingStats& st = rec.stats;
  std::printf(
      "  stream: %lld instructions in %zu piece(s); %lld uop loads, %lld kernel hits, %lld "
      "tokens folded, "
      "%lld no-ops\n",
      static_cast<long long>(rec.num_insns()), rec.pieces.size(), static_cast<long long>(st.uop_loads),
      static_cast<long long>(st.kernel_hits), static_cast<long long>(st.folded_tokens),
      static_cast<long long>(st.noops));
  if (args.verbose) {
    TSR_ASSIGN_OR_RETURN(std::string text, rec.Disassemble(rt->config()));
    std::fputs(text.c_str(), stdout);
  }
  TSR_ASSIGN_OR_RETURN(Executable x, rt->Load(rec));

  // 4. Run and check.
  TSR_RETURN_IF_ERROR(x.Run());
  if (rt->device().has_timing()) PrintCounters(rt->config(), x.counters());
  TSR_ASSIGN_OR_RETURN(bool ok, Check(*rt, plan, c, expect));

  // 5. Replay: new buffers, new data, the same executable (fields patched, nothing re-assembled).
  if (args.replay) {
    TSR_ASSIGN_OR_RETURN(Buffer a2, rt->Alloc(static_cast<uint64_t>(plan.a_bytes), "A2"));
    TSR_ASSIGN_OR_RETURN(Buffer b2, rt->Alloc(static_cast<uint64_t>(plan.b_bytes), "B2"));
    TSR_ASSIGN_OR_RETURN(Buffer c2, rt->Alloc(static_cast<uint64_t>(plan.c_bytes), "C2"));
    TSR_ASSIGN_OR_RETURN(std::vector<int8_t> expect2, Upload(*rt, plan, a2, b2, rng));
    TSR_RETURN_IF_ERROR(x.Bind("A", a2));
    TSR_RETURN_IF_ERROR(x.Bind("B", b2));
    TSR_RETURN_IF_ERROR(x.Bind("C", c2));
    TSR_RETURN_IF_ERROR(x.Run());
    std::printf("  replay on new buffers: %lld DRAM fields patched\n", static_cast<long long>(x.patched_fields()));
    TSR_ASSIGN_OR_RETURN(bool ok2, Check(*rt, plan, c2, expect2));
    ok = ok && ok2;
  }
  return ok;
}

}  // namespace
}  // namespace tessera::example

int main(int argc, char** argv) {
  tessera::example::Args args;
  CLI::App app{"int8 C = A . B on the Tessera accelerator through the runtime API, checked against the CPU"};
  app.add_option("--m", args.m, "rows of A and C")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--n", args.n, "columns of B and C")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--k", args.k, "columns of A, rows of B")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("-c,--config", args.config, "hardware config JSON")->capture_default_str();
  std::string targets;
  for (const std::string& t : tessera::DeviceTargets()) targets += (targets.empty() ? "" : ", ") + t;
  app.add_option("--target", args.target, "device target: " + targets)->capture_default_str();
  app.add_option("--shift", args.shift, "requantization shift (default: 7 + log2(K)/2, rounded)");
  app.add_option("--seed", args.seed, "random seed for A and B")->capture_default_str();
  app.add_option("--tile-m", args.tm, "force the tile height in blocks of BATCH rows");
  app.add_option("--tile-n", args.tn, "force the tile width in blocks of BLOCK_OUT columns");
  app.add_option("--tile-k", args.tk, "force the tile depth in blocks of BLOCK_IN");
  app.add_option("--capacity", args.capacity, "instruction-buffer capacity (instructions per device run)")
      ->capture_default_str();
  app.add_option("--timeout-ms", args.timeout_ms, "device timeout per run (ms of device time)")->capture_default_str();
  app.add_flag("--replay", args.replay, "run the executable again on new buffers and inputs");
  app.add_flag("-v,--verbose", args.verbose, "print the recorded instruction stream");
  CLI11_PARSE(app, argc, argv);
  auto ok = tessera::example::Main(args);
  if (!ok.ok()) {
    std::fprintf(stderr, "matmul_example: error: %s\n", ok.status().ToString().c_str());
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("%s\n", *ok ? "PASS" : "FAIL");
  return *ok ? 0 : 1;
}
