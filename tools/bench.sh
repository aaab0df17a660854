#!/usr/bin/env bash
# `make bench`: builds and runs every benchmark of bench/ and records their
# figures (docs/performance.md says which figure comes from which benchmark).
# Google Benchmark programs run with 5 repetitions and report medians; each
# writes its JSON to BUILD/bench/results/<name>.json, and the console tables
# are collected in BUILD/bench/results/summary.txt together with the machine,
# the build's flags and the load average before and after.
#
# Usage: tools/bench.sh [BUILD_DIR] [--quick]
#   --quick: one repetition, minimal run time (a smoke test of the benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
QUICK=${2:-}
OUT="$BUILD/bench/results"
cmake --build "$BUILD" --target tessera_benchmarks tessera tessera_models
mapfile -t GBENCH < "$BUILD/bench/benchmarks.txt"  # written by bench/CMakeLists.txt
mkdir -p "$OUT"
BIN=$(realpath "$BUILD/bench")
SUMMARY="$OUT/summary.txt"

if [ "$QUICK" = "--quick" ]; then
  ARGS=(--benchmark_repetitions=1 --benchmark_min_time=0.01)
else
  ARGS=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
fi

{
  echo "== Tessera benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "== machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "== build: $(grep -E '^(CMAKE_BUILD_TYPE|TESSERA_NATIVE):' "$BUILD/CMakeCache.txt" | tr '\n' ' ')"
} | tee "$SUMMARY"

for b in "${GBENCH[@]}"; do
  echo | tee -a "$SUMMARY"
  echo "== $b" | tee -a "$SUMMARY"
  # Benchmarks that write files (startup_bench's .tsr) do so in the results directory.
  (cd "$OUT" && "$BIN/$b" "${ARGS[@]}" --benchmark_out="$b.json" --benchmark_out_format=json) 2>&1 |
    grep -vE '^\*\*\*|^-+$' | tee -a "$SUMMARY"
done

echo | tee -a "$SUMMARY"
echo "== conv_layers (ResNet-18's convolutions on sim, cost model vs simulated cycles)" | tee -a "$SUMMARY"
"$BUILD/bench/conv_layers" configs/default.json 2>&1 | tee -a "$SUMMARY"

echo | tee -a "$SUMMARY"
echo "== model_figures (ResNet-18 compiled and run on sim)" | tee -a "$SUMMARY"
/usr/bin/python3 bench/model_figures.py --build "$BUILD" --model resnet18 --config configs/default.json \
  --repeat "$([ "$QUICK" = "--quick" ] && echo 1 || echo 3)" 2>&1 | tee -a "$SUMMARY"

echo | tee -a "$SUMMARY"
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg); results in $OUT" | tee -a "$SUMMARY"
