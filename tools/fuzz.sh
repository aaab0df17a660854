#!/usr/bin/env bash
# Fuzzing campaigns with libFuzzer (docs/reliability.md). Builds the harnesses
# with clang-15, libFuzzer, ASan and UBSan (preset `fuzz`, build-fuzz/), then
# runs each named harness (default: all) for FUZZ_SECONDS at the lowest CPU
# priority, starting from its seed corpus, and appends one line per harness to
# build-fuzz/fuzz-results.txt: date, harness, executions, seconds (wall and
# CPU: on a shared machine exec/s follows the load, exec per CPU-second does
# not), crash files this run left. FUZZ_RUNS ends a harness after that many executions instead
# (the first limit reached ends it).
# Seeds that are build products come from the default build (run `make test`
# once first). A crash leaves build-fuzz/crashes/<harness>-crash-<sha1>;
# replay it with: build-fuzz/tests/fuzz/fuzz_<harness> <that file>
#
# Usage: tools/fuzz.sh [HARNESS...]
#   env: FUZZ_SECONDS (600), FUZZ_RUNS (none), FUZZ_SEED_BUILD (build)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-600}
runs=()
[ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
seed_build=${FUZZ_SEED_BUILD:-build}
all=(config asm program dram npy tir onnx tsr engines)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

[ -f build-fuzz/build.ninja ] || cmake --preset fuzz -DTESSERA_FUZZ_SEED_BUILD="$PWD/$seed_build"
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz_$h"); done
nice -n 19 cmake --build build-fuzz -j "${FUZZ_JOBS:-2}" --target "${targets[@]}"

mkdir -p build-fuzz/corpus build-fuzz/crashes build-fuzz/logs
for h in "${harnesses[@]}"; do
  corpus=build-fuzz/corpus/$h
  mkdir -p "$corpus"
  # The .corpus file: the seed suffix on its first line, then seed paths.
  list=build-fuzz/tests/fuzz/fuzz_$h.corpus
  ext=$(head -n 1 "$list")
  tail -n +2 "$list" | while read -r p; do
    [ -z "$p" ] && continue
    if [ -d "$p" ]; then
      find "$p" -type f -name "*$ext" -exec cp -t "$corpus" {} +
    elif [ -f "$p" ]; then cp "$p" "$corpus"; fi
  done
  log=build-fuzz/logs/$h.log
  max_len=$(grep -o -- '-max_len=[0-9]*' "build-fuzz/tests/fuzz/fuzz_$h.args" 2>/dev/null || echo -max_len=65536)
  start=$(date +%s)
  touch "$log.start"
  set +e
  TIMEFORMAT='%U %S'
  { time nice -n 19 "build-fuzz/tests/fuzz/fuzz_$h" -max_total_time="$seconds" "${runs[@]}" "$max_len" -timeout=30 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$h-" "$corpus" >"$log" 2>&1; } \
    2>"$log.time"
  rc=$?
  cpu=$(awk '{printf "%d", $1 + $2}' "$log.time")
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n 1)
  crashes=$(find build-fuzz/crashes -name "$h-*" -newer "$log.start" | wc -l)
  line="$(date -u +%FT%TZ) $h executions=${execs:-?} seconds=$(($(date +%s) - start)) cpu_seconds=${cpu:-?} exit=$rc crash_files=$crashes"
  echo "$line" | tee -a build-fuzz/fuzz-results.txt
done
