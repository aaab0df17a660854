#!/usr/bin/env bash
# Reproduces the "Compiler front half" figures of docs/performance.md:
# import + passes + quantization time for ResNet-18, Tessera's CPU executor
# latency (fp32, int8) for ResNet-18 and MobileNetV2, and torch's on the same
# machine in the same session. Usage: tools/models/bench_front_half.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
cmake --build "$BUILD" --target compiler_bench tessera_models
echo "== machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bench/compiler_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Compile|BM_Run' 2>&1 | grep -E '_median|Benchmark'
for m in resnet18 mobilenet_v2; do
  /usr/bin/python3 tools/models/torch_latency.py --model "$m" --threads 1 --int8 --repeat 30 2>/dev/null
done
echo "== load after: $(cut -d' ' -f1-3 /proc/loadavg)"
